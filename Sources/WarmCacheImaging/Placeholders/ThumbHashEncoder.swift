import Foundation
import WarmCache

/// The ThumbHash encoder (the format is described on ``ThumbHash``, in the runtime module, which
/// also holds the decoder that apps use).
extension ThumbHash {
    /// The largest width or height accepted by ``encode(width:height:rgba:)``.
    public static let maxSide = 100

    /// Encodes RGBA pixels (not premultiplied, row by row), at most 100x100.
    public static func encode(width: Int, height: Int, rgba: [UInt8]) -> Data {
        precondition(width > 0 && height > 0 && width <= maxSide && height <= maxSide, "at most 100x100")
        precondition(rgba.count == width * height * 4, "pixels must match the size")
        let pixelCount = width * height

        var average = (r: 0.0, g: 0.0, b: 0.0, a: 0.0)
        for index in 0..<pixelCount {
            let alpha = Double(rgba[index * 4 + 3]) / 255
            average.r += alpha / 255 * Double(rgba[index * 4])
            average.g += alpha / 255 * Double(rgba[index * 4 + 1])
            average.b += alpha / 255 * Double(rgba[index * 4 + 2])
            average.a += alpha
        }
        if average.a > 0 {
            average = (average.r / average.a, average.g / average.a, average.b / average.a, average.a)
        }

        let hasAlpha = average.a < Double(pixelCount)
        let luminanceLimit = hasAlpha ? 5 : 7
        let longest = Double(max(width, height))
        let lx = max(1, Int((Double(luminanceLimit * width) / longest).rounded()))
        let ly = max(1, Int((Double(luminanceLimit * height) / longest).rounded()))

        var l = [Double](), p = [Double](), q = [Double](), a = [Double]()
        l.reserveCapacity(pixelCount)
        p.reserveCapacity(pixelCount)
        q.reserveCapacity(pixelCount)
        a.reserveCapacity(pixelCount)
        for index in 0..<pixelCount {
            let alpha = Double(rgba[index * 4 + 3]) / 255
            let r = average.r * (1 - alpha) + alpha / 255 * Double(rgba[index * 4])
            let g = average.g * (1 - alpha) + alpha / 255 * Double(rgba[index * 4 + 1])
            let b = average.b * (1 - alpha) + alpha / 255 * Double(rgba[index * 4 + 2])
            l.append((r + g + b) / 3)
            p.append((r + g) / 2 - b)
            q.append(r - g)
            a.append(alpha)
        }

        let transform = ChannelTransform(width: width, height: height)
        let lChannel = transform.encode(l, nx: max(3, lx), ny: max(3, ly))
        let pChannel = transform.encode(p, nx: 3, ny: 3)
        let qChannel = transform.encode(q, nx: 3, ny: 3)
        let aChannel = hasAlpha ? transform.encode(a, nx: 5, ny: 5) : nil

        let isLandscape = width > height
        let header24 = quantise(63 * lChannel.dc) | quantise(31.5 + 31.5 * pChannel.dc) << 6
            | quantise(31.5 + 31.5 * qChannel.dc) << 12 | quantise(31 * lChannel.scale) << 18 | (hasAlpha ? 1 << 23 : 0)
        let header16 = (isLandscape ? ly : lx) | quantise(63 * pChannel.scale) << 3 | quantise(63 * qChannel.scale) << 9
            | (isLandscape ? 1 << 15 : 0)
        var hash: [UInt8] = [UInt8(header24 & 255), UInt8(header24 >> 8 & 255), UInt8(header24 >> 16),
                             UInt8(header16 & 255), UInt8(header16 >> 8)]
        if let aChannel {
            hash.append(UInt8(quantise(15 * aChannel.dc) | quantise(15 * aChannel.scale) << 4))
        }
        let nibbles = (lChannel.ac + pChannel.ac + qChannel.ac + (aChannel?.ac ?? [])).map { quantise(15 * $0) }
        for (index, nibble) in nibbles.enumerated() {
            if index & 1 == 0 { hash.append(0) }
            hash[hash.count - 1] |= UInt8(nibble << ((index & 1) * 4))
        }
        return Data(hash)
    }

    /// Rounds a non-negative value to an integer (halves up, as the reference does).
    private static func quantise(_ value: Double) -> Int {
        Int(value.rounded())
    }
}

/// The cosine transform of one channel over a triangle of components: `(cx, cy)` with
/// `cx * ny < nx * (ny - cy)`, ordered by row then column, DC first.
///
/// Separable: each row is first reduced to its `nx` column sums (`nx × width × height`
/// multiplications), then each component sums those down the rows, instead of every component
/// visiting every pixel; the cosines are computed once per transform, not once per component.
struct ChannelTransform {
    let width: Int
    let height: Int
    /// `cos(π / width · cx · (x + 0.5))` at `cx * width + x`, for `cx` below ``maxComponents``.
    private let columnCosines: [Double]
    /// `cos(π / height · cy · (y + 0.5))` at `cy * height + y`.
    private let rowCosines: [Double]
    /// ThumbHash uses at most 7 components along a side (luminance of an opaque image).
    static let maxComponents = 7

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        columnCosines = Self.cosines(count: width)
        rowCosines = Self.cosines(count: height)
    }

    private static func cosines(count: Int) -> [Double] {
        (0..<maxComponents).flatMap { component in
            (0..<count).map { cos(Double.pi / Double(count) * Double(component) * (Double($0) + 0.5)) }
        }
    }

    /// The DC term, the AC terms normalised to 0–1 (0.5 is zero), and their scale (the largest
    /// AC magnitude; 0 leaves the terms unnormalised).
    func encode(_ channel: [Double], nx: Int, ny: Int) -> (dc: Double, ac: [Double], scale: Double) {
        precondition(nx <= Self.maxComponents && ny <= Self.maxComponents)
        // rowSums[cx * height + y] = Σx channel[x, y] · cos_cx(x)
        var rowSums = [Double](repeating: 0, count: nx * height)
        channel.withUnsafeBufferPointer { pixels in
            columnCosines.withUnsafeBufferPointer { columns in
                for y in 0..<height {
                    let row = y * width
                    for cx in 0..<nx {
                        let cosines = cx * width
                        var sum = 0.0
                        for x in 0..<width {
                            sum += pixels[row + x] * columns[cosines + x]
                        }
                        rowSums[cx * height + y] = sum
                    }
                }
            }
        }
        var dc = 0.0
        var ac: [Double] = []
        var scale = 0.0
        let pixelCount = Double(width * height)
        for cy in 0..<ny {
            var cx = 0
            while cx * ny < nx * (ny - cy) {
                var sum = 0.0
                for y in 0..<height {
                    sum += rowSums[cx * height + y] * rowCosines[cy * height + y]
                }
                let factor = sum / pixelCount
                if cx > 0 || cy > 0 {
                    ac.append(factor)
                    scale = max(scale, abs(factor))
                } else {
                    dc = factor
                }
                cx += 1
            }
        }
        if scale > 0 {
            ac = ac.map { 0.5 + 0.5 / scale * $0 }
        }
        return (dc, ac, scale)
    }
}
