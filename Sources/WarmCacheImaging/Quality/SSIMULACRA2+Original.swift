// The original's side of SSIMULACRA 2 at one scale (see SSIMULACRA2.swift for the reference and its
// licence).

extension SSIMULACRA2 {
    /// The original's side of one scale: its rows converted to XYB (and averaged into the next
    /// scale's linear planes), their blurred values (and, for a channel with an SSIM map, blurred
    /// squares) by the horizontal pass then down the columns, and the blurred mean and variance
    /// stored.
    ///
    /// Preparing an original (``ReferencePyramid``) runs it alone, into whole planes that scores
    /// then read. Scoring against a streamed original runs it beside the distorted image, band by
    /// band, into the workspace's rings and one row each for the mean and variance of the row being
    /// compared. Both run this same code on the same inputs in the same order (a statistic's
    /// recursion doesn't depend on the others filtered beside it), so they give the same floats.
    ///
    /// ```swift
    /// let stage = OriginalStage(image, background: 0.5, scale: 0, of: geometries, into: .rings, workspace)
    /// stage.reset()
    /// stage.convert(top: 0, rows: 4)  // then its statistics join the horizontal pass
    /// ```
    struct OriginalStage {
        /// Where the original's rows go.
        enum Target {
            /// Whole planes in one buffer: XYB, then the means, then the variances, each channel a
            /// plane of the scale.
            case planes(UnsafeMutablePointer<Float>)
            /// The workspace's rows for a streamed original.
            case rings
        }

        let geometry: PlaneGeometry
        /// What each channel's maps need at this scale.
        let needs: [MapsNeeded]
        let target: Target
        let workspace: Workspace
        /// The original's linear rows; nil for a stage that only reads prepared planes.
        private let source: LinearRows?
        /// The next scale's linear planes, if there is a next scale.
        private let next: UnsafeMutablePointer<Float>?
        /// The first of its six statistics in the workspace's rings and column states (values and
        /// squares per channel), and the first of its two blurred rows.
        private let firstStatistic: Int, firstBlurred: Int

        /// A stage that computes scale `scale` of `geometries` of `image` (composited over
        /// `background` if it has alpha).
        init(_ image: SSIMULACRA2Image, background: Float, scale: Int, of geometries: [PlaneGeometry],
             into target: Target, _ workspace: Workspace) {
            let streamed = if case .rings = target { true } else { false }
            self.init(geometries[scale], scale: scale, scaleCount: geometries.count, target: target, workspace,
                      source: LinearRows(image, background: background, scale: scale, geometries[scale], workspace,
                                         original: streamed),
                      next: scale + 1 < geometries.count ? workspace.linear(scale + 1, original: streamed) : nil)
        }

        /// A stage that reads the prepared planes of scale `scale` of `scaleCount`.
        init(reading planes: UnsafeMutablePointer<Float>, _ geometry: PlaneGeometry, scale: Int, scaleCount: Int,
             _ workspace: Workspace) {
            self.init(geometry, scale: scale, scaleCount: scaleCount, target: .planes(planes), workspace, source: nil,
                      next: nil)
        }

        private init(_ geometry: PlaneGeometry, scale: Int, scaleCount: Int, target: Target, _ workspace: Workspace,
                     source: LinearRows?, next: UnsafeMutablePointer<Float>?) {
            self.geometry = geometry
            needs = (0..<3).map { MapsNeeded.of(channel: $0, scale: scale, scaleCount: scaleCount) }
            self.target = target
            self.workspace = workspace
            self.source = source
            self.next = next
            switch target {
            case .planes: (firstStatistic, firstBlurred) = (0, 0)
            case .rings: (firstStatistic, firstBlurred) = (Workspace.statisticCount(streamed: false), 3)
            }
        }

        /// Clears the column recursions, before the first row of the scale.
        func reset() {
            for index in 0..<6 { workspace.columnState(firstStatistic + index, geometry).reset() }
        }

        /// Converts rows `top` to `top + rows − 1` to XYB and averages them into the next scale.
        func convert(top: Int, rows: Int) {
            guard let source else { preconditionFailure("prepared planes are only read") }
            let channelDistance = switch target {
            case .planes: geometry.planeSize
            case .rings: workspace.xybRingPlane
            }
            for y in top..<(top + rows) {
                let (r, g, b) = source.row(y)
                XYB.convert(r, g, b, into: xybRow(0, y), planeSize: channelDistance, geometry, wide: workspace.wide)
            }
            if let next { source.halve(rows: top..<(top + rows), into: next) }
        }

        /// Adds the statistics of the band of four rows from `top` to the horizontal pass's list.
        func addStatistics(top: Int, to statistics: inout [RecursiveGaussian.Statistic]) {
            for channel in 0..<3 where needs[channel] != .none {
                let x = xybQuad(channel, top: top)
                statistics.append(.init(x: x, signal: .values,
                                        output: workspace.ringQuad(firstStatistic + 2 * channel, top: top, geometry)))
                if needs[channel] == .all {
                    statistics.append(.init(x: x, signal: .squares,
                                            output: workspace.ringQuad(firstStatistic + 2 * channel + 1, top: top,
                                                                       geometry)))
                }
            }
        }

        /// Filters down the columns row `row` (from 1 − N on) of every channel that needs it.
        func filterColumns(row: Int) {
            for channel in 0..<3 where needs[channel] != .none { filterColumns(channel: channel, row: row) }
        }

        /// Filters down the columns row `row` of `channel`, whose inputs (rows row − N − 1 and
        /// row + N − 1 of the horizontal pass) are ready, and stores its mean (and variance) if the
        /// row is in the image.
        func filterColumns(channel: Int, row: Int) {
            let blurredMean = workspace.blurredRow(firstBlurred), blurredSquare = workspace.blurredRow(firstBlurred + 1)
            let meanIndex = firstStatistic + 2 * channel, parity = row & 1
            let (meanTop, meanBottom) = workspace.ringRows(meanIndex, around: row, geometry)
            workspace.columnState(meanIndex, geometry).advanceRow(meanTop, meanBottom, parity: parity,
                                                                  into: blurredMean, wide: workspace.wide)
            guard needs[channel] == .all else {
                if row >= 0 { RecursiveGaussian.storeMean(blurredMean, mean: meanRow(channel, row), geometry) }
                return
            }
            let (squareTop, squareBottom) = workspace.ringRows(meanIndex + 1, around: row, geometry)
            workspace.columnState(meanIndex + 1, geometry).advanceRow(squareTop, squareBottom, parity: parity,
                                                                      into: blurredSquare, wide: workspace.wide)
            if row >= 0 {
                RecursiveGaussian.storeMeanAndVariance(blurredMean, blurredSquare, mean: meanRow(channel, row),
                                                       variance: varianceRow(channel, row), geometry)
            }
        }

        // MARK: Rows

        /// Row `y` of XYB channel `channel`.
        func xybRow(_ channel: Int, _ y: Int) -> UnsafeMutablePointer<Float> {
            switch target {
            case let .planes(planes): planes + channel * geometry.planeSize + y * geometry.stride
            case .rings: workspace.xybRow(channel, y, geometry, original: true)
            }
        }

        /// Rows `top` to `top + 3` of XYB channel `channel`, the last row repeated past the bottom.
        func xybQuad(_ channel: Int, top: Int) -> RowQuad {
            switch target {
            case let .planes(planes): RowQuad(planes + channel * geometry.planeSize, top: top, geometry)
            case .rings: workspace.xybQuad(channel, top: top, geometry, original: true)
            }
        }

        /// The blurred mean of row `row` of `channel` (streamed: of the row last filtered).
        func meanRow(_ channel: Int, _ row: Int) -> UnsafeMutablePointer<Float> {
            switch target {
            case let .planes(planes): planes + (3 + channel) * geometry.planeSize + row * geometry.stride
            case .rings: workspace.originalRow(0)
            }
        }

        /// The variance of row `row` of `channel` (streamed: of the row last filtered).
        func varianceRow(_ channel: Int, _ row: Int) -> UnsafeMutablePointer<Float> {
            switch target {
            case let .planes(planes): planes + (6 + channel) * geometry.planeSize + row * geometry.stride
            case .rings: workspace.originalRow(1)
            }
        }
    }
}
