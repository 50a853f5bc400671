import Glibc
import KeychainCore
import KeychainPlatform
import TextEscaping

/// Writing to stdout and stderr as bytes, and what a terminal is.
///
/// Every write is checked: a stream that fails (a full disk, `/dev/full`, a closed descriptor) is
/// remembered, and `finish` turns a run that would have exited 0 into exit 74, so that a script
/// never takes an empty or cut-off secret for a good one.
enum StandardStreams {
    /// The first failed write: which stream and its errno. The CLI is single-threaded.
    nonisolated(unsafe) private static var failure: (fd: Int32, errno: Int32)?
    /// Writes `text` to standard output.
    static func out(_ text: String) { write(fd: 1, Array(text.utf8)) }

    /// Writes `text` to standard error.
    static func err(_ text: String) { write(fd: 2, Array(text.utf8)) }

    /// A warning on stderr: `keychainctl: warning: …`.
    static func warn(_ text: String) { err("keychainctl: warning: \(text.linesTerminalSafe)\n") }

    /// A note on standard error: what the user may want to know, not a fault.
    static func note(_ text: String) { err("keychainctl: note: \(text.linesTerminalSafe)\n") }

    /// Writes secret bytes to standard output (or `fd`) straight from guarded memory.
    static func out(secret: SecretBytes, fd: Int32 = 1) {
        secret.withUnsafeBytes { buffer in
            write(fd: fd, UnsafeRawBufferPointer(buffer))
        }
    }

    /// Whether file descriptor `fd` is a regular file (a log, an env file) rather than a pipe or a terminal.
    static func isRegularFile(_ fd: Int32) -> Bool {
        var status = stat()
        return fstat(fd, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
    }

    /// Writes `output` to standard output, secrets straight from guarded memory.
    static func out(_ output: Output) {
        for piece in output.pieces {
            switch piece {
            case .text(let text): out(text)
            case .secret(let secret): out(secret: secret)
            }
        }
    }

    /// Whether file descriptor `fd` is a terminal.
    static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    private static func write(fd: Int32, _ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write(fd: fd, $0) }
    }

    private static func write(fd: Int32, _ buffer: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < buffer.count {
            let written = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                if failure == nil { failure = (fd, errno) }
                return
            }
            offset += written
        }
    }

    /// The exit status once everything is written: stdout is closed (which reports a write the
    /// kernel deferred), and a failed write to either stream makes a successful run exit 74.
    static func finish(_ status: Int32) -> Int32 {
        if close(1) != 0, errno != EBADF, failure == nil { failure = (1, errno) }
        guard let failure else { return status }
        let stream = failure.fd == 1 ? "standard output" : "standard error"
        err("keychainctl: cannot write to \(stream): \(SystemError.text(failure.errno)); the output is incomplete.\n")
        return status == 0 ? 74 : status
    }
}
