import WarmCache
/// The coverage mask of a rectangle with rounded corners, used as an alpha channel.
///
/// Each pixel's value is how much of it lies inside the shape (0 outside, 255 inside),
/// estimated from the distance between the pixel centre and the corner's circle: pixels the
/// edge passes through get partial coverage, so curves are anti-aliased.
enum RoundedCornerMask {
    /// Row-major 8-bit coverage for a `size` image whose corners have `radius` pixels
    /// (clamped to half the shorter side).
    static func coverage(size: PixelSize, radius: Double) -> [UInt8] {
        let width = size.width
        let height = size.height
        var mask = [UInt8](repeating: 255, count: width * height)
        let r = min(radius, Double(min(width, height)) / 2)
        guard r > 0 else { return mask }
        let span = Int(r.rounded(.up))
        for y in 0..<min(span, height) {
            for x in 0..<min(span, width) {
                let value = cornerCoverage(dx: r - (Double(x) + 0.5), dy: r - (Double(y) + 0.5), radius: r)
                // The four corners are mirror images of the top-left one.
                mask[y * width + x] = value
                mask[y * width + (width - 1 - x)] = value
                mask[(height - 1 - y) * width + x] = value
                mask[(height - 1 - y) * width + (width - 1 - x)] = value
            }
        }
        return mask
    }

    /// Coverage of a pixel whose centre is `(dx, dy)` from the corner circle's centre, towards
    /// the corner. Pixels not beyond the centre on both axes are inside the straight edges.
    private static func cornerCoverage(dx: Double, dy: Double, radius: Double) -> UInt8 {
        guard dx > 0, dy > 0 else { return 255 }
        let distance = (dx * dx + dy * dy).squareRoot()
        let inside = min(1, max(0, radius - distance + 0.5))
        return UInt8((inside * 255).rounded())
    }
}
