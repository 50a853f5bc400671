import Glibc
import KeychainCore

/// Reading secrets (item data and passphrases) into guarded memory, never through argv unless the
/// user insists with `-w`.
enum SecretReader {
    /// Reads file descriptor `fd` to its end.
    static func readAll(fd: Int32, source: String) throws -> SecretBytes {
        let secret = SecretBytes(count: 0)
        while true {
            let got = secret.appendFilling(maximum: 4096) { Glibc.read(fd, $0, $1) }
            if got < 0 {
                if errno == EINTR { continue }
                throw InputError("cannot read \(source): \(String(cString: strerror(errno))).")
            }
            if got == 0 { break }
        }
        return secret
    }

    /// Reads the file at `path` whole.
    static func readFile(_ path: String) throws -> SecretBytes {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw InputError("cannot open \(path): \(String(cString: strerror(errno))).") }
        defer { close(fd) }
        return try readAll(fd: fd, source: path)
    }

    /// Prompts on the terminal with echo off and reads one line (without its newline).
    static func prompt(_ text: String) throws -> SecretBytes {
        let fd = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw InputError("no terminal to prompt on.") }
        defer { close(fd) }
        var saved = termios()
        tcgetattr(fd, &saved)
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(fd, TCSAFLUSH, &silent)
        defer {
            tcsetattr(fd, TCSAFLUSH, &saved)
            _ = Glibc.write(fd, "\n", 1)
        }
        _ = text.withCString { Glibc.write(fd, $0, strlen($0)) }
        let secret = SecretBytes(count: 0)
        var byte: UInt8 = 0
        while Glibc.read(fd, &byte, 1) == 1, byte != 0x0A {
            withUnsafeBytes(of: &byte) { secret.append($0) }
        }
        byte = 0
        return secret
    }
}

/// Input that cannot be read (a data file, standard input): exit 74, like other I/O.
struct InputError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
