import Foundation
import Testing
import WarmCache
import WarmCacheBuilder
import WarmCacheTestSupport

/// Ctrl-C the way a terminal sends it: SIGINT to the whole process group of a real `warm-cache`
/// (the warm and its imaging processes), and SIGTERM to the warm alone. The bundle folder is left
/// exactly as it was (no `.tmp/`, no unlisted blob), one line says so, the exit status is 130
/// (143), no process of the group outlives the warm by a second, and the originals that arrived
/// are not downloaded again.
@Suite struct ProcessGroupInterruptTests {
    private static let arguments = ["warm", "manifest.yml", "--cache-dir", "cache", "-q"]

    /// The warm's process group: its own (the test runner's would be signalled too otherwise).
    private func processGroup(of running: CLI.Running) throws -> pid_t {
        let group = getpgid(running.pid)
        try #require(group > 0 && group != getpgrp(), "the warm does not run in a process group of its own")
        return group
    }

    /// Whether any process of `group` is alive, within `seconds`.
    private func groupEnds(_ group: pid_t, within seconds: Double) async -> Bool {
        await eventually(within: seconds) { kill(-group, 0) != 0 && errno == ESRCH }
    }

    /// The bundle of the first `count` sources, then a run over all of them (the sources from
    /// `heldFrom` on wait for the gate, so the run is mid-way until it opens).
    private func interruptedRun(_ scratch: Scratch, _ server: FixtureServer, gate: FixtureGate, count: Int,
                                firstRun: Int, extraPresets: String = "", presets: [String] = ["thumb", "card"])
        async throws -> (running: CLI.Running, before: [String: String], bundle: URL) {
        let urls = (0..<count).map { server.url("/s/\($0)") }
        try scratch.write(Manifests.yaml(urls: Array(urls.prefix(firstRun))), to: "manifest.yml")
        let first = try await CLI.run(Self.arguments, in: scratch.url)
        try #require(first.status == 0, "\(first)")
        let bundle = scratch.path("Out/Images.warmcache")
        let before = snapshot(of: bundle)
        try scratch.write(Manifests.yaml(urls: urls, presets: presets, extraPresets: extraPresets), to: "manifest.yml")
        server.resetStatistics()
        return (try CLI.start(Self.arguments, in: scratch.url), before, bundle)
    }

    /// Signals the running command once `ready` holds (it is mid-way), with `signal` (given the
    /// run and its process group; SIGINT to the group unless told), then checks what it left.
    /// `kept` names the paths inside the bundle folder the run may add (pull's resume data).
    private func interrupt(_ running: CLI.Running, bundle: URL, before: [String: String], status: Int32 = 130,
                           kept: (String) -> Bool = { _ in false }, when ready: () -> Bool,
                           with signal: (CLI.Running, pid_t) -> Void = { _, group in kill(-group, SIGINT) })
        async throws {
        let group = try processGroup(of: running)
        try #require(await eventually(within: 120, ready), "the run never got mid-way")
        try #require(running.process.isRunning, "the run ended before it was interrupted")
        signal(running, group)
        try await expectInterrupted(running, group: group, status: status, bundle: bundle, before: before, kept: kept)
    }

    /// What an interrupted run must leave: its exit status, one line, the bundle folder as it
    /// was (but for what `kept` allows), and no process of its group a second later.
    private func expectInterrupted(_ running: CLI.Running, group: pid_t, status: Int32, bundle: URL,
                                   before: [String: String], kept: (String) -> Bool) async throws {
        let result = try await running.wait()
        #expect(!result.signalled && result.status == status, "\(result)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines.first?.contains("interrupted") == true
                    && lines.first?.contains("unchanged") == true, "\(result.stderr)")
        #expect(await groupEnds(group, within: 1), "a process of the run's group is still alive")
        let after = snapshot(of: bundle).filter { before[$0.key] != nil || !kept($0.key) }
        #expect(after == before, "\(differences(before, after))")
        if !before.isEmpty { #expect(try BundleVerifier(bundleURL: bundle).verify().isValid) }
    }

    @Test func sigintToTheGroupMidDownloadLeavesTheBundleAsItWas() async throws {
        let images = try SourceImages.distinct(12)
        let gate = FixtureGate()
        var routes = SourceImages.routes(images, under: "s")
        for index in 6..<12 { routes["/s/\(index)"] = .held(gate, routes["/s/\(index)"]!) }
        try await withWorld(routes: routes) { scratch, server in
            let (running, before, bundle) = try await interruptedRun(scratch, server, gate: gate, count: 12, firstRun: 2)
            let fast = (2..<6).map { "/s/\($0)" }
            // Arrived: the first run's two and these four are in the originals cache (each renamed
            // into place once complete), while the others wait for the gate.
            let originals = scratch.path("cache/originals")
            try await interrupt(running, bundle: bundle, before: before) {
                snapshot(of: originals).keys.filter { $0.hasSuffix(".orig") }.count == 6
            }

            // The originals that arrived in full are kept: the next run does not download them.
            gate.open()
            server.resetStatistics()
            let next = try await CLI.run(Self.arguments, in: scratch.url)
            #expect(next.status == 0, "\(next)")
            for path in fast { #expect(server.fullResponseCount(for: path) == 0, "\(path) was downloaded again") }
        }
    }

    @Test func sigintToTheGroupMidEncodeLeavesTheBundleAsItWas() async throws {
        try await interruptMidEncode(status: 130) { _, group in kill(-group, SIGINT) }
    }

    @Test func sigtermToTheWarmAloneStopsItsImagingProcesses() async throws {
        try await interruptMidEncode(status: 143) { running, _ in kill(running.pid, SIGTERM) }
    }

    /// A re-warm of 40 sources with a heavier preset for each, signalled by `signal` (given the
    /// run and its process group) once its first new blob is written: the imaging processes are
    /// encoding, and the last sources still wait for their originals.
    private func interruptMidEncode(status: Int32, _ signal: (CLI.Running, pid_t) -> Void) async throws {
        let images = try SourceImages.distinct(40)
        let gate = FixtureGate()
        var routes = SourceImages.routes(images, under: "s")
        for index in 36..<40 { routes["/s/\(index)"] = .held(gate, routes["/s/\(index)"]!) }
        try await withWorld(routes: routes) { scratch, server in
            let heavy = "  hero: { width: 400, formats: [avif, webp, jpeg], scales: [1, 2] }"
            let (running, before, bundle) = try await interruptedRun(
                scratch, server, gate: gate, count: 40, firstRun: 2, extraPresets: heavy,
                presets: ["thumb", "card", "hero"])
            let objects = bundle.appendingPathComponent("objects")
            let known = Set(snapshot(of: objects).keys)
            try await interrupt(running, bundle: bundle, before: before, status: status, when: {
                !Set(snapshot(of: objects).keys).subtracting(known).isEmpty
            }, with: signal)
            gate.open()
        }
    }

    /// `merge` of three shards of 60 sources over the bundle of the first shard alone. The merge's
    /// group is stopped (SIGSTOP) from its start and let run a millisecond at a time until its
    /// staging folder appears, so that the SIGINT lands mid-merge however fast or loaded the
    /// machine is; then it is continued.
    @Test func sigintToTheGroupMidMergeLeavesTheBundleAsItWas() async throws {
        let images = try SourceImages.distinct(60)
        try await withWorld(routes: SourceImages.routes(images, under: "s")) { scratch, server in
            let urls = (0..<60).map { server.url("/s/\($0)") }
            try scratch.write(Manifests.yaml(urls: urls, presets: ["thumb"]), to: "manifest.yml")
            let parts = (1...3).map { "parts/part-\($0).warmcache" }
            for (index, part) in parts.enumerated() {
                let warm = try await CLI.run(["warm", "manifest.yml", "--shard", "\(index + 1)/3", "-q", "-o", part,
                                              "--cache-dir", "cache-\(index)"], in: scratch.url)
                try #require(warm.status == 0, "\(warm)")
            }
            let first = try await CLI.run(["merge", "-o", "Out/Images.warmcache", parts[0], "--allow-missing-shards", "-q"],
                                          in: scratch.url)
            try #require(first.status == 0, "\(first)")
            let bundle = scratch.path("Out/Images.warmcache")
            let before = snapshot(of: bundle)
            let running = try CLI.start(["merge", "-o", "Out/Images.warmcache", "-q"] + parts, in: scratch.url)
            let group = getpgid(running.pid)
            kill(-group, SIGSTOP)
            defer { kill(-group, SIGCONT) }
            let staging = bundle.appendingPathComponent(".tmp").path
            try await interrupt(running, bundle: bundle, before: before, when: {
                guard running.process.isRunning, !FileManager.default.fileExists(atPath: staging) else { return true }
                kill(-group, SIGCONT)
                usleep(1_000)
                kill(-group, SIGSTOP)
                return false
            }, with: { _, group in
                kill(-group, SIGINT)
                kill(-group, SIGCONT)
            })
        }
    }

    /// `pull` of a release, into an absent folder or over the installed previous release, SIGINT
    /// to its group once its first new blobs are verified while the server holds back the others.
    /// Only the verified blobs stay, in `.update/verified/`, for the next pull (as the bundle
    /// format says).
    @Test(arguments: [false, true]) func sigintToTheGroupMidPullLeavesTheFolderAsItWas(installed: Bool) async throws {
        let images = try SourceImages.distinct(12)
        try await withWorld(routes: SourceImages.routes(images, under: "p")) { scratch, server in
            let (urls, published, base) = try await scratch.serveRelease(of: 12, on: server)
            let local = scratch.path("local/Images.warmcache")
            // Held blobs wait for the gate, not for the pull's 30 s request limit: on a busy
            // machine the first four can take longer than that to verify.
            let pull = ["pull", base.absoluteString, local.path, "--insecure-unsigned",
                        "--concurrency", "2", "--timeout", "600", "-q"]
            let index = published.appendingPathComponent("index.sqlite").path
            var old: Set<String> = []
            if installed {
                let first = try await CLI.run(pull, in: scratch.url)
                try #require(first.status == 0, "\(first)")
                old = try ObjectStore.referencedFileNames(ofIndexAt: index)
                try await scratch.publishRelease(of: urls, quality: 70)
            }
            let before = snapshot(of: local)
            let added = try ObjectStore.referencedFileNames(ofIndexAt: index).subtracting(old).sorted()
            try #require(added.count > 8, "\(added.count) new blobs")
            let gate = FixtureGate()
            for name in added.dropFirst(4) {
                let relative = "objects/\(name.prefix(2))/\(name)"
                let bytes = Array(try Data(contentsOf: published.appendingPathComponent(relative)))
                server.setRoute("/pub/Images.warmcache/" + relative, .held(gate, .image(bytes, contentType: "image/jpeg")))
            }
            let running = try CLI.start(pull, in: scratch.url)
            let verified = local.appendingPathComponent(".update/verified")
            let resumeData = { (path: String) in path == ".update" || path.hasPrefix(".update/verified") }
            try await interrupt(running, bundle: local, before: before, kept: resumeData) {
                snapshot(of: verified).values.filter { $0 != "dir" }.count >= 4
            }
            gate.open()
        }
    }
}
