import Glibc

/// A count that keeps one line of stderr up to date while a long command runs (`import`,
/// `rekey`), only when stderr is a terminal, at most ten times a second; `finish` clears it. A
/// script or a CI log sees nothing.
final class ProgressLine {
    private let label: String
    private let shown: Bool
    private var count = 0
    private var drawn = false
    private var last = timespec()

    init(_ label: String) {
        self.label = label
        shown = StandardStreams.isTerminal(2)
    }

    /// One more item done.
    func advance() {
        count += 1
        guard shown else { return }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        guard (now.tv_sec - last.tv_sec) * 1000 + (now.tv_nsec - last.tv_nsec) / 1_000_000 >= 100 else { return }
        last = now
        drawn = true
        StandardStreams.err("\r\(label): \(count) item\(count == 1 ? "" : "s")")
    }

    /// Clears the line, once (the command's own report follows).
    func finish() {
        if drawn { StandardStreams.err("\r\u{1B}[K") }
        drawn = false
    }
}
