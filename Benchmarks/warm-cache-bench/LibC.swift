import Foundation
import WarmCache

// The benchmark's calls whose spelling or existence differs between the platforms, with the
// Darwin and Linux branches side by side. Per-process memory comes from Linux's `/proc`; on other
// systems those figures fall back to what `getrusage` tells, or are left out.

extension LibC {
    /// Starts `argv[0]` with `argv` and `envp` (each ending in `nil`), its output as `output`
    /// says, with no blocked signals (a child spawned from a Dispatch thread would inherit its
    /// mask). Returns the child, or the error number `posix_spawn` gave.
    static func spawn(_ argv: [UnsafeMutablePointer<CChar>?], _ envp: [UnsafeMutablePointer<CChar>?],
                      output: Subprocess.Output) -> Result<pid_t, SpawnFailure> {
        // Darwin imports both as optional opaque pointers that `init` allocates; Glibc as structures.
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t? = nil
        var attributes: posix_spawnattr_t? = nil
        #else
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        switch output {
        case .discard:
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        case .inherit:
            break
        case .file(let url):
            posix_spawn_file_actions_addopen(&actions, 1, url.path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        var pid: pid_t = 0
        let status = posix_spawn(&pid, argv[0]!, &actions, &attributes, argv, envp)
        return status == 0 ? .success(pid) : .failure(SpawnFailure(code: status))
    }

    struct SpawnFailure: Error {
        let code: Int32
        var text: String { String(cString: strerror(code)) }
    }

    /// `ru_maxrss` in MiB: kilobytes on Linux, bytes on Darwin.
    static func maxRSSMiB(_ usage: rusage) -> Double {
        #if canImport(Darwin)
        Double(usage.ru_maxrss) / 1_048_576
        #else
        Double(usage.ru_maxrss) / 1024
        #endif
    }

    /// This process's peak resident set size so far (`getrusage`), in MiB.
    static func ownPeakRSSMiB() -> Double {
        var usage = rusage()
        #if canImport(Darwin)
        getrusage(RUSAGE_SELF, &usage)
        #else
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #endif
        return maxRSSMiB(usage)
    }

    /// A `Name:` field of a live process's `/proc/<pid>/status` (`self` for this one), in KiB,
    /// e.g. `VmHWM`; `nil` for a zombie, or off Linux.
    static func processStatusKiB(_ pid: String, _ field: String) -> Int? {
        #if os(Linux)
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("\(field):") }) else { return nil }
        return Int(line.dropFirst(field.count + 1).trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "")
        #else
        return nil
        #endif
    }

    /// Processes whose parent is `pid` (from `/proc/<n>/stat`: the parent is the fourth field,
    /// after the command name in parentheses); none off Linux.
    static func children(of pid: Int32) -> [Int32] {
        #if os(Linux)
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return entries.compactMap { name -> Int32? in
            guard let candidate = Int32(name), candidate != pid,
                  let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == pid ? candidate : nil
        }
        #else
        return []
        #endif
    }

    /// Resets this process's peak RSS to its current RSS (Linux 4.0+; nothing elsewhere).
    static func resetPeakRSS() {
        #if os(Linux)
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
        #endif
    }

    /// This process's resident set size now, in pages (`/proc/self/statm`); `nil` off Linux.
    static func residentPages() -> Double? {
        #if os(Linux)
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        return statm.split(separator: " ").dropFirst().first.flatMap { Double($0) }
        #else
        return nil
        #endif
    }
}
