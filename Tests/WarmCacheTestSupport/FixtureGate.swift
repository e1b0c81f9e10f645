import Foundation

/// Holds back the responses of a ``FixtureRoute/held(_:_:)`` route until the test opens it.
///
/// A test that needs a request "still in flight" while it does something else opens the gate
/// when it is done, instead of betting on a fixed delay that a busy machine can outlast.
public final class FixtureGate: Sendable {
    private let state = Locked(false)

    public init() {}

    /// Lets every held response (and every later one) go.
    public func open() {
        state.withLock { $0 = true }
    }

    public var isOpen: Bool {
        state.withLock { $0 }
    }
}
