import Foundation
import Testing
@testable import WarmCacheBuilder

/// New blobs are flushed while the run goes on, up to a limit; the commit flushes the rest.
@Suite struct BlobFlusherTests {
    private func files(_ count: Int, in folder: URL) throws -> [String] {
        try (0..<count).map { index in
            let fanout = folder.appendingPathComponent(String(format: "%02x", index % 3))
            try FileManager.default.createDirectory(at: fanout, withIntermediateDirectories: true)
            let file = fanout.appendingPathComponent("blob-\(index)")
            try Data(repeating: UInt8(index), count: 1000 + index).write(to: file)
            return file.path
        }
    }

    @Test func flushesTheBlobsItTakesUpToItsLimit() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flusher-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let paths = try files(7, in: folder)
        let flusher = BlobFlusher(limit: 5)
        paths.forEach(flusher.flushSoon)
        // Those it took are flushed before stop() returns; the last two are the commit's.
        #expect(flusher.stop() == Set(paths.prefix(5)))
    }

    @Test func aBlobThatCannotBeFlushedIsLeftToTheCommitAndNothingIsTakenAfterStopping() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flusher-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let paths = try files(2, in: folder)
        let flusher = BlobFlusher(limit: 10)
        flusher.flushSoon(paths[0])
        flusher.flushSoon(folder.appendingPathComponent("missing").path)
        #expect(flusher.stop() == [paths[0]])
        flusher.flushSoon(paths[1])
        #expect(flusher.stop() == [paths[0]])
    }
}
