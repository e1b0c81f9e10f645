// The filtering side of SSIMULACRA 2: libjxl's recursive Gaussian and the pooled error maps (see
// SSIMULACRA2.swift for the reference and its licence).

import CVipsShim
import Foundation

extension SSIMULACRA2 {
    /// libjxl's fast Gaussian blur, after Charalampidis, "Recursive Implementation of the Gaussian
    /// Filter Using Truncated Cosine Functions" (IEEE Transactions on Signal Processing, 2016).
    ///
    /// The Gaussian is approximated by a sum of three cosines k = 1, 3, 5 over a window of radius
    /// N = round(3.2795σ + 0.2546); each is a second-order recursive (IIR) filter,
    ///
    ///     y_k[n] = n2_k · (x[n−N−1] + x[n+N−1]) − d1_k · y_k[n−1] − y_k[n−2],    out[n] = Σ_k y_k[n],
    ///
    /// so the cost per pixel doesn't depend on σ. Pixels outside the image count as zero, as in the
    /// reference (blurred values fall off towards the borders, in both images alike). The blur is
    /// separable: rows first, then columns. SSIMULACRA 2 uses σ = 1.5, so N = 5.
    ///
    /// The recursions run in single precision like the reference's. Their poles lie on the unit circle,
    /// so rounding errors don't fade out; they add a little noise to the SSIM term that the clamp at
    /// zero turns into a small bias, in the reference too. That is why scores of near-lossless images
    /// differ by up to a quarter of a point between the reference's own builds (scalar, SSE4, AVX2
    /// with FMA), and why this port agrees with the reference to about that.
    enum RecursiveGaussian {
        static let radius = coefficients.radius

        /// n2_k and d1_k for k = 1, 3, 5, from the paper's equations (33)-(57) for σ = 1.5.
        static let coefficients: (radius: Int, n2: [Float], d1: [Float]) = {
            let sigma = 1.5
            let radius = (3.2795 * sigma + 0.2546).rounded()  // (57)
            let omega = [1.0, 3.0, 5.0].map { $0 * Double.pi / (2 * radius) }
            let p = [1 / tan(0.5 * omega[0]), -1 / tan(0.5 * omega[1]), 1 / tan(0.5 * omega[2])]  // (37)
            let r = [p[0] * p[0] / sin(omega[0]), -p[1] * p[1] / sin(omega[1]), p[2] * p[2] / sin(omega[2])]  // (44)
            let rho = omega.map { exp(-0.5 * sigma * sigma * $0 * $0) / radius }  // (50)
            let d13 = p[0] * r[1] - r[0] * p[1], d35 = p[1] * r[2] - r[1] * p[2], d51 = p[2] * r[0] - r[2] * p[0]
            let zeta15 = d35 / d13, zeta35 = d51 / d13  // (52)
            let matrix = [[p[0], p[1], p[2]], [r[0], r[1], r[2]], [zeta15, zeta35, 1]]  // (56)
            let gamma = [1, radius * radius - sigma * sigma, zeta15 * rho[0] + zeta35 * rho[1] + rho[2]]  // (55)
            let beta = solve(matrix, gamma)  // (53)
            let n2 = (0..<3).map { Float(-beta[$0] * cos(omega[$0] * (radius + 1))) }  // (33)
            let d1 = (0..<3).map { Float(-2 * cos(omega[$0])) }
            return (Int(radius), n2, d1)
        }()

        /// Solves the 3x3 system `matrix · x = vector` by Cramer's rule.
        static func solve(_ matrix: [[Double]], _ vector: [Double]) -> [Double] {
            func determinant(_ a: [[Double]]) -> Double {
                a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
                    + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0])
            }
            let whole = determinant(matrix)
            return (0..<3).map { column in
                var replaced = matrix
                for row in 0..<3 { replaced[row][column] = vector[row] }
                return determinant(replaced) / whole
            }
        }

        /// The coefficients, broadcast to vectors.
        struct Coefficients {
            let n2a = SIMD4<Float>(repeating: RecursiveGaussian.coefficients.n2[0])
            let n2b = SIMD4<Float>(repeating: RecursiveGaussian.coefficients.n2[1])
            let n2c = SIMD4<Float>(repeating: RecursiveGaussian.coefficients.n2[2])
            let d1a = SIMD4<Float>(repeating: RecursiveGaussian.coefficients.d1[0])
            let d1b = SIMD4<Float>(repeating: RecursiveGaussian.coefficients.d1[1])
            let d1c = SIMD4<Float>(repeating: RecursiveGaussian.coefficients.d1[2])
        }

        /// One step of the three recursions for four independent signals: the new y1, y3, y5 from the
        /// input sum x[n−N−1] + x[n+N−1] and the previous two outputs of each. Every pass goes through
        /// this one function, so identical inputs give bit-identical outputs in both images.
        @inline(__always)
        static func step(_ sum: SIMD4<Float>, _ c: Coefficients,
                         previous1: SIMD4<Float>, older1: SIMD4<Float>, previous3: SIMD4<Float>, older3: SIMD4<Float>,
                         previous5: SIMD4<Float>, older5: SIMD4<Float>) -> (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>) {
            ((c.n2a * sum - older1) - c.d1a * previous1,
             (c.n2b * sum - older3) - c.d1b * previous3,
             (c.n2c * sum - older5) - c.d1c * previous5)
        }

        /// A recursion run along a row of vectors, its state kept in registers.
        struct RowState {
            var previous1 = SIMD4<Float>.zero, older1 = SIMD4<Float>.zero
            var previous3 = SIMD4<Float>.zero, older3 = SIMD4<Float>.zero
            var previous5 = SIMD4<Float>.zero, older5 = SIMD4<Float>.zero

            @inline(__always)
            mutating func advance(_ sum: SIMD4<Float>, _ c: Coefficients) -> SIMD4<Float> {
                let (y1, y3, y5) = step(sum, c, previous1: previous1, older1: older1, previous3: previous3,
                                        older3: older3, previous5: previous5, older5: older5)
                older1 = previous1; previous1 = y1
                older3 = previous3; previous3 = y3
                older5 = previous5; previous5 = y5
                return y1 + (y3 + y5)
            }
        }

        /// Recursions run down columns, one vector of four columns each, their state kept in memory:
        /// for each of k = 1, 3, 5 two slots per vector, which alternate between holding the previous
        /// and the older output (the new output overwrites the older one).
        struct ColumnState {
            let base: UnsafeMutablePointer<SIMD4<Float>>
            let vectors: Int

            /// The memory this needs for `vectors` vectors.
            static func capacity(vectors: Int) -> Int { 6 * vectors }

            func reset() { base.update(repeating: .zero, count: 6 * vectors) }

            /// Advances the recursions of every vector by one row, whose inputs are the rows `top` and
            /// `bottom` (x[n−N−1] and x[n+N−1]); `parity` alternates between 0 and 1 from row to row.
            func advanceRow(_ top: UnsafePointer<Float>, _ bottom: UnsafePointer<Float>, parity: Int,
                            into output: UnsafeMutablePointer<SIMD4<Float>>, wide: Bool = Wide.available) {
                if wide {
                    wc_gaussian_columns8(UnsafeMutableRawPointer(base).assumingMemoryBound(to: Float.self), vectors,
                                         top, bottom, Int32(parity),
                                         UnsafeMutableRawPointer(output).assumingMemoryBound(to: Float.self),
                                         Wide.gaussianCoefficients)
                    return
                }
                let c = Coefficients()
                let previous = base + parity * vectors, older = base + (parity ^ 1) * vectors
                let k3 = 2 * vectors, k5 = 4 * vectors
                for v in 0..<vectors {
                    let sum = top.vector(at: 4 &* v) + bottom.vector(at: 4 &* v)
                    let (y1, y3, y5) = step(sum, c, previous1: previous[v], older1: older[v],
                                            previous3: previous[k3 &+ v], older3: older[k3 &+ v],
                                            previous5: previous[k5 &+ v], older5: older[k5 &+ v])
                    older[v] = y1; older[k3 &+ v] = y3; older[k5 &+ v] = y5
                    output[v] = y1 + (y3 + y5)
                }
            }
        }

        /// One statistic of four rows for the horizontal pass: the rows of a plane x, what of them
        /// is blurred, and the four rows the result goes into.
        struct Statistic {
            enum Signal {
                /// x itself.
                case values
                /// x².
                case squares
                /// x·y, for the rows of another plane y.
                case products(RowQuad)
            }

            let x: RowQuad
            let signal: Signal
            let output: RowQuad
        }

        /// The horizontal pass of four rows of several statistics, three at a time. Only the first
        /// `rows` output rows are written.
        ///
        /// Each statistic's recursion is independent of the others, so its values are the same
        /// whichever others run beside it; running up to three together gives the processor
        /// independent work while each recursion waits for its last result.
        static func filter(_ statistics: [Statistic], rows: Int, _ geometry: PlaneGeometry, _ workspace: Workspace) {
            var index = 0
            while index < statistics.count {
                filterQuad(statistics[index], index + 1 < statistics.count ? statistics[index + 1] : nil,
                           index + 2 < statistics.count ? statistics[index + 2] : nil, rows: rows, geometry,
                           workspace, wide: workspace.wide)
                index += 3
            }
        }

        /// The horizontal pass of up to three statistics of four rows.
        ///
        /// The four rows are transposed into zero-padded rows of vectors (lane i = row i), the
        /// recursions run on the four rows at once, and the results are transposed back.
        static func filterQuad(_ first: Statistic, _ second: Statistic?, _ third: Statistic?, rows: Int,
                               _ geometry: PlaneGeometry, _ workspace: Workspace, wide: Bool = Wide.available) {
            let width = geometry.width, stride = geometry.stride
            let n = radius, twoN = 2 * radius
            // Each padded row: [2N zeros][the row's values][zeros]; value j of the row is at 2N + j.
            let length = stride + 3 * radius
            let padded0 = workspace.paddedRows, padded1 = padded0 + length, padded2 = padded1 + length
            let filtered0 = workspace.filteredRows, filtered1 = filtered0 + stride, filtered2 = filtered1 + stride
            let c = Coefficients()
            let zero = SIMD4<Float>.zero
            let count = third != nil ? 3 : second != nil ? 2 : 1
            func pad(_ statistic: Statistic, into padded: UnsafeMutablePointer<SIMD4<Float>>) {
                padded.update(repeating: zero, count: twoN)
                gather(statistic, into: padded + twoN, width)
                (padded + twoN + width).update(repeating: zero, count: length - twoN - width)
            }
            pad(first, into: padded0)
            if let second { pad(second, into: padded1) }
            if let third { pad(third, into: padded2) }

            // At step t the inputs are x[t − 2N] and x[t], padded[t] and padded[t + 2N], and the output
            // is out[t − N + 1]; the first N − 1 steps only warm up.
            var state0 = RowState(), state1 = RowState(), state2 = RowState()
            func floats(_ pointer: UnsafeMutablePointer<SIMD4<Float>>) -> UnsafeMutablePointer<Float> {
                UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: Float.self)
            }
            switch wide ? 0 : count {
            case 0:
                wc_gaussian_rows8(floats(padded0), floats(padded1), floats(padded2), Int32(count), n, width,
                                  floats(filtered0), floats(filtered1), floats(filtered2), Wide.gaussianCoefficients)
            case 3:
                for t in 0..<(n - 1) {
                    _ = state0.advance(padded0[t] + padded0[t &+ twoN], c)
                    _ = state1.advance(padded1[t] + padded1[t &+ twoN], c)
                    _ = state2.advance(padded2[t] + padded2[t &+ twoN], c)
                }
                var t = n - 1, o = 0
                while o < width {
                    filtered0[o] = state0.advance(padded0[t] + padded0[t &+ twoN], c)
                    filtered1[o] = state1.advance(padded1[t] + padded1[t &+ twoN], c)
                    filtered2[o] = state2.advance(padded2[t] + padded2[t &+ twoN], c)
                    t &+= 1; o &+= 1
                }
            case 2:
                for t in 0..<(n - 1) {
                    _ = state0.advance(padded0[t] + padded0[t &+ twoN], c)
                    _ = state1.advance(padded1[t] + padded1[t &+ twoN], c)
                }
                var t = n - 1, o = 0
                while o < width {
                    filtered0[o] = state0.advance(padded0[t] + padded0[t &+ twoN], c)
                    filtered1[o] = state1.advance(padded1[t] + padded1[t &+ twoN], c)
                    t &+= 1; o &+= 1
                }
            default:
                for t in 0..<(n - 1) {
                    _ = state0.advance(padded0[t] + padded0[t &+ twoN], c)
                }
                var t = n - 1, o = 0
                while o < width {
                    filtered0[o] = state0.advance(padded0[t] + padded0[t &+ twoN], c)
                    t &+= 1; o &+= 1
                }
            }
            for index in width..<stride {
                filtered0[index] = zero; filtered1[index] = zero; filtered2[index] = zero
            }

            scatter(filtered0, into: first.output, rows: rows, stride)
            if let second { scatter(filtered1, into: second.output, rows: rows, stride) }
            if let third { scatter(filtered2, into: third.output, rows: rows, stride) }
        }

        /// Transposes a statistic's four rows into a row of vectors (lane i = row i), `width` values
        /// followed by zeros up to the next multiple of four.
        @inline(__always)
        static func gather(_ statistic: Statistic, into inside: UnsafeMutablePointer<SIMD4<Float>>, _ width: Int) {
            let x = statistic.x
            var j = 0
            // Four columns at a time; the padding columns, read as zeros, are cleared below.
            while j < width {
                let a = x.r0.vector(at: j), b = x.r1.vector(at: j), d = x.r2.vector(at: j), e = x.r3.vector(at: j)
                let (t0, t1, t2, t3) = switch statistic.signal {
                case .values: transpose(a, b, d, e)
                case .squares: transpose(a * a, b * b, d * d, e * e)
                case let .products(y):
                    transpose(a * y.r0.vector(at: j), b * y.r1.vector(at: j), d * y.r2.vector(at: j),
                              e * y.r3.vector(at: j))
                }
                inside[j] = t0; inside[j &+ 1] = t1; inside[j &+ 2] = t2; inside[j &+ 3] = t3
                j &+= 4
            }
            for index in width..<((width + 3) & ~3) { inside[index] = .zero }
        }

        /// Transposes a row of vectors (lane i = row i) back into the first `rows` of four rows.
        @inline(__always)
        static func scatter(_ filtered: UnsafeMutablePointer<SIMD4<Float>>, into output: RowQuad, rows: Int,
                            _ stride: Int) {
            var j = 0
            while j < stride {
                let (t0, t1, t2, t3) = transpose(filtered[j], filtered[j &+ 1], filtered[j &+ 2], filtered[j &+ 3])
                output.r0.storeVector(t0, at: j)
                if rows > 1 { output.r1.storeVector(t1, at: j) }
                if rows > 2 { output.r2.storeVector(t2, at: j) }
                if rows > 3 { output.r3.storeVector(t3, at: j) }
                j &+= 4
            }
        }

        /// Transposes a 4x4 block given as four row vectors.
        @inline(__always)
        static func transpose(_ a: SIMD4<Float>, _ b: SIMD4<Float>, _ c: SIMD4<Float>, _ d: SIMD4<Float>)
            -> (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>) {
            let abLow = SIMD4(a[0], b[0], a[1], b[1]), abHigh = SIMD4(a[2], b[2], a[3], b[3])
            let cdLow = SIMD4(c[0], d[0], c[1], d[1]), cdHigh = SIMD4(c[2], d[2], c[3], d[3])
            return (SIMD4(lowHalf: abLow.lowHalf, highHalf: cdLow.lowHalf),
                    SIMD4(lowHalf: abLow.highHalf, highHalf: cdLow.highHalf),
                    SIMD4(lowHalf: abHigh.lowHalf, highHalf: cdHigh.lowHalf),
                    SIMD4(lowHalf: abHigh.highHalf, highHalf: cdHigh.highHalf))
        }

        /// Stores a row of blurred values μ as the mean.
        static func storeMean(_ blurred: UnsafeMutablePointer<SIMD4<Float>>, mean: UnsafeMutablePointer<Float>,
                              _ geometry: PlaneGeometry) {
            for v in 0..<(geometry.stride / 4) {
                mean.storeVector(blurred[v], at: 4 &* v)
            }
        }

        /// Stores a row of blurred values μ and blurred squares as the mean and the variance
        /// blur(x²) − μ².
        static func storeMeanAndVariance(_ blurred: UnsafeMutablePointer<SIMD4<Float>>,
                                         _ blurredSquare: UnsafeMutablePointer<SIMD4<Float>>,
                                         mean: UnsafeMutablePointer<Float>, variance: UnsafeMutablePointer<Float>,
                                         _ geometry: PlaneGeometry) {
            for v in 0..<(geometry.stride / 4) {
                let mu = blurred[v]
                mean.storeVector(mu, at: 4 &* v)
                variance.storeVector(blurredSquare[v] - mu * mu, at: 4 &* v)
            }
        }
    }

    /// One row of one channel, as the error maps compare it.
    struct ComparedRow {
        let referenceXYB: UnsafeMutablePointer<Float>
        let referenceMean: UnsafeMutablePointer<Float>
        let referenceVariance: UnsafeMutablePointer<Float>
        let distortedXYB: UnsafeMutablePointer<Float>
        /// The distorted image's blurred values μ2, blurred squares blur(x2²), and blurred products
        /// with the reference blur(x1·x2).
        let distortedMean: UnsafeMutablePointer<SIMD4<Float>>
        let distortedSquare: UnsafeMutablePointer<SIMD4<Float>>
        let product: UnsafeMutablePointer<SIMD4<Float>>
    }

    /// The per-channel error maps of SSIMULACRA 2, summed over a scale.
    enum ErrorMaps {
        /// Sums of the three error maps and of their fourth powers.
        struct Sums {
            var ssim = 0.0, ssim4 = 0.0
            var ringing = 0.0, ringing4 = 0.0
            var blurring = 0.0, blurring4 = 0.0
        }

        /// The stabilising constant of SSIM's contrast-structure term, C2 = (0.03)².
        static let c2: Float = 0.0009

        /// Adds a row's error maps to `sums`.
        ///
        /// Per pixel, with μ the blurred planes and σ the blurred (co)variances:
        /// - SSIM error: `max(0, 1 − (1 − (μ1 − μ2)²) · (2σ12 + C2) / (σ1² + σ2² + C2))`. This is SSIM
        ///   with its luminance term `2μ1μ2 / (μ1² + μ2²)` replaced by `1 − (μ1 − μ2)²`: the denominator
        ///   would weigh errors in the darks more, which is wrong for values already perceptually
        ///   uniform, as XYB's are.
        /// - `d = (1 + |x2 − μ2|) / (1 + |x1 − μ1|) − 1`: ringing is `max(d, 0)` (edges that are new,
        ///   from blocking, ringing, banding), blurring `max(−d, 0)` (edges that were smoothed away).
        static func pool(_ row: ComparedRow, vectors: Int, into sums: inout Sums, wide: Bool = Wide.available) {
            if wide { return poolWide(row, vectors: vectors, ssim: true, into: &sums) }
            let one = SIMD4<Float>(repeating: 1), zero = SIMD4<Float>.zero, c2 = SIMD4<Float>(repeating: Self.c2)
            var ssim = zero, ssim4 = zero, edges = EdgeSums()
            for v in 0..<vectors {
                let o = 4 &* v
                let mu1 = row.referenceMean.vector(at: o), mu2 = row.distortedMean[v]
                // SSIM'
                let meanDifference = mu1 - mu2
                let luminance = one - meanDifference * meanDifference
                let structure = 2 * (row.product[v] - mu1 * mu2) + c2
                let contrast = row.referenceVariance.vector(at: o) + (row.distortedSquare[v] - mu2 * mu2) + c2
                let error = (one - luminance * structure / contrast).positivePart
                let error2 = error * error
                ssim += error
                ssim4 += error2 * error2
                edges.add(row, at: o, mu1: mu1, mu2: mu2)
            }
            sums.ssim += Double(ssim.sum()); sums.ssim4 += Double(ssim4.sum())
            edges.add(to: &sums)
        }

        /// Adds a row's ringing and blurring maps to `sums`, for a channel whose SSIM map weighs
        /// nothing (``SSIMULACRA2/MapsNeeded/edges``): the same values as ``pool(_:vectors:into:)``
        /// gives them. The blurred squares and products of `row` are not read.
        static func poolEdges(_ row: ComparedRow, vectors: Int, into sums: inout Sums, wide: Bool = Wide.available) {
            if wide { return poolWide(row, vectors: vectors, ssim: false, into: &sums) }
            var edges = EdgeSums()
            for v in 0..<vectors {
                let o = 4 &* v
                edges.add(row, at: o, mu1: row.referenceMean.vector(at: o), mu2: row.distortedMean[v])
            }
            edges.add(to: &sums)
        }

        /// ``pool(_:vectors:into:)`` (or, without `ssim`, ``poolEdges(_:vectors:into:)``) by the
        /// eight-lane kernel, whose four-lane sums are the same floats.
        private static func poolWide(_ row: ComparedRow, vectors: Int, ssim: Bool, into sums: inout Sums) {
            withUnsafeTemporaryAllocation(of: SIMD4<Float>.self, capacity: 6) { lanes in
                let lanes = lanes.baseAddress!
                lanes.initialize(repeating: .zero, count: 6)
                func floats(_ pointer: UnsafeMutablePointer<SIMD4<Float>>) -> UnsafeMutablePointer<Float> {
                    UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: Float.self)
                }
                wc_pool8(row.referenceXYB, row.referenceMean, row.referenceVariance, row.distortedXYB,
                         floats(row.distortedMean), floats(row.distortedSquare), floats(row.product), vectors,
                         ssim ? 1 : 0, floats(lanes))
                if ssim {
                    sums.ssim += Double(lanes[0].sum()); sums.ssim4 += Double(lanes[1].sum())
                }
                sums.ringing += Double(lanes[2].sum()); sums.ringing4 += Double(lanes[3].sum())
                sums.blurring += Double(lanes[4].sum()); sums.blurring4 += Double(lanes[5].sum())
            }
        }

        /// The ringing and blurring sums of a row, four columns per lane.
        struct EdgeSums {
            var ringing = SIMD4<Float>.zero, ringing4 = SIMD4<Float>.zero
            var blurring = SIMD4<Float>.zero, blurring4 = SIMD4<Float>.zero

            /// Adds the four pixels at `o`, whose blurred values are `mu1` and `mu2`.
            @inline(__always)
            mutating func add(_ row: ComparedRow, at o: Int, mu1: SIMD4<Float>, mu2: SIMD4<Float>) {
                let one = SIMD4<Float>(repeating: 1)
                let edge1 = one + (row.referenceXYB.vector(at: o) - mu1).absoluteValue
                let edge2 = one + (row.distortedXYB.vector(at: o) - mu2).absoluteValue
                let ratio = edge2 / edge1 - one
                let artifact = ratio.positivePart, lost = (-ratio).positivePart
                let artifact2 = artifact * artifact, lost2 = lost * lost
                ringing += artifact
                ringing4 += artifact2 * artifact2
                blurring += lost
                blurring4 += lost2 * lost2
            }

            func add(to sums: inout Sums) {
                sums.ringing += Double(ringing.sum()); sums.ringing4 += Double(ringing4.sum())
                sums.blurring += Double(blurring.sum()); sums.blurring4 += Double(blurring4.sum())
            }
        }
    }
}

// MARK: - Vector helpers

extension UnsafePointer where Pointee == Float {
    /// The four floats from `offset` on, as a vector.
    @inline(__always)
    func vector(at offset: Int) -> SIMD4<Float> {
        UnsafeRawPointer(self + offset).loadUnaligned(as: SIMD4<Float>.self)
    }
}

extension UnsafeMutablePointer where Pointee == Float {
    /// The four floats from `offset` on, as a vector.
    @inline(__always)
    func vector(at offset: Int) -> SIMD4<Float> {
        UnsafeRawPointer(self + offset).loadUnaligned(as: SIMD4<Float>.self)
    }

    @inline(__always)
    func storeVector(_ value: SIMD4<Float>, at offset: Int) {
        UnsafeMutableRawPointer(self + offset).storeBytes(of: value, as: SIMD4<Float>.self)
    }
}

extension SIMD4 where Scalar == Float {
    /// `max(lane, 0)` for every lane, in whole-vector operations: per-lane code in a hot loop (the
    /// standard library's `pointwiseMax`, say) can make the optimiser scalarise the whole loop.
    @inline(__always)
    var positivePart: SIMD4<Float> {
        let isPositive = unsafeBitCast(SIMD4<Float>.zero .< self, to: SIMD4<UInt32>.self)
        return unsafeBitCast(unsafeBitCast(self, to: SIMD4<UInt32>.self) & isPositive, to: SIMD4<Float>.self)
    }

    /// `|lane|` for every lane, by clearing the sign bits.
    @inline(__always)
    var absoluteValue: SIMD4<Float> {
        unsafeBitCast(unsafeBitCast(self, to: SIMD4<UInt32>.self) & 0x7FFF_FFFF, to: SIMD4<Float>.self)
    }
}
