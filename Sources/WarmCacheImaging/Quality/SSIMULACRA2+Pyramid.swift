// The colour side of SSIMULACRA 2 and the per-scale pipeline: sRGB to linear light, the 2x2
// pyramid, linear RGB to XYB, and the prepared original (see SSIMULACRA2.swift for the reference
// and its licence).

import CVipsShim
import Foundation

extension SSIMULACRA2 {
    /// The size of the planes of one scale.
    ///
    /// Planes of one scale are stored one after the other, `planeSize` floats apart. Rows are
    /// `stride` floats apart: the width rounded up to a multiple of 4, so that every row is whole
    /// SIMD4 vectors. The padding columns hold zeros in every plane the filters read; zero inputs
    /// filter to zero and score as no error, so the padding never shows in a score.
    struct PlaneGeometry: Sendable, Equatable {
        let width: Int
        let height: Int

        var stride: Int { (width + 3) & ~3 }
        var planeSize: Int { stride * height }
        var pixelCount: Int { width * height }

        /// The next scale: 2x2 blocks, the last row or column repeated when the size is odd.
        var half: PlaneGeometry { PlaneGeometry(width: (width + 1) / 2, height: (height + 1) / 2) }

        /// Every scale the reference computes: the first, then one more for as long as the previous
        /// scale is at least 8x8 (so the last one may be smaller than 8x8), six at most.
        static func scales(width: Int, height: Int) -> [PlaneGeometry] {
            var result = [PlaneGeometry(width: width, height: height)]
            while result.count < SSIMULACRA2.scaleCount, let last = result.last,
                  last.width >= SSIMULACRA2.minimumSide, last.height >= SSIMULACRA2.minimumSide {
                result.append(last.half)
            }
            return result
        }
    }

    /// The original prepared at every scale, for one background.
    ///
    /// Both preparing the original and comparing a distorted image stream each scale in bands of
    /// four rows: convert the rows to XYB (and average them into the next scale), filter them
    /// horizontally into a ring of rows, then filter down the columns each row whose window is
    /// complete. Only the prepared planes and the next scale's linear planes are whole images.
    struct ReferencePyramid: Sendable {
        /// The original's planes at one scale, 9 planes in one buffer: XYB (made positive), then
        /// the blurred XYB planes μ1, then the variances σ1² = blur(x1²) − μ1². Only what the
        /// score reads is computed (``MapsNeeded``): a channel that needs no map has only its XYB
        /// plane, one without the SSIM map has no variances.
        struct Scale: Sendable {
            let geometry: PlaneGeometry
            let planes: PlaneBuffer
        }

        let scales: [Scale]

        /// The floats of the planes prepared for an image of `width` × `height` pixels.
        static func floatCount(width: Int, height: Int) -> Int {
            PlaneGeometry.scales(width: width, height: height).reduce(0) { $0 + 9 * $1.planeSize }
        }

        /// Converts and filters the original; `workspace` must be sized for the image.
        init(_ image: SSIMULACRA2Image, background: Float, workspace: Workspace) {
            let geometries = PlaneGeometry.scales(width: image.width, height: image.height)
            scales = geometries.indices.map { index in
                let geometry = geometries[index]
                let planes = PlaneBuffer(count: 9 * geometry.planeSize)
                let stage = OriginalStage(image, background: background, scale: index, of: geometries,
                                          into: .planes(planes.pointer), workspace)
                stage.reset()
                var row = 1 - RecursiveGaussian.radius
                var top = 0
                while top < geometry.height {
                    let rows = min(4, geometry.height - top)
                    stage.convert(top: top, rows: rows)
                    var statistics: [RecursiveGaussian.Statistic] = []
                    stage.addStatistics(top: top, to: &statistics)
                    RecursiveGaussian.filter(statistics, rows: rows, geometry, workspace)
                    while row < top && row < geometry.height {
                        stage.filterColumns(row: row)
                        row += 1
                    }
                    top += 4
                }
                while row < geometry.height {
                    stage.filterColumns(row: row)
                    row += 1
                }
                return Scale(geometry: geometry, planes: planes)
            }
        }

        /// The error norms of `image` against this original at every scale, `image` being composited
        /// over `background` if it has alpha.
        func compare(_ image: SSIMULACRA2Image, background: Float, workspace: Workspace) -> [ScaleNorms] {
            withExtendedLifetime(scales) {
                SSIMULACRA2.compare(image, background: background, workspace: workspace) { index in
                    OriginalStage(reading: scales[index].planes.pointer, scales[index].geometry, scale: index,
                                  scaleCount: scales.count, workspace)
                }
            }
        }
    }

    /// Four row pointers of a plane (rows past the bottom repeat the last row).
    struct RowQuad {
        let r0, r1, r2, r3: UnsafeMutablePointer<Float>

        init(_ r0: UnsafeMutablePointer<Float>, _ r1: UnsafeMutablePointer<Float>, _ r2: UnsafeMutablePointer<Float>,
             _ r3: UnsafeMutablePointer<Float>) {
            (self.r0, self.r1, self.r2, self.r3) = (r0, r1, r2, r3)
        }

        /// Rows `top` to `top + 3` of a whole plane.
        init(_ plane: UnsafeMutablePointer<Float>, top: Int, _ geometry: PlaneGeometry) {
            let last = geometry.height - 1, stride = geometry.stride
            self.init(plane + top * stride, plane + min(top + 1, last) * stride, plane + min(top + 2, last) * stride,
                      plane + min(top + 3, last) * stride)
        }
    }

    /// The rows of one scale's linear RGB: converted from the image's bytes for the first scale, read
    /// from the planes the previous scale averaged into for the others.
    struct LinearRows {
        let image: SSIMULACRA2Image
        let background: Float
        let geometry: PlaneGeometry
        /// The planes of scales after the first; for the first, four rows of scratch (row y in y % 4).
        let planes: UnsafeMutablePointer<Float>
        let planeSize: Int
        let fromBytes: Bool

        /// The rows of the distorted image, or (`original`) of a streamed original, at `scale`.
        init(_ image: SSIMULACRA2Image, background: Float, scale: Int, _ geometry: PlaneGeometry,
             _ workspace: Workspace, original: Bool = false) {
            self.image = image
            self.background = background
            self.geometry = geometry
            fromBytes = scale == 0
            planes = fromBytes ? workspace.linearRows(original: original) : workspace.linear(scale, original: original)
            planeSize = fromBytes ? 4 * geometry.stride : geometry.planeSize
        }

        /// The R, G, B rows of row `y` (for the first scale, rows must be asked for in order, four at a
        /// time at most).
        func row(_ y: Int) -> (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>) {
            let offset = fromBytes ? (y & 3) * geometry.stride : y * geometry.stride
            let red = planes + offset, green = red + planeSize, blue = green + planeSize
            if fromBytes { LinearRGB.convert(image, row: y, background: background, into: red, green, blue) }
            return (red, green, blue)
        }

        /// Averages 2x2 blocks of the rows just produced into the next scale's planes.
        func halve(rows: Range<Int>, into next: UnsafeMutablePointer<Float>) {
            let target = geometry.half
            var outputRow = rows.lowerBound / 2
            while outputRow < target.height && 2 * outputRow < rows.upperBound {
                let y0 = 2 * outputRow, y1 = min(2 * outputRow + 1, geometry.height - 1)
                let offset0 = fromBytes ? (y0 & 3) * geometry.stride : y0 * geometry.stride
                let offset1 = fromBytes ? (y1 & 3) * geometry.stride : y1 * geometry.stride
                for channel in 0..<3 {
                    let plane = planes + channel * planeSize
                    LinearRGB.halve(plane + offset0, plane + offset1, width: geometry.width,
                                    into: next + channel * target.planeSize + outputRow * target.stride, target)
                }
                outputRow += 1
            }
        }
    }

    /// Linear-light RGB.
    enum LinearRGB {
        /// Row `y` of sRGB bytes to linear R, G, B rows. An image with alpha is first composited over a
        /// grey `background` (an sRGB value in 0...1) as the reference does: on the sRGB-encoded values,
        /// `α·c + (1 − α)·background`. Padding columns are set to zero.
        static func convert(_ image: SSIMULACRA2Image, row y: Int, background: Float,
                            into red: UnsafeMutablePointer<Float>, _ green: UnsafeMutablePointer<Float>,
                            _ blue: UnsafeMutablePointer<Float>) {
            let width = image.width, channels = image.channels, stride = (width + 3) & ~3
            image.pixels.withUnsafeBufferPointer { bytes in
                SRGB.linearTable.withUnsafeBufferPointer { table in
                    let table = table.baseAddress!
                    let source = bytes.baseAddress! + y * width * channels
                    if channels == 3 {
                        for x in 0..<width {
                            red[x] = table[Int(source[3 &* x])]
                            green[x] = table[Int(source[3 &* x &+ 1])]
                            blue[x] = table[Int(source[3 &* x &+ 2])]
                        }
                    } else {
                        for x in 0..<width {
                            let pixel = source + 4 &* x
                            if pixel[3] == 255 {
                                red[x] = table[Int(pixel[0])]
                                green[x] = table[Int(pixel[1])]
                                blue[x] = table[Int(pixel[2])]
                            } else {
                                red[x] = SRGB.linear(blending: pixel[0], alpha: pixel[3], over: background)
                                green[x] = SRGB.linear(blending: pixel[1], alpha: pixel[3], over: background)
                                blue[x] = SRGB.linear(blending: pixel[2], alpha: pixel[3], over: background)
                            }
                        }
                    }
                }
            }
            for x in width..<stride {
                red[x] = 0; green[x] = 0; blue[x] = 0
            }
        }

        /// One row of the next scale: each pixel the mean of a 2x2 block of `row0` and `row1`, the last
        /// column repeated when the width is odd, summed in the reference's order. Padding is zeroed.
        static func halve(_ row0: UnsafeMutablePointer<Float>, _ row1: UnsafeMutablePointer<Float>, width: Int,
                          into output: UnsafeMutablePointer<Float>, _ target: PlaneGeometry) {
            let pairs = width / 2
            for ox in 0..<pairs {
                let x = 2 &* ox
                output[ox] = (row0[x] + row0[x &+ 1] + row1[x] + row1[x &+ 1]) * 0.25
            }
            if pairs < target.width {
                let x = width - 1
                output[pairs] = (row0[x] + row0[x] + row1[x] + row1[x]) * 0.25
            }
            for x in target.width..<target.stride { output[x] = 0 }
        }
    }

    /// The sRGB transfer function (IEC 61966-2-1).
    enum SRGB {
        /// Linear light for each 8-bit value.
        static let linearTable: [Float] = (0..<256).map { Float(linear(Double($0) / 255)) }

        static func linear(_ encoded: Double) -> Double {
            encoded <= 0.04045 ? encoded / 12.92 : pow((encoded + 0.055) / 1.055, 2.4)
        }

        /// Composites an 8-bit value over `background` in sRGB, in floats as the reference does, then
        /// linearises.
        static func linear(blending value: UInt8, alpha: UInt8, over background: Float) -> Float {
            let a = Float(alpha) / 255
            let blended = a * (Float(value) / 255) + (1 - a) * background
            return Float(linear(Double(blended)))
        }
    }

    /// libjxl's XYB, with SSIMULACRA 2's shift into positive values.
    enum XYB {
        // The opsin absorbance matrix, rows summing to 1 (computed in Float, as the reference does).
        static let m00: Float = 0.30, m02: Float = 0.078, m01: Float = 1 - 0.078 - 0.30
        static let m10: Float = 0.23, m12: Float = 0.078, m11: Float = 1 - 0.078 - 0.23
        static let m20: Float = 0.24342268924547819, m21: Float = 0.20476744424496821
        static let m22: Float = 1 - 0.24342268924547819 - 0.20476744424496821
        static let bias: Float = 0.0037930732552754493
        static let biasCubeRoot = Float(cbrt(Double(bias)))

        /// Converts a row of linear R, G, B into a row of X, Y, B made positive (the reference's
        /// `MakePositiveXYB`: X·14 + 0.42, Y + 0.01, B − Y + 0.55), the three rows of the output
        /// `planeSize` apart. Padding columns come out zero.
        static func convert(_ red: UnsafeMutablePointer<Float>, _ green: UnsafeMutablePointer<Float>,
                            _ blue: UnsafeMutablePointer<Float>, into outX: UnsafeMutablePointer<Float>, planeSize: Int,
                            _ geometry: PlaneGeometry, wide: Bool = Wide.available) {
            if wide {
                wc_xyb_convert8(red, green, blue, outX, planeSize, geometry.stride, Wide.xybConstants)
                for x in geometry.width..<geometry.stride {
                    outX[x] = 0; outX[planeSize + x] = 0; outX[2 * planeSize + x] = 0
                }
                return
            }
            let outY = outX + planeSize, outB = outY + planeSize
            let m00 = Self.m00, m01 = Self.m01, m02 = Self.m02, m10 = Self.m10, m11 = Self.m11, m12 = Self.m12
            let m20 = Self.m20, m21 = Self.m21, m22 = Self.m22
            let bias = SIMD4<Float>(repeating: Self.bias), negativeBiasRoot = SIMD4<Float>(repeating: -biasCubeRoot)
            let half = SIMD4<Float>(repeating: 0.5)
            var x = 0
            while x < geometry.stride {
                let r = red.vector(at: x), g = green.vector(at: x), b = blue.vector(at: x)
                let mixed0 = m00 * r + (m01 * g + (m02 * b + bias))
                let mixed1 = m10 * r + (m11 * g + (m12 * b + bias))
                let mixed2 = m20 * r + (m21 * g + (m22 * b + bias))
                let l = CubeRoot.of(mixed0.positivePart) + negativeBiasRoot
                let m = CubeRoot.of(mixed1.positivePart) + negativeBiasRoot
                let s = CubeRoot.of(mixed2.positivePart) + negativeBiasRoot
                let valueX = half * (l - m), valueY = half * (l + m)
                outX.storeVector(valueX * 14 + 0.42, at: x)
                outY.storeVector(valueY + 0.01, at: x)
                outB.storeVector((s - valueY) + 0.55, at: x)
                x &+= 4
            }
            for x in geometry.width..<geometry.stride {
                outX[x] = 0; outY[x] = 0; outB[x] = 0
            }
        }
    }

    /// A vectorised cube root for inputs ≥ 0, accurate to a few units in the last place: an estimate
    /// of x^(-1/3) from the float's bits, refined by Newton's method (which needs no division for the
    /// inverse cube root), then x · (x^(-1/3))².
    enum CubeRoot {
        @inline(__always)
        static func of(_ x: SIMD4<Float>) -> SIMD4<Float> {
            // A magic constant minus a third of the float's bits estimates x^(-1/3) within ~4%, the
            // idea of the well-known fast inverse square root; bits/3 is bits/4 + bits/16 + bits/64 + ...
            // (Adding 1e-12 changes no input in the XYB range, ≥ 0.0038, but keeps the estimate for 0
            // finite, so that the result for 0 is exactly 0.)
            let bits = unsafeBitCast(x + 1e-12, to: SIMD4<UInt32>.self)
            let quarter = bits &>> 2
            var third = quarter &+ (quarter &>> 2)
            third = third &+ (third &>> 4)
            third = third &+ (third &>> 8)
            third = third &+ (third &>> 16)
            var y = unsafeBitCast(0x54A2_FA8C &- third, to: SIMD4<Float>.self)
            let xThird = x * (1 / 3 as Float)
            let fourThirds = SIMD4<Float>(repeating: 4 / 3)
            for _ in 0..<3 {
                let y2 = y * y
                y = fourThirds * y - xThird * (y2 * y2)
            }
            return x * (y * y)
        }
    }
}
