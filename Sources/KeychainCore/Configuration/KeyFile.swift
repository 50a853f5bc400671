import Glibc
import KeychainFoundation
import KeychainPlatform

/// Writing key files: a key in base64 and a newline, mode 0600, what `--key-file`,
/// KEYCHAINCTL_KEY_FILE and the default keychain's key file hold (`SecretFiles` reads them). A key
/// file is filled under a private temporary name and linked into place, so a reader never finds
/// half a key, of two writers one wins, and an existing file is never overwritten. It is written
/// through the descriptor that created it, never reopened by name, and only into a folder no other
/// user can change (`FileSafety.checkFolders`).
package enum KeyFile {
    /// A new random key, written to a new file at `path`.
    package static func writeNew(to path: String) throws -> KeychainCredential {
        let key = SecretBytes.random(count: KeyRing.keyBytes)
        try write(key, to: path)
        return .key(key)
    }

    /// Writes `key` to a new file at `path`, made durable; an existing file is unusable
    /// configuration (exit 78), left as it was.
    package static func write(_ key: SecretBytes, to path: String) throws {
        let text = key.base64()
        withUnsafeBytes(of: UInt8(0x0A)) { text.append($0) }
        let existing = ConfigurationError("cannot create key file \(path): it exists (an existing key file is never overwritten).")
        try FileSafety.checkFolders(of: path, what: "key file")
        try KeychainStore.publish(at: path, what: "key file", existing: existing) { _, fd in
            let written = text.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            guard written == text.count, fsync(fd) == 0 else {
                throw InputError("cannot write key file \(path): \(SystemError.text(errno)).")
            }
        }
    }

    /// The key in the file at `path` (`isNew` false), or a new one written there when there is
    /// none; a file another process wrote meanwhile is read rather than replaced.
    package static func existingOrNew(at path: String) throws -> (credential: KeychainCredential, isNew: Bool) {
        if access(path, F_OK) == 0 { return (try SecretFiles.key(fromFile: path), false) }
        do { return (try writeNew(to: path), true) } catch {
            guard access(path, F_OK) == 0 else { throw error }
            return (try SecretFiles.key(fromFile: path), false)
        }
    }
}
