import Foundation

// The C calls of this target whose spelling differs between the platforms, written once, with the
// Darwin and Linux branches side by side (scripts/check-portability keeps them here).

enum LibC {
    /// Starts `arguments[0]` with `arguments` and `environment`, its standard input and output
    /// the descriptors given (everything else it inherits). Returns the child, and 0 or the
    /// error number `posix_spawn` gave.
    static func spawn(_ arguments: [String], environment: [String: String],
                      standardInput: Int32, standardOutput: Int32) -> (child: pid_t, status: Int32) {
        // Darwin imports the file actions as an optional opaque pointer that `init` allocates;
        // Glibc and Musl as a structure.
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t? = nil
        #else
        var actions = posix_spawn_file_actions_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, standardInput, 0)
        posix_spawn_file_actions_adddup2(&actions, standardOutput, 1)
        // An explicit environment: Darwin does not show `environ` to Swift.
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var child: pid_t = 0
        let status = posix_spawn(&child, arguments[0], &actions, nil, argv, envp)
        return (child, status)
    }
}
