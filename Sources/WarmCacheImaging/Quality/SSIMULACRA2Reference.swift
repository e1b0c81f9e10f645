// An original held for scoring many distorted versions of it (see SSIMULACRA2.swift for the
// reference and its licence).

/// An original image held for scoring many distorted versions of it.
///
/// It holds the original in one of two ways (``Mode``), which give the same scores bit for bit:
/// - **prepared**: everything that depends on the original alone is computed once, its XYB planes
///   at each scale and their blurred means and variances, and a score then processes only the
///   candidate. About 48 bytes per pixel of the original (twice that for an original with a
///   non-opaque alpha channel, which is prepared over two backgrounds): 283 MB for a 3072×1920
///   photo, most of an imaging process's peak memory.
/// - **streamed**: only the original's pixels are kept, and each score computes the original's
///   rows beside the candidate's, in the same bands of four rows, into rings of rows and the next
///   scale's linear planes. The reference holds 3 or 4 bytes per pixel (the pixels), a score's
///   scratch memory grows from about 4 to 8 bytes per pixel, and a score takes about 1.5 times as
///   long as a prepared one, with nothing to prepare (3072×1920: 0.17 s against 0.11 s of CPU,
///   peak memory 152 MB against 350 MB; docs/performance.md).
///
/// By default originals whose prepared planes would take at most ``preparedByteLimit`` are
/// prepared, larger ones streamed: small images, which a warm scores most, keep the faster scores,
/// and a large one never costs more than a few bytes per pixel.
///
/// ```swift
/// let reference = SSIMULACRA2Reference(original)
/// let score = reference.score(candidate)  // 90 is visually lossless
/// ```
///
/// Scoring is thread-safe; concurrent scores use their own scratch memory, and one score's scratch
/// memory is kept for the next.
///
/// Alpha, as the reference tool does it: when the original has an alpha channel, both images are
/// composited over grey 0.1 and over grey 0.9 (sRGB values, before linearising) and the lower of
/// the two scores is returned; otherwise an alpha channel on the distorted image alone is composited
/// over grey 0.5. A fully opaque alpha channel gives the same score as none.
///
/// Images smaller than 8×8 pixels, which the reference tool refuses, are first enlarged (both of
/// them, by the same whole factor, repeating pixels) until both sides reach 8, so that they get a
/// score that reflects how different their pixels are.
package struct SSIMULACRA2Reference: Sendable {
    /// How the original is held between scores.
    package enum Mode: Sendable, Equatable {
        /// Its planes prepared once (about 48 bytes per pixel); scores process only the candidate.
        case prepared
        /// Only its pixels (3 or 4 bytes per pixel); each score recomputes the original's rows.
        case streamed
    }

    package let width: Int
    package let height: Int
    package let mode: Mode
    /// The backgrounds that images with alpha are composited over (sRGB values in 0...1).
    let backgrounds: [Float]
    /// The original as held between scores.
    private let original: Original
    /// How many times tiny images are enlarged before scoring.
    let enlargement: Int
    /// Scratch memory for scoring, kept between scores.
    let workspaces: SSIMULACRA2.WorkspacePool

    private enum Original: Sendable {
        /// Prepared over each background, or once for all when compositing changes nothing (no
        /// alpha channel, or a fully opaque one).
        case prepared([SSIMULACRA2.ReferencePyramid])
        /// The (enlarged) pixels, and whether compositing changes nothing.
        case streamed(SSIMULACRA2Image, opaque: Bool)
    }

    /// The most bytes of prepared planes an original is prepared with when no mode is asked for:
    /// 32 MiB, an original of about 0.7 megapixels (0.35 with a non-opaque alpha channel). Larger
    /// ones are streamed.
    package static let preparedByteLimit = 32 << 20

    /// Holds `image` for scoring, prepared or streamed as `mode` says, or by its size when `mode`
    /// is nil (prepared up to ``preparedByteLimit`` bytes of planes).
    package init(_ image: SSIMULACRA2Image, mode: Mode? = nil) {
        self.init(image, mode: mode, wide: SSIMULACRA2.Wide.available)
    }

    /// As ``init(_:mode:)``, with the eight-lane kernels on or off (``SSIMULACRA2/Wide``).
    init(_ image: SSIMULACRA2Image, mode: Mode?, wide: Bool) {
        width = image.width
        height = image.height
        backgrounds = image.hasAlpha ? [0.1, 0.9] : [0.5]
        enlargement = Self.enlargement(width: image.width, height: image.height)
        let enlarged = image.repeated(by: enlargement)
        let opaque = enlarged.isOpaque
        let geometry = SSIMULACRA2.PlaneGeometry(width: enlarged.width, height: enlarged.height)
        let preparedBytes = Self.preparedBytes(enlarged.width, enlarged.height, backgrounds: opaque ? 1 : 2)
        self.mode = mode ?? (preparedBytes <= Self.preparedByteLimit ? .prepared : .streamed)
        switch self.mode {
        case .prepared:
            let workspace = SSIMULACRA2.Workspace(geometry: geometry, wide: wide)
            let backgrounds = opaque ? [backgrounds[0]] : backgrounds
            original = .prepared(backgrounds.map {
                SSIMULACRA2.ReferencePyramid(enlarged, background: $0, workspace: workspace)
            })
            workspaces = SSIMULACRA2.WorkspacePool(geometry: geometry, streamed: false, wide: wide, spare: workspace)
        case .streamed:
            original = .streamed(enlarged, opaque: opaque)
            workspaces = SSIMULACRA2.WorkspacePool(geometry: geometry, streamed: true, wide: wide)
        }
    }

    /// The SSIMULACRA 2 score of `distorted` against this original: 100 for identical pixels, lower
    /// for stronger distortion (90 is visually lossless, 80 very high quality, 70 high, 50 medium).
    ///
    /// - Precondition: `distorted` has the original's width and height.
    package func score(_ distorted: SSIMULACRA2Image) -> Double {
        precondition(distorted.width == width && distorted.height == height,
                     "the distorted image is \(distorted.width)x\(distorted.height), the original \(width)x\(height)")
        let enlarged = distorted.repeated(by: enlargement)
        return workspaces.withWorkspace { workspace in
            switch original {
            case let .prepared(pyramids):
                // When neither image changes with the background, one evaluation stands for all of them.
                let evaluations = pyramids.count == 1 && enlarged.isOpaque ? 1 : backgrounds.count
                return (0..<evaluations).map { index in
                    let pyramid = pyramids[min(index, pyramids.count - 1)]
                    return SSIMULACRA2.score(of: pyramid.compare(enlarged, background: backgrounds[index],
                                                                 workspace: workspace))
                }.min()!
            case let .streamed(image, opaque):
                let evaluations = opaque && enlarged.isOpaque ? 1 : backgrounds.count
                let geometries = SSIMULACRA2.PlaneGeometry.scales(width: image.width, height: image.height)
                return (0..<evaluations).map { index in
                    let originalBackground = backgrounds[opaque ? 0 : index]
                    let norms = SSIMULACRA2.compare(enlarged, background: backgrounds[index], workspace: workspace) {
                        SSIMULACRA2.OriginalStage(image, background: originalBackground, scale: $0, of: geometries,
                                                  into: .rings, workspace)
                    }
                    return SSIMULACRA2.score(of: norms)
                }.min()!
            }
        }
    }

    // MARK: Memory

    /// The memory a reference for a `width` × `height` image of `channels` (3 or 4) holds, and the
    /// scratch memory each score in progress needs, in bytes, with the mode chosen as
    /// ``init(_:mode:)`` would (or `mode`).
    ///
    /// An image with four channels is counted as having a non-opaque alpha channel (two
    /// backgrounds), the most it can take. Per pixel of the original:
    /// - prepared: 48 bytes of planes (96 with alpha); a score's scratch memory 3.75 bytes (the
    ///   next scales' linear planes) plus about 290 rows of floats: 4.3 bytes at 3072×1920;
    /// - streamed: the pixels, 3 or 4 bytes; a score's scratch memory 7.5 bytes plus about 480
    ///   rows: 8.5 bytes at 3072×1920.
    ///
    /// One score's scratch memory stays with the reference for the next score.
    package static func memory(width: Int, height: Int, channels: Int, mode: Mode? = nil)
        -> (mode: Mode, reference: Int, score: Int) {
        let factor = enlargement(width: width, height: height)
        let width = width * factor, height = height * factor
        let prepared = preparedBytes(width, height, backgrounds: channels == 4 ? 2 : 1)
        let mode = mode ?? (prepared <= preparedByteLimit ? .prepared : .streamed)
        let geometry = SSIMULACRA2.PlaneGeometry(width: width, height: height)
        let workspace = SSIMULACRA2.Workspace.byteCount(geometry, streamed: mode == .streamed)
        return (mode, mode == .prepared ? prepared : width * height * channels, workspace)
    }

    /// The bytes of an original's prepared planes, for one background or two.
    private static func preparedBytes(_ width: Int, _ height: Int, backgrounds: Int) -> Int {
        backgrounds * SSIMULACRA2.ReferencePyramid.floatCount(width: width, height: height)
            * MemoryLayout<Float>.size
    }

    /// How many times an image is enlarged so that both sides reach 8 pixels.
    private static func enlargement(width: Int, height: Int) -> Int {
        let shortest = min(width, height)
        return (SSIMULACRA2.minimumSide + shortest - 1) / shortest
    }
}
