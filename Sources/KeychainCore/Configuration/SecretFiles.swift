import Glibc
import KeychainFoundation
import KeychainPlatform
import TextEscaping

/// Secrets read whole from descriptors and files into guarded memory, with a cap on what is read:
/// key files (checked as ssh checks a private key), passphrases and data files. The command line and
/// the `Security` library read key files through it alike.
package enum SecretFiles {
    /// Reads file descriptor `fd` to its end, or fails once more than `limit` bytes arrive (what
    /// was read is wiped as the buffer is released): an endless input costs at most `limit`.
    package static func readAll(fd: Int32, source: String, limit: Int) throws -> SecretBytes {
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

    /// Reads the file at `path` whole, up to `limit` bytes.
    package static func readFile(_ path: String, limit: Int) throws -> SecretBytes {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw InputError("cannot open \(path): \(SystemError.text(errno)).") }
        defer { close(fd) }
        return try readAll(fd: fd, source: path, limit: limit)
    }

    /// Reads a key file, refusing one that others could read or replace, as ssh refuses such a
    /// private key: it must be a regular file owned by this user (or root) with no group or other
    /// permission bits, reached through no symbolic link another user owns. Opened non-blocking, so
    /// a FIFO in its place is refused at once rather than waited on (as the cloud store's files are).
    package static func readKeyFile(_ path: String) throws -> SecretBytes {
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
                    + "run 'chmod 600 \(path.shellQuoted)'. Nothing was read.")
        }
        return try readAll(fd: fd, source: "key file \(path)", limit: InputLimits.keyFileBytes)
    }

    /// The key in the key file at `path`; a file that cannot be read or is no key file is
    /// unusable configuration (exit 78), naming the file.
    package static func key(fromFile path: String) throws -> KeychainCredential {
        let text: SecretBytes
        do { text = try SecretFiles.readKeyFile(path) } catch let error as InputError {
            throw ConfigurationError("cannot read the key file: \(error.description)")
        } catch is InputTooLarge {
            throw ConfigurationError(
                "\(path) is not a key file: longer than \(InputLimits.keyFileBytes) bytes (a key is 44 base64 characters).")
        }
        _ = KeyFile.dropUnlockedNote(text)
        return try KeychainCredential.key(base64: text, source: "key file \(path)")
    }

    /// `passphrase` when it is within `InputLimits.passphraseBytes` (a prompt line is capped as
    /// it is read).
    package static func capped(_ passphrase: SecretBytes, source: String) throws -> SecretBytes {
        guard passphrase.count <= InputLimits.passphraseBytes else {
            throw InputTooLarge(source: source, limit: InputLimits.passphraseBytes)
        }
        return passphrase
    }
}
