import CVipsShim
import Foundation
import WarmCache

/// Finds the lowest encoder quality whose encoding reaches a SSIMULACRA2 target, for one
/// variant's pixels in one format.
///
/// Each step encodes the pixels at a quality, decodes the result and scores it against the
/// unencoded pixels (``SSIMULACRA2Reference``, prepared once per variant and shared by its
/// formats). Scores rise with quality, almost always monotonically, so the search brackets the
/// target between a failing and a passing quality and interpolates between them:
///
/// 1. Start from a hint: what a search of the source's probe (the source at one fixed size,
///    whatever the manifest asks for) found in this format, else ``initialGuess(_:target:size:)``.
///    Both depend on the source, the settings and the target only, never on the other variants.
/// 2. Step towards the target by the estimated score-per-quality slope, then interpolate
///    between the closest failing and passing qualities.
/// 3. Stop when the two are adjacent, or when a passing score lies within
///    ``closeEnough`` of the target (a lower quality could save at most a few bytes; after two
///    encodes, within ``closeEnoughAfterTwo``). A search that starts from the probe stops as its
///    ``SearchSpeed`` says: sooner, and after fewer encodes, below `smallest`.
///
/// Every trial is a final encode (with the variant's real settings): the passing one kept is
/// the variant's file. (Cheaper trial encodes, such as JPEG without Huffman optimisation, would
/// need one more encode at the end; with two trials on average that costs more than it saves.)
/// Lossy WebP trials share one conversion to YUV (``WebPTrials``), which with sharp RGB-to-YUV
/// costs about as much as an encode; JPEG trials go to libjpeg directly (``JPEGTrials``).
///
/// Deterministic: the same pixels, settings and hint always take the same steps.
struct QualitySearch {
    /// A finished search.
    struct Outcome {
        var data: Data
        var quality: Int
        var score: Double
        /// Score points per quality step between the closest failing and passing qualities, when
        /// the search found both: a probe's starts the variants' searches.
        var slope: Double?
    }

    /// Scores within this many points above the target end the search.
    static let closeEnough = 2.0
    /// The same, once two encodes have been made.
    static let closeEnoughAfterTwo = 2.5
    /// How far above the target a step aims, so that the next encode is likely to pass close to it.
    static let aimAbove = 0.4
    /// How much smaller a file gets per score point given up, roughly, near typical targets
    /// (what pruning a losing candidate estimates with).
    static let bytesPerPoint = 0.06
    /// Encodes a search makes at most before it keeps its best passing one.
    static let maximumTrials = 7

    let reference: SSIMULACRA2Reference
    /// The 8-bit pixels the reference was prepared from (lossy WebP trials start from them).
    let scoring: SSIMULACRA2Image
    let target: Double
    /// The settings of the final encode; their quality is what the search sets.
    let settings: EncoderSettings
    /// Whether the image carries alpha (scored composited on dark and light backgrounds).
    let hasAlpha: Bool

    /// Where a search starts: the quality (and score per quality step) a search of the same
    /// source's probe found in the same format and settings.
    struct Hint {
        var quality: Int
        /// How far above the target that quality scored.
        var margin: Double
        /// Score points per quality step near the target, when that search measured it.
        var slope: Double?
        /// The size of the image that search encoded.
        var size: PixelSize
        /// The bytes of the file it kept (what candidate formats are compared by).
        var bytes: Int
    }

    /// Searches `image`, starting at `hint`. With `bytesToBeat`, gives up (returns `nil`) as
    /// soon as the target needs at least that many bytes: a failing encode that is already that
    /// large (a higher quality is larger still), or a passing one so large that the quality just
    /// above the target cannot be smaller (estimated from how far above the target it scored).
    func run(_ image: VipsImage, hint: Hint?, bytesToBeat: Int? = nil) throws(VipsCallError) -> Outcome? {
        let range = EncoderTable.row(settings.format).quality?.range ?? 1...100
        var passing: (quality: Int, score: Double, data: Data)?
        var failing: (quality: Int, score: Double, data: Data)?
        var encodes = 0
        var previous: (quality: Int, score: Double)?
        var slope = hint?.slope ?? Self.slope(settings.format)
        // From the probe's result: what would have just reached the target there, more for a
        // larger image, which scores lower at the same setting, and the speed's aim above it.
        let start = hint.map {
            let bias = Self.sizeBias(settings.format, from: $0.size, to: image.size)
            let aim = settings.speed.firstAim
            return Int((Double($0.quality) - ($0.margin - aim) / slope + bias).rounded(.up))
        }
            ?? Self.initialGuess(settings.format, target: target, size: image.size)
        var quality = min(range.upperBound, max(range.lowerBound, start))
        // A search that starts from the probe's prediction stops as its speed says; one without
        // (a probe, a small variant) searches in full: its start is only a guess.
        let predicted = hint != nil
        let maximumTrials = predicted ? settings.speed.maximumTrials : Self.maximumTrials
        let closeEnough = predicted ? settings.speed.closeEnough : Self.closeEnough
        let webp = WebPTrials.applies(to: settings)
            ? try WebPTrials(scoring, settings: settings) : nil
        let jpeg = JPEGTrials.applies(to: settings, image: image)
        let aim = target + Self.aimAbove
        while encodes < maximumTrials {
            let trial = if let webp {
                try webp.encode(quality: quality)
            } else if jpeg {
                try JPEGTrials.encode(scoring, settings: settings, quality: quality)
            } else {
                try encode(image, quality: quality)
            }
            encodes += 1
            let score = try self.score(trial)
            if score >= target {
                if passing == nil || quality < passing!.quality { passing = (quality, score, trial) }
                // Close enough: a lower quality would save little. After a second encode the
                // search settles for a little more margin rather than make a third.
                let margin = score - target
                if margin < closeEnough || (encodes >= 2 && margin < Self.closeEnoughAfterTwo) { break }
                if let bytesToBeat, Double(trial.count) * max(0.5, 1 - Self.bytesPerPoint * margin) > Double(bytesToBeat) {
                    return nil
                }
            } else {
                if let bytesToBeat, trial.count >= bytesToBeat { return nil }
                if failing == nil || quality > failing!.quality { failing = (quality, score, trial) }
                if quality >= range.upperBound { break }
            }
            // Two encodes on the same side measure the local slope too (it varies with size).
            if let previous, previous.quality != quality {
                slope = min(3, max(0.1, (score - previous.score) / Double(quality - previous.quality)))
            }
            previous = (quality, score)
            // The next quality to try, strictly between what is known to fail and to pass.
            let low = failing.map { $0.quality + 1 } ?? range.lowerBound
            let high = passing.map { $0.quality - 1 } ?? range.upperBound
            guard low <= high else { break }
            let next: Double
            switch (failing, passing) {
            case let (fail?, pass?):
                slope = max(0.05, (pass.score - fail.score) / Double(pass.quality - fail.quality))
                next = Double(fail.quality) + (aim - fail.score) / slope
            case let (nil, pass?):
                next = Double(pass.quality) - (pass.score - aim) / slope
            case let (fail?, nil):
                next = Double(fail.quality) + (aim - fail.score) / slope
            case (nil, nil):
                next = Double(quality)
            }
            quality = min(high, max(low, Int(next.rounded(.up))))
        }
        let lastSlope = failing != nil && passing != nil ? slope : nil
        if let found = passing {
            return Outcome(data: found.data, quality: found.quality, score: found.score, slope: lastSlope)
        }
        // Even the best setting tried misses the target: keep the highest quality tried (the
        // search stops there only at the format's best setting, or out of trials).
        let best = failing!
        return Outcome(data: best.data, quality: best.quality, score: best.score, slope: nil)
    }

    private func encode(_ image: VipsImage, quality: Int) throws(VipsCallError) -> Data {
        var settings = self.settings
        settings.quality = quality
        return try Encoder.encode(image, settings: settings)
    }

    /// The encoding's score against the reference.
    private func score(_ data: Data) throws(VipsCallError) -> Double {
        let decoded = try DecodedPixels(data, bands: hasAlpha ? 4 : 3, format: settings.format)
        return reference.score(decoded.image)
    }

    /// Where a search starts without a hint: the quality that reaches `target` on a typical
    /// photo, from each encoder's measured score-per-quality curve (`docs/imaging.md`). Small
    /// images need more: the metric sees every pixel of a thumbnail.
    static func initialGuess(_ format: ImageFormat, target: Double, size: PixelSize) -> Int {
        let (quality, score): (Double, Double) = switch format {
        case .jpeg: (85, 82)
        case .webp: (89, 82)
        case .avif: (60, 82)
        case .heic: (72, 82)
        case .jxl: (82, 82)
        default: (80, 80)
        }
        let side = min(size.width, size.height)
        let small: Double = side < 100 ? 10 : 0
        return Int((quality + small + (target - score) / slope(format)).rounded())
    }

    /// Quality steps a search starts above what the same photo's probe needed: a larger image of
    /// a photo shows more of its fine detail, so it needs a higher setting for the same score. Per
    /// doubling of the side, fitted on photos from 320 to 1170 px against a 256 px probe (KDE's
    /// wallpapers, `docs/performance.md`, "Search speeds"): AVIF about 4 steps, WebP 1.5, JPEG
    /// none beyond a step.
    static func sizeBias(_ format: ImageFormat, from probe: PixelSize, to size: PixelSize) -> Double {
        let doublings = log2(Double(size.area) / Double(max(1, probe.area))) / 2
        switch format {
        case .avif: return 4 * doublings
        case .webp: return 0.5 + 1.3 * doublings
        case .jpeg: return 1.5
        default: return doublings > 0 ? 1 : 0
        }
    }

    /// Score points gained per quality step near typical targets (measured on photos at
    /// 256–1024 px; `docs/imaging.md`).
    static func slope(_ format: ImageFormat) -> Double {
        switch format {
        case .webp: 1.1
        case .jpeg: 0.6
        case .avif: 0.45
        default: 0.7
        }
    }
}

/// Encoded bytes decoded back to 8-bit sRGB pixels, for scoring.
struct DecodedPixels {
    let image: SSIMULACRA2Image

    /// Decodes `data`, in `format` when known. WebP and (opaque) JPEG are decoded by libwebp and
    /// libjpeg directly, without a libvips pipeline: the same pixels, in a third of the time.
    init(_ data: Data, bands: Int, format: ImageFormat? = nil) throws(VipsCallError) {
        var width: Int32 = 0
        var height: Int32 = 0
        var length = 0
        let pixels = data.withUnsafeBytes { buffer in
            switch format {
            case .webp:
                wc_webp_decode8(buffer.baseAddress, buffer.count, Int32(bands), &width, &height, &length)
            case .jpeg where bands == 3 && JPEGTrials.decodesAsLibvips:
                wc_jpeg_decode8(buffer.baseAddress, buffer.count, &width, &height, &length)
            default:
                wc_decode_pixels8(buffer.baseAddress, buffer.count, Int32(bands), &width, &height, &length)
            }
        }
        guard let pixels else { throw VipsCallError.take("decode") }
        defer { wc_free(pixels) }
        image = SSIMULACRA2Image(width: Int(width), height: Int(height), channels: bands,
                                 pixels: Array(UnsafeBufferPointer(start: pixels, count: length)))
    }
}

extension VipsImage {
    /// The pixels as 8-bit sRGB with `bands` bands (3 or 4), for scoring.
    func scoringPixels(bands: Int) throws(VipsCallError) -> SSIMULACRA2Image {
        var length = 0
        guard let buffer = wc_write_pixels8(pointer, Int32(bands), &length) else { throw VipsCallError.take("write") }
        defer { wc_free(buffer) }
        let size = self.size
        return SSIMULACRA2Image(width: size.width, height: size.height, channels: bands,
                                pixels: Array(UnsafeBufferPointer(start: buffer, count: length)))
    }
}
