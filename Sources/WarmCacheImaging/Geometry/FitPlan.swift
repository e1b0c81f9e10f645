import WarmCache
/// How one variant is cut from an upright source: resample the whole source to ``scaled``,
/// then finish (crop, smart-crop or pad) to ``output``.
///
/// Plans are pure values computed by ``FitGeometry``; the renderer only executes them, so
/// every size rule lives (and is unit-tested) in one place.
public struct FitPlan: Hashable, Sendable {
    /// The size the whole source is resampled to.
    public var scaled: PixelSize
    /// What happens after resampling.
    public var finish: Finish

    public init(scaled: PixelSize, finish: Finish) {
        self.scaled = scaled
        self.finish = finish
    }

    /// The step after resampling.
    public enum Finish: Hashable, Sendable {
        /// The resampled image is the output (`inside`, `fill`, or a cover/contain that fits exactly).
        case none
        /// Keep this rectangle of the resampled image (`cover` with a compass gravity).
        case crop(PixelRect)
        /// Let libvips choose the most interesting region of this size (`cover` with `attention`/`entropy`).
        case smartCrop(PixelSize, SmartCropStrategy)
        /// Pad onto a canvas of this size at this origin (`contain`).
        case embed(canvas: PixelSize, origin: PixelPoint)
    }

    /// The size of the finished variant: the pixel size the index records.
    public var output: PixelSize {
        switch finish {
        case .none: return scaled
        case .crop(let rect): return rect.size
        case .smartCrop(let size, _): return size
        case .embed(let canvas, _): return canvas
        }
    }
}

/// libvips' two content-aware crops.
public enum SmartCropStrategy: Hashable, Sendable {
    /// Looks for skin tones, saturated colour and edges (good for photos of people and things).
    case attention
    /// Keeps the region with the most detail (Shannon entropy).
    case entropy
}
