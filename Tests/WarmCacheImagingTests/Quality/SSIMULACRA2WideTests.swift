import Testing
@testable import WarmCacheImaging

/// The eight-lane kernels (``SSIMULACRA2/Wide``) against the four-lane Swift code they stand in
/// for: the same floats, bit for bit, so that a score never depends on the processor.
@Suite(.enabled(if: SSIMULACRA2.Wide.available, "this processor has no AVX2: the Swift code runs alone"))
struct SSIMULACRA2WideTests {
    /// Widths whose rows are a multiple of eight floats, and rows that end with a group of four.
    static let widths = [1, 4, 5, 8, 13, 37, 64, 101]

    /// Values like the kernels see: small, positive and negative, with exact zeros among them.
    static func values(_ count: Int, seed: UInt64, range: ClosedRange<Float>) -> [Float] {
        var generator = SplitMix(seed: seed)
        return (0..<count).map { index in index % 11 == 0 ? 0 : Float.random(in: range, using: &generator) }
    }

    @Test(arguments: widths)
    func xybConversion(width: Int) {
        let geometry = SSIMULACRA2.PlaneGeometry(width: width, height: 1)
        let stride = geometry.stride
        var red = Self.values(stride, seed: 1, range: 0...1), green = Self.values(stride, seed: 2, range: 0...1)
        var blue = Self.values(stride, seed: 3, range: 0...1)
        red[0] = -0.001  // negative linear light (out of gamut) is clamped before the cube root
        var narrow = [Float](repeating: .nan, count: 3 * stride), wide = narrow
        SSIMULACRA2.XYB.convert(&red, &green, &blue, into: &narrow, planeSize: stride, geometry, wide: false)
        SSIMULACRA2.XYB.convert(&red, &green, &blue, into: &wide, planeSize: stride, geometry, wide: true)
        #expect(narrow.map(\.bitPattern) == wide.map(\.bitPattern))
    }

    @Test(arguments: widths)
    func verticalBlur(width: Int) {
        let vectors = (width + 3) / 4
        let capacity = SSIMULACRA2.RecursiveGaussian.ColumnState.capacity(vectors: vectors)
        func run(wide: Bool) -> [Float] {
            let state = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: capacity)
            let output = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: vectors)
            defer { state.deallocate(); output.deallocate() }
            let columns = SSIMULACRA2.RecursiveGaussian.ColumnState(base: state, vectors: vectors)
            columns.reset()
            var results: [Float] = []
            for row in 0..<24 {  // long enough for the recursions' state to matter
                var top = Self.values(4 * vectors, seed: UInt64(100 + row), range: -2...2)
                var bottom = Self.values(4 * vectors, seed: UInt64(200 + row), range: -2...2)
                columns.advanceRow(&top, &bottom, parity: row & 1, into: output, wide: wide)
                for v in 0..<vectors { results += (0..<4).map { output[v][$0] } }
            }
            results += (0..<capacity).flatMap { index in (0..<4).map { state[index][$0] } }
            return results
        }
        #expect(run(wide: false).map(\.bitPattern) == run(wide: true).map(\.bitPattern))
    }

    @Test(arguments: widths)
    func horizontalBlur(width: Int) {
        typealias Gaussian = SSIMULACRA2.RecursiveGaussian
        let geometry = SSIMULACRA2.PlaneGeometry(width: width, height: 4)
        let stride = geometry.stride, planeSize = geometry.planeSize
        var x = Self.values(planeSize, seed: 21, range: -1...2), y = Self.values(planeSize, seed: 22, range: -1...2)
        for count in 1...3 {  // one, two and three statistics at a time
            func run(wide: Bool) -> [Float] {
                let workspace = SSIMULACRA2.Workspace(geometry: geometry)
                var outputs = [Float](repeating: .nan, count: 3 * planeSize)
                x.withUnsafeMutableBufferPointer { x in
                    y.withUnsafeMutableBufferPointer { y in
                        outputs.withUnsafeMutableBufferPointer { outputs in
                            let quad = { (plane: UnsafeMutablePointer<Float>) in SSIMULACRA2.RowQuad(plane, top: 0, geometry) }
                            let signals: [Gaussian.Statistic.Signal] = [.values, .squares, .products(quad(y.baseAddress!))]
                            let statistics = (0..<count).map { index in
                                Gaussian.Statistic(x: quad(x.baseAddress!), signal: signals[index],
                                                   output: quad(outputs.baseAddress! + index * planeSize))
                            }
                            Gaussian.filterQuad(statistics[0], count > 1 ? statistics[1] : nil,
                                                count > 2 ? statistics[2] : nil, rows: 4, geometry, workspace, wide: wide)
                        }
                    }
                }
                return Array(outputs[0..<(count * planeSize)]) + [Float(stride)]
            }
            #expect(run(wide: false).map(\.bitPattern) == run(wide: true).map(\.bitPattern), "\(count) statistics")
        }
    }

    @Test(arguments: widths)
    func errorMaps(width: Int) {
        let vectors = (width + 3) / 4, count = 4 * vectors
        var referenceXYB = Self.values(count, seed: 11, range: 0...1)
        var referenceMean = Self.values(count, seed: 12, range: 0...1)
        var referenceVariance = Self.values(count, seed: 13, range: 0...0.1)
        var distortedXYB = Self.values(count, seed: 14, range: 0...1)
        var mean = Self.vectors(Self.values(count, seed: 15, range: 0...1))
        var square = Self.vectors(Self.values(count, seed: 16, range: 0...1))
        var product = Self.vectors(Self.values(count, seed: 17, range: 0...1))
        let row = SSIMULACRA2.ComparedRow(referenceXYB: &referenceXYB, referenceMean: &referenceMean,
                                          referenceVariance: &referenceVariance, distortedXYB: &distortedXYB,
                                          distortedMean: &mean, distortedSquare: &square, product: &product)
        typealias Maps = SSIMULACRA2.ErrorMaps
        for edgesOnly in [false, true] {
            var narrow = Maps.Sums(), wide = Maps.Sums()
            for _ in 0..<3 {  // sums carried from row to row
                if edgesOnly {
                    Maps.poolEdges(row, vectors: vectors, into: &narrow, wide: false)
                    Maps.poolEdges(row, vectors: vectors, into: &wide, wide: true)
                } else {
                    Maps.pool(row, vectors: vectors, into: &narrow, wide: false)
                    Maps.pool(row, vectors: vectors, into: &wide, wide: true)
                }
            }
            let fields: [KeyPath<Maps.Sums, Double>] = [\.ssim, \.ssim4, \.ringing, \.ringing4, \.blurring, \.blurring4]
            for field in fields {
                #expect(narrow[keyPath: field].bitPattern == wide[keyPath: field].bitPattern, "\(field), edges only: \(edgesOnly)")
            }
        }
    }

    static func vectors(_ values: [Float]) -> [SIMD4<Float>] {
        stride(from: 0, to: values.count, by: 4).map { SIMD4(values[$0], values[$0 + 1], values[$0 + 2], values[$0 + 3]) }
    }
}
