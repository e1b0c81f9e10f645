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
/// 1. Start from a hint: the quality the previous variant of the same source found in this
///    format (sizes of one photo need similar settings), else ``initialGuess(_:target:)``.
/// 2. Step towards the target by the estimated score-per-quality slope, then interpolate
///    between the closest failing and passing qualities.
/// 3. Stop when the two are adjacent, or when a passing score lies within
///    ``closeEnough`` of the target (a lower quality could save at most a few bytes).
///
/// JPEG trial encodes skip Huffman optimisation, which changes the file's size but not its
/// pixels; the quality found is then encoded once more with the real settings. Other formats'
/// trial encodes are final encodes, and the kept one is reused.
///
/// Deterministic: the same pixels, settings and hint always take the same steps.
struct QualitySearch {
    /// A finished search.
    struct Outcome {
        var data: Data
        var quality: Int
        var score: Double
        /// Encodes made, the final one included.
        var encodes: Int
    }

    /// Scores within this many points above the target end the search.
    static let closeEnough = 1.0
    /// Encodes a search makes at most before it keeps its best passing one.
    static let maximumTrials = 7

    let reference: SSIMULACRA2Reference
    let target: Double
    /// The settings of the final encode; their quality is what the search sets.
    let settings: EncoderSettings
    /// Whether the image carries alpha (scored composited on dark and light backgrounds).
    let hasAlpha: Bool

    /// Searches `image`, starting at `hint`. With `bytesToBeat`, gives up (returns `nil`) as
    /// soon as the target provably needs at least that many bytes: a failing encode that is
    /// already that large (a higher quality is larger still).
    func run(_ image: VipsImage, hint: Int?, bytesToBeat: Int? = nil) throws(VipsCallError) -> Outcome? {
        let range = EncoderTable.row(settings.format).quality?.range ?? 1...100
        var passing: (quality: Int, score: Double, data: Data?)?
        var failing: (quality: Int, score: Double)?
        var encodes = 0
        var quality = min(range.upperBound, max(range.lowerBound, hint ?? Self.initialGuess(settings.format,
                                                                                             target: target)))
        let slope = Self.slope(settings.format)
        while encodes < Self.maximumTrials {
            let trial = try encode(image, quality: quality, trial: true)
            encodes += 1
            let score = try self.score(trial)
            if score >= target {
                if passing == nil || quality < passing!.quality {
                    passing = (quality, score, settings.format == .jpeg ? nil : trial)
                }
                if score - target < Self.closeEnough { break }
            } else {
                if let bytesToBeat, trial.count >= bytesToBeat { return nil }
                if failing == nil || quality > failing!.quality { failing = (quality, score) }
                if quality >= range.upperBound { break }
            }
            // The next quality to try, strictly between what is known to fail and to pass.
            let low = failing.map { $0.quality + 1 } ?? range.lowerBound
            let high = passing.map { $0.quality - 1 } ?? range.upperBound
            guard low <= high else { break }
            var next: Double
            switch (failing, passing) {
            case let (fail?, pass?):
                let fraction = (target - fail.score) / max(0.01, pass.score - fail.score)
                next = Double(fail.quality) + fraction * Double(pass.quality - fail.quality)
            case let (nil, pass?):
                next = Double(pass.quality) - max(2, (pass.score - target) / slope)
            case let (fail?, nil):
                next = Double(fail.quality) + max(2, (target - fail.score) / slope)
            case (nil, nil):
                next = Double(quality)
            }
            quality = min(high, max(low, Int(next.rounded(.up))))
        }
        guard let found = passing else {
            // Even the best setting tried misses the target: keep the highest quality.
            let best = failing?.quality ?? range.upperBound
            let data = try encode(image, quality: best, trial: false)
            return Outcome(data: data, quality: best, score: try score(data), encodes: encodes + 1)
        }
        if let data = found.data {
            return Outcome(data: data, quality: found.quality, score: found.score, encodes: encodes)
        }
        let data = try encode(image, quality: found.quality, trial: false)
        return Outcome(data: data, quality: found.quality, score: found.score, encodes: encodes + 1)
    }

    private func encode(_ image: VipsImage, quality: Int, trial: Bool) throws(VipsCallError) -> Data {
        var settings = self.settings
        settings.quality = quality
        settings.trial = trial
        return try Encoder.encode(image, settings: settings)
    }

    /// The encoding's score against the reference.
    private func score(_ data: Data) throws(VipsCallError) -> Double {
        let decoded = try DecodedPixels(data, bands: hasAlpha ? 4 : 3)
        return reference.score(decoded.image)
    }

    /// Where a search starts without a hint: the quality that reaches `target` on a typical
    /// photo, from each encoder's measured score-per-quality curve (`docs/imaging.md`).
    static func initialGuess(_ format: ImageFormat, target: Double) -> Int {
        let (quality, score): (Double, Double) = switch format {
        case .jpeg: (80, 79.6)
        case .webp: (80, 76.8)
        case .avif: (60, 81.2)
        case .heic: (60, 80)
        case .jxl: (80, 80)
        default: (80, 80)
        }
        return Int((quality + (target - score) / slope(format)).rounded())
    }

    /// Score points gained per quality step near typical targets.
    static func slope(_ format: ImageFormat) -> Double {
        switch format {
        case .avif, .heic: 0.8
        default: 0.7
        }
    }
}

/// Encoded bytes decoded back to 8-bit sRGB pixels, for scoring.
struct DecodedPixels {
    let image: SSIMULACRA2Image

    init(_ data: Data, bands: Int) throws(VipsCallError) {
        var width: Int32 = 0
        var height: Int32 = 0
        var length = 0
        let pixels = data.withUnsafeBytes { buffer in
            wc_decode_pixels8(buffer.baseAddress, buffer.count, Int32(bands), &width, &height, &length)
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
