import Foundation

/// Why writing a bundle failed. The previous bundle, if any, is untouched whenever this is thrown.
public struct BundleWriterError: Error, CustomStringConvertible, Sendable {
    public enum Kind: Sendable, Equatable {
        /// The output path exists but holds something other than a WarmCache bundle.
        case outputIsNotABundle
        /// Two sources or two variants with the same identity, or a variant of an unknown source.
        case inconsistentContents
        /// A variant references a blob that is not in the object store.
        case missingBlob
        /// A file system operation failed (permissions, disk full, …).
        case fileSystem
        /// SQLite failed while building the index.
        case index
    }

    public let kind: Kind
    public let bundleURL: URL
    public let detail: String

    public init(_ kind: Kind, bundleURL: URL, detail: String) {
        self.kind = kind
        self.bundleURL = bundleURL
        self.detail = detail
    }

    public var description: String {
        let path = bundleURL.path
        switch kind {
        case .outputIsNotABundle:
            return "refusing to write to \(path): it exists and is not a WarmCache bundle (\(detail)); "
                + "choose another output path or remove it"
        case .inconsistentContents:
            return "cannot write bundle \(path): \(detail)"
        case .missingBlob:
            return "cannot write bundle \(path): \(detail); the previous bundle is unchanged"
        case .fileSystem:
            return "cannot write bundle \(path): \(detail); the previous bundle is unchanged"
        case .index:
            return "cannot write the index of bundle \(path): \(detail); the previous bundle is unchanged"
        }
    }
}
