import Foundation

/// Flushes new blobs to disk in the background while a run goes on, so that its commit has
/// little left to flush before it may publish the index.
///
/// Before the index is renamed into place, every blob it names, and the folder entry naming
/// it, must be on disk. Flushed one by one at the commit, the 180 blobs of 18 photos (ten
/// variants each) held it up ~40 ms on this project's 2-core CI machines, with both cores idle.
/// Flushed as they are stored, on this flusher's thread, they cost the run next to nothing:
/// a flush waits for the disk, not for a core, and the cores are busy rendering.
///
/// The flusher takes at most `limit` blobs. Past that many, the commit flushes the whole file
/// system at once (``DurableFile/flushFileSystem(containing:)``), which is cheaper than a flush
/// per blob, so flushing them early would only add work.
final class BlobFlusher: Sendable {
    /// How many blobs a flusher takes at most.
    let limit: Int
    private let queue = DispatchQueue(label: "warm-cache blob flusher")
    private let state = Locked(State())

    private struct State {
        var taken = 0
        var stopped = false
        var flushed: Set<String> = []
    }

    init(limit: Int) {
        self.limit = limit
    }

    /// Flushes the blob at `path`, already renamed into its folder, and that folder, soon.
    /// Does nothing once the flusher has taken `limit` blobs or was stopped.
    func flushSoon(_ path: String) {
        let taken = state.withLock { state -> Bool in
            guard !state.stopped, state.taken < limit else { return false }
            state.taken += 1
            return true
        }
        guard taken else { return }
        queue.async { [state] in
            // A blob that cannot be flushed now is flushed (or its error reported) by the commit.
            guard (try? DurableFile.sync(URL(fileURLWithPath: path))) != nil else { return }
            DurableFile.syncDirectory(URL(fileURLWithPath: (path as NSString).deletingLastPathComponent))
            state.withLock { _ = $0.flushed.insert(path) }
        }
    }

    /// Stops taking blobs, waits for the flushes of those taken (the commit would make them
    /// itself), and returns the paths of the blobs that are on disk with their folder entries.
    /// The others are the caller's to flush.
    func stop() -> Set<String> {
        state.withLock { $0.stopped = true }
        queue.sync {}
        return state.withLock { $0.flushed }
    }
}
