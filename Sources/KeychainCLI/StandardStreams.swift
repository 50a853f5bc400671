import Glibc
import KeychainCore

/// Writing to stdout and stderr as bytes, and what a terminal is.
enum StandardStreams {
    /// Writes `text` to standard output.
    static func out(_ text: String) { write(fd: 1, Array(text.utf8)) }

    /// Writes `text` to standard error.
    static func err(_ text: String) { write(fd: 2, Array(text.utf8)) }

    /// A warning on stderr: `keychainctl: warning: …`.
    static func warn(_ text: String) { err("keychainctl: warning: \(text)\n") }

    /// Writes secret bytes to standard output straight from guarded memory.
    static func out(secret: SecretBytes) {
        secret.withUnsafeBytes { buffer in
            write(fd: 1, UnsafeRawBufferPointer(buffer))
        }
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
                return
            }
            offset += written
        }
    }
}
