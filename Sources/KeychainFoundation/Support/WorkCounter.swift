import Synchronization

/// A count of some work (keys derived, a chain's steps), kept by the code doing it in a
/// `@TaskLocal` of its own for the task that binds a counter: a test bounds work by it rather than
/// by the clock of a busy machine, and counts only its own while other tests run in parallel.
package final class WorkCounter: Sendable {
    private let count = Atomic<Int>(0)

    package init() {}

    /// The work counted so far.
    package var value: Int { count.load(ordering: .relaxed) }

    /// Counts one more.
    package func add() { count.add(1, ordering: .relaxed) }
}
