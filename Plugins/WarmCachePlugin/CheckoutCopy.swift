import Foundation

/// A copy of a WarmCache checkout to build the tool from, without the checkout's build folders.
///
/// Xcode resolves WarmCache into a checkout that may hold build output (`.build`, `.build-*`, an
/// example app's `.build`): gigabytes the copy does not need, and SwiftPM state that belongs to
/// another build. They are left out while copying, not deleted after: the copy never holds them.
enum CheckoutCopy {
    /// Whether a folder's entry named `name` is build output: `.build` and its variants (`.build-x`,
    /// `.build_x`), and SwiftPM's `.swiftpm` state.
    static func isBuildOutput(_ name: String) -> Bool {
        name == ".build" || name.hasPrefix(".build-") || name.hasPrefix(".build_") || name == ".swiftpm"
    }

    /// Copies `source` to `destination` (which must not exist), leaving out build output at any depth.
    static func copy(_ source: URL, to destination: URL) throws {
        let files = FileManager.default
        try files.createDirectory(at: destination, withIntermediateDirectories: true)
        for name in try files.contentsOfDirectory(atPath: source.path) where !isBuildOutput(name) {
            let from = source.appendingPathComponent(name)
            let to = destination.appendingPathComponent(name)
            let attributes = try files.attributesOfItem(atPath: from.path)
            if attributes[.type] as? FileAttributeType == .typeDirectory {
                try copy(from, to: to)
            } else {
                try files.copyItem(at: from, to: to)
            }
        }
    }
}
