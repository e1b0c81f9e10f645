import Foundation
import Testing
import WarmCache
@testable import WarmCacheBuilder

/// What a killed run (`kill -9`, a crash, a power cut) leaves in a bundle folder, which an app
/// that copies the folder would ship, is a problem verify names; the next run removes it.
@Suite struct LeftoverTests {
    @Test func verifyNamesWhatAKilledRunLeftAndTheNextRunRemovesIt() throws {
        let directory = try BundleFixtures.temporaryDirectory("leftovers")
        defer { try? FileManager.default.removeItem(at: directory) }
        let bundle = directory.appendingPathComponent("Images.warmcache")
        try BundleFixtures.write(to: bundle, sources: ["https://img.test/a.jpg"])
        let left = [".tmp", "index-0A1B.sqlite.tmp", ".statement.json.0A1B.tmp"]
        try FileManager.default.createDirectory(at: bundle.appendingPathComponent(".tmp/x"), withIntermediateDirectories: true)
        for name in left.dropFirst() { try Data("half".utf8).write(to: bundle.appendingPathComponent(name)) }

        let report = try BundleVerifier(bundleURL: bundle).verify()
        #expect(!report.isValid, "an app copying the folder would ship them")
        let leftovers = report.problems.filter { $0.kind == .leftover }
        #expect(leftovers.map(\.subject).sorted() == left.sorted(), "\(report.problems)")
        #expect(report.problems.count == left.count, "\(report.problems)")
        #expect(leftovers.allSatisfy { $0.description.contains("an app that copies this folder ships it")
            && $0.description.contains("warm-cache warm") }, "\(leftovers)")

        try BundleFixtures.write(to: bundle, sources: ["https://img.test/a.jpg"])
        let after = try BundleVerifier(bundleURL: bundle).verify()
        #expect(after.isValid && after.warnings.isEmpty, "\(after.problems) \(after.warnings)")
    }
}
