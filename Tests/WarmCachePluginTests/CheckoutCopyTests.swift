import Foundation
import Testing

// CheckoutCopy.swift in this folder is a link to the plugin's file: how the plugin copies the
// checkout Xcode resolved before building the tool from it.

@Suite struct CheckoutCopyTests {
    /// The build folders of the checkout and of its examples never reach the copy; everything
    /// else does, links as links.
    @Test func buildOutputIsLeftOutAtAnyDepth() throws {
        let files = FileManager.default
        let root = files.temporaryDirectory.appendingPathComponent("checkout-\(UUID().uuidString)")
        defer { try? files.removeItem(at: root) }
        let checkout = root.appendingPathComponent("WarmCache")
        let kept = ["Package.swift", "Sources/WarmCache/A.swift", "Examples/App/Package.swift", ".github/ci.yml"]
        let left = [".build/debug/tool", ".build-release/x", ".build_tsan/y", ".swiftpm/config",
                    "Examples/App/.build/debug/app"]
        for path in kept + left {
            let url = checkout.appendingPathComponent(path)
            try files.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(path.utf8).write(to: url)
        }
        try files.createSymbolicLink(atPath: checkout.appendingPathComponent("Link.swift").path,
                                     withDestinationPath: "Sources/WarmCache/A.swift")

        let copy = root.appendingPathComponent("copy")
        try CheckoutCopy.copy(checkout, to: copy)

        for path in kept {
            #expect(files.contents(atPath: copy.appendingPathComponent(path).path) == Data(path.utf8), "\(path)")
        }
        for path in [".build", ".build-release", ".build_tsan", ".swiftpm", "Examples/App/.build"] {
            #expect(!files.fileExists(atPath: copy.appendingPathComponent(path).path), "\(path) was copied")
        }
        #expect(try files.destinationOfSymbolicLink(atPath: copy.appendingPathComponent("Link.swift").path)
            == "Sources/WarmCache/A.swift")
    }
}
