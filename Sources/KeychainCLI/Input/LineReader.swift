import Glibc
import KeychainCore
import KeychainPlatform

/// Lines of a file descriptor, one at a time, in guarded memory (an import's lines hold secrets):
/// a stream of any length costs one line's worth of memory, and a line over `limit` is an error.
final class LineReader {
    private let fd: Int32
    private let source: String
    private let limit: Int
    private var buffer = SecretBytes(count: 0)
    private var start = 0
    /// How far past `start` is known to hold no LF (a long line is scanned once, not per read).
    private var scanned = 0
    private var ended = false
    /// The 1-based number of the last line handed over.
    private(set) var lineNumber = 0

    init(fd: Int32, source: String, limit: Int) {
        self.fd = fd
        self.source = source
        self.limit = limit
    }

    /// The next line without its LF (or CRLF), or `nil` at the end.
    func next() throws -> SecretBytes? {
        while true {
            let found = buffer.withUnsafeBytes { bytes in bytes[max(start, scanned)...].firstIndex(of: 0x0A) }
            if let end = found {
                lineNumber += 1
                let line = buffer.withUnsafeBytes { bytes in
                    let stop = end > start && bytes[end - 1] == 0x0D ? end - 1 : end
                    return SecretBytes(copying: UnsafeRawBufferPointer(rebasing: bytes[start..<stop]))
                }
                start = end + 1
                scanned = start
                return line
            }
            scanned = buffer.count
            if ended {
                guard buffer.count > start else { return nil }
                lineNumber += 1
                let line = buffer.withUnsafeBytes { SecretBytes(copying: UnsafeRawBufferPointer(rebasing: $0[start...])) }
                start = buffer.count
                return line
            }
            guard buffer.count - start <= limit else {
                throw InputTooLarge(source: "\(source), line \(lineNumber + 1)", limit: limit)
            }
            compact()
            let got = buffer.appendFilling(maximum: 65_536) { Glibc.read(fd, $0, $1) }
            if got < 0 {
                if errno == EINTR { continue }
                throw InputError("cannot read \(source): \(SystemError.text(errno)).")
            }
            if got == 0 { ended = true }
        }
    }

    /// Drops the lines already handed over, so the buffer holds at most one line and a chunk.
    private func compact() {
        guard start > 0 else { return }
        let rest = buffer.withUnsafeBytes { SecretBytes(copying: UnsafeRawBufferPointer(rebasing: $0[start...])) }
        buffer = rest
        scanned -= start
        start = 0
    }
}
