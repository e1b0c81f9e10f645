// Memory for SSIMULACRA 2's prepared planes (see SSIMULACRA2.swift for the reference and its
// licence).

import Foundation

extension SSIMULACRA2 {
    /// Float memory that goes back to a small process-wide pool when it is released, for the next
    /// reference to use.
    ///
    /// A warm prepares a reference per size of every source, smallest first, each larger than the
    /// last, so memory freed by one is too small for the next and the allocator takes fresh pages
    /// from the system, which the kernel must clear: half the page faults of a JPEG
    /// `quality: auto` warm of photos, and 7 % of its CPU. Pages kept here are already mapped. The pool keeps the
    /// ``keptBuffers`` largest buffers released of at most ``keptBufferBytes`` each (one reference
    /// is alive at a time, so that bounds the memory to a few small references' worth) and hands
    /// out the smallest that fits. Larger buffers go back to the system: an imaging process that
    /// scored a hero then waits at its idle size, and a large image's few faults cost nothing
    /// beside its encodes.
    final class PlaneBuffer: @unchecked Sendable {
        let pointer: UnsafeMutablePointer<Float>
        private let capacity: Int

        /// Floats for `count` values, not initialised.
        init(count: Int) {
            (pointer, capacity) = Self.pool.take(max(1, count))
        }

        deinit { Self.pool.give(pointer, capacity: capacity) }

        /// Buffers the pool keeps at most.
        static let keptBuffers = 2
        /// The largest buffer the pool keeps: a prepared original's planes at most
        /// (``SSIMULACRA2Reference/preparedByteLimit``), or a score's scratch memory for an image
        /// of about 1.3 megapixels.
        static let keptBufferBytes = SSIMULACRA2Reference.preparedByteLimit

        private static let pool = Pool()

        private final class Pool: @unchecked Sendable {
            private let lock = NSLock()
            private var free: [(pointer: UnsafeMutablePointer<Float>, capacity: Int)] = []

            func take(_ count: Int) -> (UnsafeMutablePointer<Float>, Int) {
                lock.lock()
                defer { lock.unlock() }
                var best: Int?
                for index in free.indices where free[index].capacity >= count {
                    if best.map({ free[index].capacity < free[$0].capacity }) ?? true { best = index }
                }
                if let best { return free.remove(at: best) }
                return (.allocate(capacity: count), count)
            }

            func give(_ pointer: UnsafeMutablePointer<Float>, capacity: Int) {
                guard capacity * MemoryLayout<Float>.size <= PlaneBuffer.keptBufferBytes else {
                    pointer.deallocate()
                    return
                }
                lock.lock()
                free.append((pointer, capacity))
                var dropped: UnsafeMutablePointer<Float>?
                if free.count > PlaneBuffer.keptBuffers, let smallest = free.indices.min(by: {
                    free[$0].capacity < free[$1].capacity
                }) {
                    dropped = free.remove(at: smallest).pointer
                }
                lock.unlock()
                dropped?.deallocate()
            }
        }
    }
}
