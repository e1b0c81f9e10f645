import Foundation
import Testing
@testable import WarmCache

@Suite("Folders a bundle may be written into")
struct ObjectStoreTests {
    @Test("Finder's .DS_Store and a copy's ._ files do not stop a bundle; the user's files do")
    func systemFilesAreNotTheUsers() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bundle-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for name in [".DS_Store", "._index.sqlite"] {
            try Data().write(to: folder.appendingPathComponent(name))
        }
        #expect(ObjectStore.refusal(toWriteBundleAt: folder.path) == nil)
        try Data().write(to: folder.appendingPathComponent("notes.txt"))
        #expect(ObjectStore.refusal(toWriteBundleAt: folder.path) == "it holds notes.txt")
    }
}
