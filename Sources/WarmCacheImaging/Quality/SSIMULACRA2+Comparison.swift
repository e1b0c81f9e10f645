// Comparing a distorted image with an original, scale by scale (see SSIMULACRA2.swift for the
// reference and its licence).

extension SSIMULACRA2 {
    /// The error norms of `image` against an original at every scale, `image` being composited over
    /// `background` if it has alpha; `original` gives the original's side of each scale (by index).
    ///
    /// Each scale streams in bands of four rows: the distorted image's rows go to XYB (and are
    /// averaged into the next scale), their values, squares and products with the original are
    /// filtered horizontally into rings of rows, and each row whose vertical window is complete is
    /// filtered down the columns and its error maps pooled. A streamed original
    /// (``OriginalStage/Target/rings``) goes through the same steps beside it, its statistics in
    /// the same horizontal pass, its mean and variance stored just before each row is compared;
    /// prepared planes are only read.
    static func compare(_ image: SSIMULACRA2Image, background: Float, workspace: Workspace,
                        original: (_ scale: Int) -> OriginalStage) -> [ScaleNorms] {
        let geometries = PlaneGeometry.scales(width: image.width, height: image.height)
        return geometries.indices.map { index in
            let stage = original(index)
            let streamed = if case .rings = stage.target { true } else { false }
            if streamed { stage.reset() }
            let sums = compareScale(image, background: background, scale: index, of: geometries, original: stage,
                                    streamed: streamed, workspace)
            return norms(sums, pixels: geometries[index].pixelCount)
        }
    }

    /// The sums of each channel's error maps at one scale.
    private static func compareScale(_ image: SSIMULACRA2Image, background: Float, scale index: Int,
                                     of geometries: [PlaneGeometry], original: OriginalStage, streamed: Bool,
                                     _ workspace: Workspace) -> [ErrorMaps.Sums] {
        let geometry = geometries[index], stride = geometry.stride
        let source = LinearRows(image, background: background, scale: index, geometry, workspace)
        let next = index + 1 < geometries.count ? workspace.linear(index + 1) : nil
        let needs = original.needs
        let states = (0..<9).map { workspace.columnState($0, geometry) }
        for state in states { state.reset() }
        var sums = [ErrorMaps.Sums](repeating: ErrorMaps.Sums(), count: 3)
        var row = 1 - RecursiveGaussian.radius
        // Filters down the columns row `row` and pools its error maps.
        func filterColumns() {
            let blurredMean = workspace.blurredRow(0), blurredSquare = workspace.blurredRow(1)
            let blurredProduct = workspace.blurredRow(2)
            for channel in 0..<3 where needs[channel] != .none {
                let all = needs[channel] == .all, parity = row & 1, wide = workspace.wide
                let (meanTop, meanBottom) = workspace.ringRows(3 * channel, around: row, geometry)
                states[3 * channel].advanceRow(meanTop, meanBottom, parity: parity, into: blurredMean, wide: wide)
                if all {
                    let (squareTop, squareBottom) = workspace.ringRows(3 * channel + 1, around: row, geometry)
                    let (productTop, productBottom) = workspace.ringRows(3 * channel + 2, around: row, geometry)
                    states[3 * channel + 1].advanceRow(squareTop, squareBottom, parity: parity, into: blurredSquare,
                                                       wide: wide)
                    states[3 * channel + 2].advanceRow(productTop, productBottom, parity: parity, into: blurredProduct,
                                                       wide: wide)
                }
                if streamed { original.filterColumns(channel: channel, row: row) }
                guard row >= 0 else { continue }
                let compared = ComparedRow(referenceXYB: original.xybRow(channel, row),
                                           referenceMean: original.meanRow(channel, row),
                                           referenceVariance: original.varianceRow(channel, row),
                                           distortedXYB: workspace.xybRow(channel, row, geometry),
                                           distortedMean: blurredMean, distortedSquare: blurredSquare,
                                           product: blurredProduct)
                if all {
                    ErrorMaps.pool(compared, vectors: stride / 4, into: &sums[channel], wide: wide)
                } else {
                    ErrorMaps.poolEdges(compared, vectors: stride / 4, into: &sums[channel], wide: wide)
                }
            }
            row += 1
        }
        var top = 0
        while top < geometry.height {
            let rows = min(4, geometry.height - top)
            for y in top..<(top + rows) {
                let (r, g, b) = source.row(y)
                XYB.convert(r, g, b, into: workspace.xybRow(0, y, geometry), planeSize: workspace.xybRingPlane,
                            geometry, wide: workspace.wide)
            }
            if let next { source.halve(rows: top..<(top + rows), into: next) }
            if streamed { original.convert(top: top, rows: rows) }
            var statistics: [RecursiveGaussian.Statistic] = []
            for channel in 0..<3 where needs[channel] != .none {
                let x = workspace.xybQuad(channel, top: top, geometry)
                statistics.append(.init(x: x, signal: .values,
                                        output: workspace.ringQuad(3 * channel, top: top, geometry)))
                if needs[channel] == .all {
                    statistics.append(.init(x: x, signal: .squares,
                                            output: workspace.ringQuad(3 * channel + 1, top: top, geometry)))
                    statistics.append(.init(x: x, signal: .products(original.xybQuad(channel, top: top)),
                                            output: workspace.ringQuad(3 * channel + 2, top: top, geometry)))
                }
            }
            if streamed { original.addStatistics(top: top, to: &statistics) }
            RecursiveGaussian.filter(statistics, rows: rows, geometry, workspace)
            while row < top && row < geometry.height { filterColumns() }
            top += 4
        }
        while row < geometry.height { filterColumns() }
        return sums
    }

    /// A scale's norms from the sums of its error maps over `pixels` pixels.
    private static func norms(_ sums: [ErrorMaps.Sums], pixels: Int) -> ScaleNorms {
        var norms = ScaleNorms()
        let pixels = Double(pixels)
        for channel in 0..<3 {
            let channelSums = sums[channel]
            norms.ssim[channel * 2] = channelSums.ssim / pixels
            norms.ssim[channel * 2 + 1] = (channelSums.ssim4 / pixels).squareRoot().squareRoot()
            norms.edge[channel * 4] = channelSums.ringing / pixels
            norms.edge[channel * 4 + 1] = (channelSums.ringing4 / pixels).squareRoot().squareRoot()
            norms.edge[channel * 4 + 2] = channelSums.blurring / pixels
            norms.edge[channel * 4 + 3] = (channelSums.blurring4 / pixels).squareRoot().squareRoot()
        }
        return norms
    }
}
