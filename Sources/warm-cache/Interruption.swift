import Foundation
import WarmCacheBuilder

/// Ctrl-C and SIGTERM while a command writes a bundle: the work is cancelled instead of the
/// process dying at once, so that it removes what it wrote (and its imaging processes) before it
/// exits with 128 + the signal's number (130 for SIGINT, 143 for SIGTERM).
///
/// A terminal sends SIGINT to the whole process group; the imaging processes die of it on their
/// own, and the cancelled run kills any left by pid. A second signal ends the process at once
/// (the next run cleans up what this one left).
final class Interruption: @unchecked Sendable {
    private struct State {
        var signal: Int32?
        var cancel: (@Sendable () -> Void)?
    }

    private static let signals: [Int32] = [SIGINT, SIGTERM]
    private let state = Locked(State())
    private var sources: [DispatchSourceSignal] = []

    /// Starts catching SIGINT and SIGTERM, until ``end()``.
    init() {
        for number in Self.signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in self?.receive(number) }
            source.resume()
            sources.append(source)
        }
    }

    /// The signal that interrupted the work, if one did.
    var received: Int32? { state.withLock { $0.signal } }

    /// The exit status for the signal received: 128 + its number.
    var exitStatus: Int32 { 128 + (received ?? SIGINT) }

    /// Runs `body` in a task that SIGINT or SIGTERM cancels.
    func run<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let task = Task { try await body() }
        let alreadyReceived = state.withLock { state in
            state.cancel = { task.cancel() }
            return state.signal != nil
        }
        if alreadyReceived { task.cancel() }
        return try await task.value
    }

    /// Stops catching the signals: from here on they end the process as usual.
    func end() {
        for source in sources { source.cancel() }
        sources.removeAll()
        for number in Self.signals { signal(number, SIG_DFL) }
    }

    private func receive(_ number: Int32) {
        let (first, cancel) = state.withLock { state in
            let first = state.signal == nil
            if first { state.signal = number }
            return (first, state.cancel)
        }
        guard first else {
            Console.error("interrupted again: stopped at once; the next run removes what this one left")
            exit(128 + number)
        }
        cancel?()
    }
}
