import Foundation

/// ThumbHash (evanw/thumbhash): a tiny DCT of an image in a luminance / chroma / alpha space,
/// packed into about 25 bytes that also record the aspect ratio.
///
/// The image (at most 100x100) is composited over its own average colour and converted to
/// L = (r + g + b) / 3, P = (r + g) / 2 - b, Q = r - g, A = alpha. Each channel keeps a
/// triangle of low-frequency cosine components: L up to 7 per axis (5 with alpha, scaled to
/// the aspect ratio), P and Q 3x3, A 5x5. Each channel stores its DC term and the scale of its
/// largest AC term in a header; AC terms are normalised to 0–1 and stored as 4-bit nibbles.
///
/// Header bits (little-endian): 24 bits = L dc (6), P dc (6), Q dc (6), L scale (5), has-alpha
/// (1); 16 bits = L component count on the short side (3), P scale (6), Q scale (6),
/// is-landscape (1); with alpha one more byte = A dc (4), A scale (4).
///
/// This runtime module decodes (``decode(_:width:height:)``); the builder's imaging module adds
/// the encoder to this same type, so what a bundle stores and what an app paints agree.
public enum ThumbHash {
    /// The fields of a ThumbHash header.
    struct Header {
        var lDC, pDC, qDC, lScale, pScale, qScale: Double
        var aDC = 1.0, aScale = 1.0
        var hasAlpha: Bool
        var isLandscape: Bool
        /// Luminance components along x and y.
        var lx: Int, ly: Int
        /// Width over height of the original image, approximately.
        var aspectRatio: Double

        init?(_ hash: [UInt8]) {
            guard hash.count >= 5 else { return nil }
            let header24 = Int(hash[0]) | Int(hash[1]) << 8 | Int(hash[2]) << 16
            let header16 = Int(hash[3]) | Int(hash[4]) << 8
            lDC = Double(header24 & 63) / 63
            pDC = Double(header24 >> 6 & 63) / 31.5 - 1
            qDC = Double(header24 >> 12 & 63) / 31.5 - 1
            lScale = Double(header24 >> 18 & 31) / 31
            hasAlpha = header24 >> 23 != 0
            pScale = Double(header16 >> 3 & 63) / 63
            qScale = Double(header16 >> 9 & 63) / 63
            isLandscape = header16 >> 15 != 0
            let longSide = hasAlpha ? 5 : 7
            let shortSide = header16 & 7
            guard shortSide > 0 else { return nil }
            lx = max(3, isLandscape ? longSide : shortSide)
            ly = max(3, isLandscape ? shortSide : longSide)
            if hasAlpha {
                guard hash.count >= 6 else { return nil }
                aDC = Double(hash[5] & 15) / 15
                aScale = Double(hash[5] >> 4) / 15
            }
            aspectRatio = Double(isLandscape ? longSide : shortSide) / Double(isLandscape ? shortSide : longSide)
        }
    }

    /// The average colour as 0–1 RGBA (not premultiplied), or `nil` for a malformed hash.
    public static func averageRGBA(of hash: Data) -> (red: Double, green: Double, blue: Double, alpha: Double)? {
        guard let header = Header([UInt8](hash)) else { return nil }
        let rgb = rgb(l: header.lDC, p: header.pDC, q: header.qDC)
        return (min(1, max(0, rgb.r)), min(1, max(0, rgb.g)), min(1, max(0, rgb.b)), header.aDC)
    }

    /// The average colour in 8 bits, or `nil` for a malformed hash.
    public static func averageColor(of hash: Data) -> RGBAColor? {
        guard let average = averageRGBA(of: hash) else { return nil }
        func byte(_ value: Double) -> UInt8 { UInt8((value * 255).rounded()) }
        return RGBAColor(red: byte(average.red), green: byte(average.green), blue: byte(average.blue),
                         alpha: byte(average.alpha))
    }

    /// The original image's approximate aspect ratio (width / height).
    public static func aspectRatio(of hash: Data) -> Double? {
        Header([UInt8](hash))?.aspectRatio
    }

    /// Renders a hash at the reference decoder's size: at most 32x32 with the original's aspect
    /// ratio. `nil` if the hash is malformed.
    public static func decode(_ hash: Data) -> PlaceholderPixels? {
        guard let ratio = aspectRatio(of: hash) else { return nil }
        let width = ratio > 1 ? 32 : max(1, Int((32 * ratio).rounded()))
        let height = ratio > 1 ? max(1, Int((32 / ratio).rounded())) : 32
        return decode(hash, width: width, height: height)
    }

    /// Renders a hash to `width x height` RGBA8 pixels (not premultiplied), stretching it if the
    /// size's aspect ratio differs from ``aspectRatio(of:)``. `nil` if the hash is malformed or
    /// the size is not positive.
    public static func decode(_ hash: Data, width: Int, height: Int) -> PlaceholderPixels? {
        let bytes = [UInt8](hash)
        guard width > 0, height > 0, let header = Header(bytes) else { return nil }
        var reader = NibbleReader(bytes: bytes, start: header.hasAlpha ? 6 : 5)
        // Chroma is boosted by 1.25 to make up for quantisation, as the reference does.
        guard let lAC = reader.read(nx: header.lx, ny: header.ly, scale: header.lScale),
              let pAC = reader.read(nx: 3, ny: 3, scale: header.pScale * 1.25),
              let qAC = reader.read(nx: 3, ny: 3, scale: header.qScale * 1.25) else { return nil }
        var aAC: [Double] = []
        if header.hasAlpha {
            guard let alpha = reader.read(nx: 5, ny: 5, scale: header.aScale) else { return nil }
            aAC = alpha
        }
        // Cosine tables per column and per row (7 components at most on either axis).
        let columns = (0..<width).map { x in
            (0..<7).map { cos(Double.pi / Double(width) * (Double(x) + 0.5) * Double($0)) }
        }
        let rows = (0..<height).map { y in
            (0..<7).map { cos(Double.pi / Double(height) * (Double(y) + 0.5) * Double($0)) }
        }
        var rgba = [UInt8](repeating: 0, count: width * height * 4)
        var offset = 0
        for y in 0..<height {
            let fy = rows[y]
            for x in 0..<width {
                let fx = columns[x]
                let l = header.lDC + sum(lAC, nx: header.lx, ny: header.ly, fx: fx, fy: fy)
                let p = header.pDC + sum(pAC, nx: 3, ny: 3, fx: fx, fy: fy)
                let q = header.qDC + sum(qAC, nx: 3, ny: 3, fx: fx, fy: fy)
                let a = header.hasAlpha ? header.aDC + sum(aAC, nx: 5, ny: 5, fx: fx, fy: fy) : 1
                let colour = rgb(l: l, p: p, q: q)
                // Truncating conversion, as the reference decoders do.
                rgba[offset] = UInt8(min(1, max(0, colour.r)) * 255)
                rgba[offset + 1] = UInt8(min(1, max(0, colour.g)) * 255)
                rgba[offset + 2] = UInt8(min(1, max(0, colour.b)) * 255)
                rgba[offset + 3] = UInt8(min(1, max(0, a)) * 255)
                offset += 4
            }
        }
        return PlaceholderPixels(width: width, height: height, rgba: rgba)
    }

    /// LPQ back to RGB.
    private static func rgb(l: Double, p: Double, q: Double) -> (r: Double, g: Double, b: Double) {
        let b = l - 2.0 / 3.0 * p
        let r = (3 * l - b + q) / 2
        return (r, r - q, b)
    }

    /// The AC part of one channel at a pixel: the sum over the triangle without the DC term.
    private static func sum(_ ac: [Double], nx: Int, ny: Int, fx: [Double], fy: [Double]) -> Double {
        var total = 0.0
        var index = 0
        for cy in 0..<ny {
            var cx = cy > 0 ? 0 : 1
            while cx * ny < nx * (ny - cy) {
                total += ac[index] * fx[cx] * (fy[cy] * 2)
                index += 1
                cx += 1
            }
        }
        return total
    }
}

/// Reads the 4-bit AC terms that follow a ThumbHash header, low nibble first.
private struct NibbleReader {
    let bytes: [UInt8]
    var position: Int

    init(bytes: [UInt8], start: Int) {
        self.bytes = bytes
        self.position = start * 2
    }

    /// One channel's AC terms in -scale...scale, or `nil` if the hash is too short.
    mutating func read(nx: Int, ny: Int, scale: Double) -> [Double]? {
        var values: [Double] = []
        for cy in 0..<ny {
            var cx = cy > 0 ? 0 : 1
            while cx * ny < nx * (ny - cy) {
                guard position / 2 < bytes.count else { return nil }
                let nibble = bytes[position / 2] >> ((position & 1) * 4) & 15
                values.append((Double(nibble) / 7.5 - 1) * scale)
                position += 1
                cx += 1
            }
        }
        return values
    }
}
