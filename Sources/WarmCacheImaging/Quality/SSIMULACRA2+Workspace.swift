// Scratch memory for SSIMULACRA 2's passes (see SSIMULACRA2.swift for the reference and its licence).

import Foundation

extension SSIMULACRA2 {
    /// Scratch memory for preparing or scoring images of one size, reused from one score to the next.
    ///
    /// Besides the linear RGB planes of scales 1 and 2 (each halved into the other for the later
    /// scales), it holds only rows: the horizontal pass writes into rings of 16 rows per statistic,
    /// which is enough for the vertical pass's window (rows n − N − 1 to n + N − 1) plus the band of
    /// four rows being filtered.
    ///
    /// A workspace for a streamed original (``SSIMULACRA2Reference/Mode/streamed``) holds the same
    /// again for the original, whose rows are computed beside the distorted image's: its own linear
    /// planes and XYB rings, six more statistics (its blurred values and squares per channel), and
    /// a row each for the blurred mean and variance of the row being compared: 7.5 bytes per pixel
    /// of linear planes instead of 3.75, plus about 480 rows of floats instead of 290 (8.5 and 4.3
    /// bytes per pixel at 3072×1920).
    final class Workspace {
        static let ringRows = 16

        /// The first (largest) scale.
        let geometry: PlaneGeometry
        /// Whether this holds the rows of a streamed original too.
        let streamed: Bool
        /// Whether the eight-lane kernels run (``Wide``); tests turn them off to compare.
        let wide: Bool
        private let stride: Int
        private let buffer: PlaneBuffer
        private let storage: UnsafeMutablePointer<Float>
        /// Four rows of linear R, G, B for the first scale; then the original's, when streamed.
        private let linearRowStorage: UnsafeMutablePointer<Float>
        private let linearOdd: UnsafeMutablePointer<Float>
        private let linearEven: UnsafeMutablePointer<Float>
        /// Rings of the distorted image's XYB rows (3 channels); then the original's, when streamed.
        private let xybRing: UnsafeMutablePointer<Float>
        /// Rings of the horizontal pass's output (9 statistics, 15 when streamed).
        private let filteredRing: UnsafeMutablePointer<Float>
        /// Three zero-padded rows of vectors for the horizontal pass.
        let paddedRows: UnsafeMutablePointer<SIMD4<Float>>
        /// Three rows of vectors, the horizontal pass's results before they are transposed back.
        let filteredRows: UnsafeMutablePointer<SIMD4<Float>>
        /// The vertical recursions' state (9 statistics, 15 when streamed).
        private let columnStates: UnsafeMutablePointer<SIMD4<Float>>
        /// Rows of blurred statistics (3, 5 when streamed).
        private let blurredRows: UnsafeMutablePointer<SIMD4<Float>>
        /// A row of zeros standing for the rows outside the image.
        private let zeroRow: UnsafeMutablePointer<Float>
        /// A streamed original's blurred mean and variance of the row being compared.
        private let originalRows: UnsafeMutablePointer<Float>

        /// Statistics the rings and column states hold: the distorted image's three per channel
        /// (values, squares, products), then a streamed original's two (values, squares).
        static func statisticCount(streamed: Bool) -> Int { streamed ? 15 : 9 }

        init(geometry: PlaneGeometry, streamed: Bool = false, wide: Bool = Wide.available) {
            self.geometry = geometry
            self.streamed = streamed
            self.wide = wide
            let sizes = Self.sizes(geometry, streamed: streamed)
            stride = geometry.stride
            buffer = PlaneBuffer(count: sizes.reduce(0, +))
            storage = buffer.pointer
            storage.initialize(repeating: 0, count: sizes.reduce(0, +))
            var offsets: [Int] = []
            var offset = 0
            for size in sizes {
                offsets.append(offset)
                offset += size
            }
            linearRowStorage = storage + offsets[0]
            linearOdd = storage + offsets[1]
            linearEven = storage + offsets[2]
            xybRing = storage + offsets[3]
            filteredRing = storage + offsets[4]
            let storage = storage
            func vectors(_ index: Int) -> UnsafeMutablePointer<SIMD4<Float>> {
                UnsafeMutableRawPointer(storage + offsets[index])
                    .bindMemory(to: SIMD4<Float>.self, capacity: sizes[index] / 4)
            }
            paddedRows = vectors(5)
            filteredRows = vectors(6)
            columnStates = vectors(7)
            blurredRows = vectors(8)
            zeroRow = storage + offsets[9]
            originalRows = storage + offsets[10]
        }

        /// The floats of each part, in the order they are laid out.
        private static func sizes(_ geometry: PlaneGeometry, streamed: Bool) -> [Int] {
            let stride = geometry.stride, ring = ringRows * stride, sides = streamed ? 2 : 1
            let statistics = statisticCount(streamed: streamed)
            return [
                sides * 12 * stride,  // linearRows
                sides * 3 * geometry.half.planeSize,  // linearOdd
                sides * 3 * geometry.half.half.planeSize,  // linearEven
                sides * 3 * ring,  // xybRing
                statistics * ring,  // filteredRing
                4 * 3 * (stride + 3 * RecursiveGaussian.radius),  // paddedRows
                4 * 3 * stride,  // filteredRows
                4 * statistics * RecursiveGaussian.ColumnState.capacity(vectors: stride / 4),  // columnStates
                (streamed ? 5 : 3) * stride,  // blurredRows
                stride,  // zeroRow
                streamed ? 2 * stride : 0,  // originalRows
            ]
        }

        /// The bytes of a workspace for images of `geometry`'s size.
        static func byteCount(_ geometry: PlaneGeometry, streamed: Bool) -> Int {
            sizes(geometry, streamed: streamed).reduce(0, +) * MemoryLayout<Float>.size
        }

        /// Four rows of linear R, G, B for the first scale, of the distorted image or of a streamed
        /// original.
        func linearRows(original: Bool) -> UnsafeMutablePointer<Float> {
            linearRowStorage + (original ? 12 * stride : 0)
        }

        /// The linear RGB planes of scale `index` ≥ 1, of the distorted image or of a streamed
        /// original (scales alternate between two buffers, so that each is halved into the other).
        func linear(_ index: Int, original: Bool = false) -> UnsafeMutablePointer<Float> {
            if index % 2 == 1 { return linearOdd + (original ? 3 * geometry.half.planeSize : 0) }
            return linearEven + (original ? 3 * geometry.half.half.planeSize : 0)
        }

        /// The distance between the channels of the XYB rings.
        var xybRingPlane: Int { Self.ringRows * stride }

        /// Row `y` of channel `channel` of the distorted image's XYB, or of a streamed original's.
        func xybRow(_ channel: Int, _ y: Int, _ geometry: PlaneGeometry, original: Bool = false)
            -> UnsafeMutablePointer<Float> {
            xybRing + ((original ? 3 : 0) + channel) * xybRingPlane + (y & (Self.ringRows - 1)) * geometry.stride
        }

        /// Rows `top` to `top + 3` of the distorted image's XYB (or a streamed original's), the last
        /// row repeated past the bottom.
        func xybQuad(_ channel: Int, top: Int, _ geometry: PlaneGeometry, original: Bool = false) -> RowQuad {
            let last = geometry.height - 1
            func row(_ y: Int) -> UnsafeMutablePointer<Float> {
                xybRow(channel, min(y, last), geometry, original: original)
            }
            return RowQuad(row(top), row(top + 1), row(top + 2), row(top + 3))
        }

        /// The ring rows `top` to `top + 3` of statistic `index`, for the horizontal pass to write.
        func ringQuad(_ index: Int, top: Int, _ geometry: PlaneGeometry) -> RowQuad {
            RowQuad(ringRow(index, top, geometry), ringRow(index, top + 1, geometry), ringRow(index, top + 2, geometry),
                    ringRow(index, top + 3, geometry))
        }

        private func ringRow(_ index: Int, _ y: Int, _ geometry: PlaneGeometry) -> UnsafeMutablePointer<Float> {
            filteredRing + index * Self.ringRows * stride + (y & (Self.ringRows - 1)) * geometry.stride
        }

        /// The vertical pass's inputs for row `row` of statistic `index`: the horizontally filtered
        /// rows row − N − 1 and row + N − 1, or zeros outside the image.
        func ringRows(_ index: Int, around row: Int, _ geometry: PlaneGeometry)
            -> (UnsafePointer<Float>, UnsafePointer<Float>) {
            let top = row - RecursiveGaussian.radius - 1, bottom = row + RecursiveGaussian.radius - 1
            return (UnsafePointer(top >= 0 ? ringRow(index, top, geometry) : zeroRow),
                    UnsafePointer(bottom < geometry.height ? ringRow(index, bottom, geometry) : zeroRow))
        }

        /// The vertical recursions' state for statistic `index`, at a scale of size `geometry`.
        func columnState(_ index: Int, _ geometry: PlaneGeometry) -> RecursiveGaussian.ColumnState {
            let largest = RecursiveGaussian.ColumnState.capacity(vectors: stride / 4)
            return RecursiveGaussian.ColumnState(base: columnStates + index * largest, vectors: geometry.stride / 4)
        }

        /// Row `index` of blurred statistics: 0...2 the distorted image's, 3 and 4 a streamed original's.
        func blurredRow(_ index: Int) -> UnsafeMutablePointer<SIMD4<Float>> {
            blurredRows + index * (stride / 4)
        }

        /// A streamed original's blurred mean (0) or variance (1) of the row being compared.
        func originalRow(_ index: Int) -> UnsafeMutablePointer<Float> {
            originalRows + index * stride
        }
    }

    /// Keeps one workspace between scores, so that scoring many candidates against one original
    /// doesn't allocate (and fault in) scratch memory each time. Concurrent scores each get their own.
    final class WorkspacePool: @unchecked Sendable {
        private let geometry: PlaneGeometry
        private let streamed: Bool
        private let wide: Bool
        private let lock = NSLock()
        private var spare: Workspace?

        init(geometry: PlaneGeometry, streamed: Bool, wide: Bool, spare: Workspace? = nil) {
            self.geometry = geometry
            self.streamed = streamed
            self.wide = wide
            self.spare = spare
        }

        func withWorkspace<Result>(_ body: (Workspace) -> Result) -> Result {
            lock.lock()
            let taken = spare
            spare = nil
            lock.unlock()
            let workspace = taken ?? Workspace(geometry: geometry, streamed: streamed, wide: wide)
            // A streamed original's scratch memory is not kept: between two scores the search
            // encodes, and an encoder beside an idle 7.5 bytes per pixel is a large image's peak.
            defer {
                if !streamed {
                    lock.lock()
                    spare = workspace
                    lock.unlock()
                }
            }
            return body(workspace)
        }
    }
}
