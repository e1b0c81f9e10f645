import Foundation
import WarmCache
import WarmCacheLoading

/// A decoder for tests and benchmarks where there is no ImageIO: it reads the pixel size from the
/// bytes' header (a PNG's `IHDR`, a JPEG's start-of-frame), fails on bytes that have neither,
/// and returns a ``StandInBitmap`` of the size a real decoder would make for `maxPixelSize`.
///
/// ```swift
/// let decoder = StandInDecoder()
/// let loader = ImageLoader(bundle: bundle, decoder: decoder)
/// _ = try await loader.image(for: request)
/// #expect(decoder.callCount == 1)
/// ```
///
/// It counts its calls (coalescing tests), and with a ``DecoderGate`` holds every decode until
/// the test opens the gate (cancellation tests). `instant` skips reading the bytes and returns
/// the asked size at once: the benchmark's decoder, whose own time is left out.
public final class StandInDecoder: ImageDecoding, @unchecked Sendable {
    /// One call, as the loader made it.
    public struct Call: Sendable {
        public let maxPixelSize: Int
        /// `true` when the bytes came as a file (a bundle blob), `false` as data.
        public let fromFile: Bool
    }

    private let gate: DecoderGate?
    private let instant: Bool
    private let lock = NSLock()
    private var recorded: [Call] = []

    /// A decoder that parses headers; `gate`, if given, holds each decode until it opens.
    public init(gate: DecoderGate? = nil) {
        self.gate = gate
        instant = false
    }

    /// A decoder that reads nothing and returns a bitmap of the asked size (64 × 64 for full size)
    /// at once.
    public static func instant() -> StandInDecoder {
        StandInDecoder(instant: true)
    }

    private init(instant: Bool) {
        gate = nil
        self.instant = instant
    }

    /// Every call so far, oldest first.
    public var calls: [Call] { lock.withLock { recorded } }
    /// How many decodes were asked for.
    public var callCount: Int { lock.withLock { recorded.count } }

    public func decode(_ image: EncodedImage, maxPixelSize: Int) throws -> DecodedImage {
        let fromFile: Bool
        if case .file = image.bytes { fromFile = true } else { fromFile = false }
        lock.withLock { recorded.append(Call(maxPixelSize: maxPixelSize, fromFile: fromFile)) }
        gate?.pass()
        if instant {
            let side = maxPixelSize > 0 ? maxPixelSize : 64
            return DecodedImage(image: StandInBitmap(pixelSize: PixelSize(width: side, height: side)),
                                pixelSize: PixelSize(width: side, height: side))
        }
        let bytes: Data
        switch image.bytes {
        case .data(let data): bytes = data
        case .file(let url): bytes = try Data(contentsOf: url)
        }
        guard let full = StandInImages.pixelSize(of: bytes) else { throw StandInDecoderError.notAnImage(bytes.count) }
        let size = Self.fitted(full, maxPixelSize: maxPixelSize)
        return DecodedImage(image: StandInBitmap(pixelSize: size), pixelSize: size)
    }

    /// The size from the PNG or JPEG header, as ImageIO reads it from an image's properties.
    public func pixelSize(of image: EncodedImage) -> PixelSize? {
        switch image.bytes {
        case .data(let data): return StandInImages.pixelSize(of: data)
        case .file(let url): return (try? Data(contentsOf: url)).flatMap(StandInImages.pixelSize(of:))
        }
    }

    /// `full` scaled down so its longest side is at most `maxPixelSize` (0: unchanged), as
    /// ImageIO's thumbnails are.
    static func fitted(_ full: PixelSize, maxPixelSize: Int) -> PixelSize {
        let longest = max(full.width, full.height)
        guard maxPixelSize > 0, longest > maxPixelSize else { return full }
        let ratio = Double(maxPixelSize) / Double(longest)
        return PixelSize(width: max(1, Int((Double(full.width) * ratio).rounded())),
                         height: max(1, Int((Double(full.height) * ratio).rounded())))
    }
}

/// The stand-in decoder's "bitmap": only its size.
public final class StandInBitmap: Sendable {
    public let pixelSize: PixelSize
    public init(pixelSize: PixelSize) { self.pixelSize = pixelSize }
}

/// Why the stand-in decoder refused bytes, in words.
public enum StandInDecoderError: Error, CustomStringConvertible {
    case notAnImage(Int)

    public var description: String {
        switch self {
        case .notAnImage: return "the bytes start with neither a PNG nor a JPEG header"
        }
    }
}

/// Holds the stand-in decoder's decodes until the test opens it, and says how many wait.
public final class DecoderGate: @unchecked Sendable {
    private let condition = NSCondition()
    private var isOpen = false
    private var arrived = 0

    public init() {}

    /// Lets every held decode (and every later one) go.
    public func open() {
        condition.withLock {
            isOpen = true
            condition.broadcast()
        }
    }

    /// How many decodes have reached the gate so far (held or let through).
    public var arrivals: Int { condition.withLock { arrived } }

    /// Blocks the decoding thread until the gate is open.
    func pass() {
        condition.withLock {
            arrived += 1
            while !isOpen { condition.wait() }
        }
    }
}
