import Foundation

/// Where a bundle keeps its ``MemoryIndex``: empty until the first best-fit lookup asks for it,
/// then built on a background thread while lookups go on answering from SQLite, then shared by
/// every lookup. Opening a bundle therefore stays cheap, and tools that never ask for a best fit
/// (verify, merge, inspect) never pay for the copy.
final class MemoryIndexSlot: @unchecked Sendable {
    private enum State {
        case off, idle, building, ready(MemoryIndex), unavailable
    }

    private let indexPath: String
    private let condition = NSCondition()
    private var state: State

    /// `enabled` false: the slot stays empty and every lookup uses SQLite.
    init(indexPath: String, enabled: Bool) {
        self.indexPath = indexPath
        state = enabled ? .idle : .off
    }

    /// The index if it is ready; otherwise `nil`, starting the build if nobody has yet.
    func index() -> MemoryIndex? {
        condition.lock()
        defer { condition.unlock() }
        switch state {
        case .ready(let index):
            return index
        case .idle:
            state = .building
            DispatchQueue.global(qos: .utility).async { self.build() }
            return nil
        case .off, .building, .unavailable:
            return nil
        }
    }

    /// Starts the build if needed and waits for it: the index, or `nil` if it is off or the index
    /// could not be read (lookups then report the problem from SQLite).
    func waitForIndex() -> MemoryIndex? {
        if let index = index() { return index }
        condition.lock()
        defer { condition.unlock() }
        while case .building = state { condition.wait() }
        if case .ready(let index) = state { return index }
        return nil
    }

    private func build() {
        let built = try? MemoryIndex.load(from: SQLiteConnection(path: indexPath, readOnly: true))
        condition.lock()
        state = built.map(State.ready) ?? .unavailable
        condition.broadcast()
        condition.unlock()
    }
}
