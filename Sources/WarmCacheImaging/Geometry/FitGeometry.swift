import WarmCache

/// The size rules of every fit mode, as pure functions of the source size and the box.
///
/// Pictures in words, for a 400x200 source and a 100x100 box:
/// - `inside`: 100x50, the whole image, one side shorter than the box.
/// - `cover`: scaled to 200x100, then a 100x100 window is kept around the gravity.
/// - `fill`: 100x100, squeezed horizontally.
/// - `contain`: 100x50 centred on a 100x100 canvas, 25 rows of background above and below.
///
/// A box with only a width (or only a height) scales the image to that side whatever the mode;
/// with neither, the source keeps its size.
///
/// Without `allowUpscale` no pixel is ever enlarged. A box larger than the source shrinks
/// uniformly until it fits the source: `inside` gives the source size, `cover` and `fill` give
/// the largest region of the box's aspect that fits in the source, `contain` gives the smallest
/// canvas of the box's aspect that holds the unscaled source.
public enum FitGeometry {
    /// The plan for one variant.
    /// - Parameters:
    ///   - source: the upright source size (after EXIF orientation).
    ///   - box: the box in pixels (points x scale); `nil` sides are unconstrained. Sides must be positive.
    public static func plan(source: PixelSize, box: (width: Int?, height: Int?), fit: FitMode,
                            allowUpscale: Bool) -> FitPlan {
        let sourceWidth = Double(source.width)
        let sourceHeight = Double(source.height)
        guard let boxWidth = box.width, let boxHeight = box.height else {
            let scale = box.width.map { Double($0) / sourceWidth } ?? box.height.map { Double($0) / sourceHeight } ?? 1
            return FitPlan(scaled: source.scaled(by: allowUpscale ? scale : min(scale, 1)), finish: .none)
        }
        let widthRatio = Double(boxWidth) / sourceWidth
        let heightRatio = Double(boxHeight) / sourceHeight
        let target = PixelSize(width: boxWidth, height: boxHeight)

        switch fit {
        case .inside:
            let scale = min(widthRatio, heightRatio)
            let scaled = source.scaled(by: allowUpscale ? scale : min(scale, 1))
            return FitPlan(scaled: clamp(scaled, to: target), finish: .none)

        case .fill:
            let overshoot = max(widthRatio, heightRatio)
            let size = allowUpscale || overshoot <= 1 ? target : clamp(shrink(target, by: overshoot), to: source)
            return FitPlan(scaled: size, finish: .none)

        case .cover(let gravity):
            var scale = max(widthRatio, heightRatio)
            var window = target
            if !allowUpscale, scale > 1 {
                window = clamp(shrink(target, by: scale), to: source)
                scale = 1
            }
            let resampled = source.scaled(by: scale)
            let scaled = PixelSize(width: max(window.width, resampled.width),
                                   height: max(window.height, resampled.height))
            return FitPlan(scaled: scaled, finish: coverFinish(window: window, scaled: scaled, gravity: gravity))

        case .contain:
            var scale = min(widthRatio, heightRatio)
            var canvas = target
            if !allowUpscale, scale > 1 {
                let grown = shrink(target, by: scale)
                canvas = PixelSize(width: max(grown.width, source.width), height: max(grown.height, source.height))
                scale = 1
            }
            let scaled = clamp(source.scaled(by: scale), to: canvas)
            if scaled == canvas { return FitPlan(scaled: scaled, finish: .none) }
            let origin = PixelPoint(x: (canvas.width - scaled.width) / 2, y: (canvas.height - scaled.height) / 2)
            return FitPlan(scaled: scaled, finish: .embed(canvas: canvas, origin: origin))
        }
    }

    /// The plan for a ``VariantSpec`` (its box is in points; pixels = points x scale).
    public static func plan(source: PixelSize, spec: VariantSpec) -> FitPlan {
        let box = spec.pixelBox
        return plan(source: source, box: (box.width, box.height), fit: spec.fit, allowUpscale: spec.allowUpscale)
    }

    private static func coverFinish(window: PixelSize, scaled: PixelSize, gravity: CropGravity) -> FitPlan.Finish {
        if window == scaled { return .none }
        switch gravity {
        case .attention: return .smartCrop(window, .attention)
        case .entropy: return .smartCrop(window, .entropy)
        default:
            let origin = CropPlacement.origin(of: window, in: scaled, gravity: gravity)
            return .crop(PixelRect(x: origin.x, y: origin.y, width: window.width, height: window.height))
        }
    }

    /// `size` divided by `factor` on both sides, rounded.
    private static func shrink(_ size: PixelSize, by factor: Double) -> PixelSize {
        size.scaled(by: 1 / factor)
    }

    private static func clamp(_ size: PixelSize, to limit: PixelSize) -> PixelSize {
        PixelSize(width: min(size.width, limit.width), height: min(size.height, limit.height))
    }
}
