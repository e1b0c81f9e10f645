import Foundation
import WarmCache

extension ImageLoader {
    /// How a loader keeps, fetches and decodes images; every value has a default.
    ///
    /// ```swift
    /// let offline = ImageLoader(bundle: bundle, decoder: decoder,
    ///                           configuration: .init(decodedCacheByteLimit: 48 << 20, usesNetwork: false))
    /// ```
    public struct Configuration: Sendable {
        /// The most bytes of decoded bitmaps kept in memory (width × height × 4 each). By default
        /// an eighth of the device's memory, between 32 and 256 MB.
        public var decodedCacheByteLimit: Int
        /// The most decoded images kept in memory (500 by default).
        public var decodedCacheCountLimit: Int
        /// Whether URLs the bundle lacks (or every URL, without a bundle) are loaded from the
        /// network. `true` by default; when `false` they fail in plain words.
        public var usesNetwork: Bool
        /// The session downloads go through. `nil` (the default): the loader's own, with the
        /// system's defaults and a 150 MB disk cache that follows HTTP's caching rules. Give your
        /// own for authentication, custom headers or a cache of your choosing.
        public var session: URLSession?
        /// The formats the decoder reads, best first: which of a bundle's variants may answer
        /// (by default `ImageFormat/decodedHere`, what this device's system decoders read).
        public var accepting: [ImageFormat]
        /// The most images decoded at once, on the loader's own threads (by default one fewer
        /// than the device's cores, between 1 and 4).
        public var decodeConcurrency: Int

        /// A configuration; leave out what the defaults do well.
        public init(decodedCacheByteLimit: Int = Configuration.defaultDecodedCacheByteLimit,
                    decodedCacheCountLimit: Int = 500, usesNetwork: Bool = true, session: URLSession? = nil,
                    accepting: [ImageFormat] = ImageFormat.decodedHere,
                    decodeConcurrency: Int = Configuration.defaultDecodeConcurrency) {
            self.decodedCacheByteLimit = decodedCacheByteLimit
            self.decodedCacheCountLimit = decodedCacheCountLimit
            self.usesNetwork = usesNetwork
            self.session = session
            self.accepting = accepting
            self.decodeConcurrency = decodeConcurrency
        }

        /// One fewer than the device's cores, between 1 and 4: two on a 3-core device, four on a
        /// 6-core phone.
        public static var defaultDecodeConcurrency: Int {
            min(4, max(1, ProcessInfo.processInfo.activeProcessorCount - 1))
        }

        /// An eighth of the device's memory, between 32 and 256 MB (in 64-bit arithmetic: a
        /// 32-bit `Int` holds no device's memory in bytes).
        public static var defaultDecodedCacheByteLimit: Int {
            let eighth = ProcessInfo.processInfo.physicalMemory / 8
            return Int(clamping: min(max(eighth, 32 << 20), 256 << 20))
        }
    }
}
