import Glibc
import KeychainCore
import KeychainPlatform

/// Reading secrets (item data and passphrases) into guarded memory, never through argv unless the
/// user insists with `-w`.
enum SecretReader {
    /// Closes a credential descriptor once read; one of 0, 1 or 2 stays open (closing it would let
    /// the next file opened take its place) but is closed on exec.
    static func retire(fd: Int32) {
        if fd > 2 {
            close(fd)
        } else {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
    }

    /// Prompts on the terminal with echo off and reads one line (without its newline), at most
    /// `limit` bytes. Echo comes back when the line is read, when reading fails, and on any signal
    /// that ends or stops the process (CTerminal). Nothing typed ahead is discarded: a passphrase
    /// and a secret pasted together are read by their two prompts, and since every prompt of a
    /// command comes before the slow key derivation, nothing is typed while echo is back on.
    static func prompt(_ text: String, limit: Int) throws -> SecretBytes {
        let fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { throw InputError("no terminal to prompt on.") }
        defer { close(fd) }
        guard Terminal.echoOff(fd) else {
            throw InputError("cannot turn off echo on the terminal (\(SystemError.text(errno))); nothing was read.")
        }
        var restored = false
        defer {
            if !restored { _ = Terminal.restoreEcho() }
            _ = Glibc.write(fd, "\n", 1)
        }
        _ = text.withCString { Glibc.write(fd, $0, strlen($0)) }
        let secret = SecretBytes(count: 0)
        var byte: UInt8 = 0
        defer { byte = 0 }
        while true {
            let got = Glibc.read(fd, &byte, 1)
            if got < 0 {
                if errno == EINTR { continue }
                throw InputError("cannot read from the terminal: \(SystemError.text(errno)).")
            }
            if got == 0 || byte == 0x0A { break }
            guard secret.count < limit else { throw InputTooLarge(source: "the typed line", limit: limit) }
            withUnsafeBytes(of: &byte) { secret.append($0) }
        }
        restored = true
        guard Terminal.restoreEcho() else {
            throw InputError("cannot turn echo back on (\(SystemError.text(errno))); run 'stty echo'.")
        }
        return secret
    }
}
