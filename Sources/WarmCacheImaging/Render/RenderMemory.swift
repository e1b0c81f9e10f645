import WarmCache

/// How much memory a render needs at most, estimated from its plan before anything is decoded,
/// so that a warm can keep the renders in flight within its memory limit.
///
/// A render holds, at its peak, the source's decodes (each freed after its last use, counted
/// here all at once), the pixels of every output with a quality target (kept until the searches
/// run, smallest output first), and the working memory of the largest output's encode: its
/// encoder's buffers, and for a search the original's bytes and those of a decoded trial, and
/// SSIMULACRA 2's reference and a score's scratch memory
/// (``SSIMULACRA2Reference/memory(width:height:channels:mode:)``).
///
/// The encoders' figures are bytes per output pixel measured on Linux (libjpeg-turbo, libwebp,
/// libavif with libaom, libheif with x265), an imaging process rendering 2.6, 5.9 and 7.1-megapixel
/// heroes at a fixed quality, its peak resident memory less the idle process's and the decode,
/// rounded up: JPEG 3, WebP 8, AVIF 18–21, HEIC 21 (and x265's own ~12 MB). JPEG XL's is not
/// measured here: its 40 bytes per pixel is set high, so that a JPEG XL render is not undercounted.
/// (`docs/performance.md`, "Memory bounded by the work in flight").
extension RenderPlan {
    /// The estimated peak, in bytes, of rendering this plan, beyond what an idle imaging process holds.
    func peakMemory(source: SourceImageInfo) -> Int {
        let bands = source.hasAlpha ? 4 : 3
        var decodes = 0
        for decode in decodeUses.keys {
            decodes += decode.size.area * bands
        }
        var kept = 0
        var working = 0
        for candidates in Dictionary(grouping: variants, by: \.output).values {
            let first = candidates[0]
            let area = first.recipe.fit.output.area
            let searches = first.spec.qualityTarget != nil || candidates.count > 1
            var needs = candidates.map { RenderMemory.encoding($0.settings.format, pixels: area) }.max() ?? 0
            if searches {
                kept += area * bands
                needs += RenderMemory.search(width: first.recipe.fit.output.width,
                                             height: first.recipe.fit.output.height, hasAlpha: source.hasAlpha)
            }
            working = max(working, needs)
        }
        return RenderMemory.perRender + decodes + kept + working
    }
}

/// The figures ``RenderPlan/peakMemory(source:)`` adds up.
enum RenderMemory {
    /// What any render holds besides pixels: the source's bytes as libvips reads them, operation
    /// objects, the reply's encoded files.
    static let perRender = 8 << 20

    /// An encoder's working memory for an image of `pixels` pixels.
    static func encoding(_ format: ImageFormat, pixels: Int) -> Int {
        switch format {
        case .jpeg, .gif: pixels * 4
        case .png, .webp: pixels * 9
        case .avif: pixels * 24
        case .heic: pixels * 24 + (16 << 20)
        case .jxl: pixels * 40
        }
    }

    /// A quality search's working memory beside its encoder's: the output's pixels as bytes to
    /// score against, a decoded trial, and SSIMULACRA 2's reference and scratch.
    static func search(width: Int, height: Int, hasAlpha: Bool) -> Int {
        let channels = hasAlpha ? 4 : 3
        let scoring = SSIMULACRA2Reference.memory(width: width, height: height, channels: channels)
        return 2 * width * height * channels + scoring.reference + scoring.score
    }
}
