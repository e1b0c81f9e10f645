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

    /// What an interrupted run must leave: its exit status, one line, the bundle folder as it
    /// was, and no process of its group a second later.
    private func expectInterrupted(_ running: CLI.Running, group: pid_t, status: Int32, bundle: URL,
                                   before: [String: String]) async throws {
        let result = try await running.wait()
        #expect(!result.signalled && result.status == status, "\(result)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines.first?.contains("interrupted") == true
                    && lines.first?.contains("unchanged") == true, "\(result.stderr)")
        #expect(await groupEnds(group, within: 1), "a process of the warm's group is still alive")
        let after = snapshot(of: bundle)
        #expect(after == before, "\(differences(before, after))")
        #expect(try BundleVerifier(bundleURL: bundle).verify().isValid)
    }

    @Test func sigintToTheGroupMidDownloadLeavesTheBundleAsItWas() async throws {
        let images = try SourceImages.distinct(12)
        let gate = FixtureGate()
        var routes = SourceImages.routes(images, under: "s")
        for index in 6..<12 { routes["/s/\(index)"] = .held(gate, routes["/s/\(index)"]!) }
        try await withWorld(routes: routes) { scratch, server in
            let (running, before, bundle) = try await interruptedRun(scratch, server, gate: gate, count: 12, firstRun: 2)
            let group = try processGroup(of: running)
            let fast = (2..<6).map { "/s/\($0)" }
            // Arrived: the first run's two and these four are in the originals cache (each renamed
            // into place once complete), while the others wait for the gate.
            let originals = scratch.path("cache/originals")
            let arrived = await eventually(within: 120) {
                snapshot(of: originals).keys.filter { $0.hasSuffix(".orig") }.count == 6
            }
            try #require(arrived, "the first originals never arrived")
            try #require(running.process.isRunning, "the run ended before it was interrupted")
            kill(-group, SIGINT)
            try await expectInterrupted(running, group: group, status: 130, bundle: bundle, before: before)

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
            let group = try processGroup(of: running)
            let objects = bundle.appendingPathComponent("objects")
            let known = Set(snapshot(of: objects).keys)
            let encoding = await eventually(within: 120) { !Set(snapshot(of: objects).keys).subtracting(known).isEmpty }
            try #require(encoding, "no variant was ever encoded")
            try #require(running.process.isRunning, "the run ended before it was interrupted")
            signal(running, group)
            try await expectInterrupted(running, group: group, status: status, bundle: bundle, before: before)
            gate.open()
        }
    }
}
