import CTerminal
import Glibc
import KeychainCore

/// Reading secrets (item data and passphrases) into guarded memory, never through argv unless the
/// user insists with `-w`.
enum SecretReader {
    /// Reads file descriptor `fd` to its end, or fails once more than `limit` bytes arrive (what
    /// was read is wiped as the buffer is released): an endless input costs at most `limit`.
    static func readAll(fd: Int32, source: String, limit: Int) throws -> SecretBytes {
        let secret = SecretBytes(count: 0)
        while true {
            // Fill what the buffer has spare before growing it (doubling, 64 KiB at most per step):
            // a 12-byte secret takes one small pooled slot, not two 64 KiB locked regions.
            let room = limit + 1 - secret.count
            let spare = secret.spareCapacity
            let chunk = min(room, spare > 0 ? spare : min(65_536, max(256, secret.count)))
            let got = secret.appendFilling(maximum: chunk) { Glibc.read(fd, $0, $1) }
            if got < 0 {
                if errno == EINTR { continue }
                throw InputError("cannot read \(source): \(SystemError.text(errno)).")
            }
            if got == 0 { break }
            if secret.count > limit { throw InputTooLarge(source: source, limit: limit) }
        }
        return secret
    }

    /// Closes a credential descriptor once read; one of 0, 1 or 2 stays open (closing it would let
    /// the next file opened take its place) but is closed on exec.
    static func retire(fd: Int32) {
        if fd > 2 {
            close(fd)
        } else {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
    }

    /// Reads the file at `path` whole, up to `limit` bytes.
    static func readFile(_ path: String, limit: Int) throws -> SecretBytes {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw InputError("cannot open \(path): \(SystemError.text(errno)).") }
        defer { close(fd) }
        return try readAll(fd: fd, source: path, limit: limit)
    }

    /// Reads a key file, refusing one that others could read or replace, as ssh refuses such a
    /// private key: it must be a regular file owned by this user (or root) with no group or other
    /// permission bits, reached through no symbolic link another user owns. Opened non-blocking, so
    /// a FIFO in its place is refused at once rather than waited on (as the cloud store's files are).
    static func readKeyFile(_ path: String) throws -> SecretBytes {
        try FileSafety.checkLinks(path, what: "key file")
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else { throw InputError("cannot open \(path): \(SystemError.text(errno)).") }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw InputError("cannot examine \(path): \(SystemError.text(errno)).") }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw ConfigurationError("key file \(path) is not a regular file.")
        }
        guard status.st_uid == geteuid() || status.st_uid == 0 else {
            throw ConfigurationError("key file \(path) belongs to another user (uid \(status.st_uid)); a key must be your own.")
        }
        guard status.st_mode & 0o077 == 0 else {
            throw ConfigurationError(
                "key file \(path) is accessible by group or others (mode \(String(status.st_mode & 0o777, radix: 8))); "
                    + "run 'chmod 600 \(path)'. Nothing was read.")
        }
        return try readAll(fd: fd, source: "key file \(path)", limit: InputLimits.keyFileBytes)
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
        guard cterminal_echo_off(fd) == 0 else {
            throw InputError("cannot turn off echo on the terminal (\(SystemError.text(errno))); nothing was read.")
        }
        var restored = false
        defer {
            if !restored { _ = cterminal_echo_restore() }
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
        guard cterminal_echo_restore() == 0 else {
            throw InputError("cannot turn echo back on (\(SystemError.text(errno))); run 'stty echo'.")
        }
        return secret
    }
}
