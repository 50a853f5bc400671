import Glibc
import KeychainFoundation
import KeychainPlatform

/// Writing key files: a key in base64 and a newline, mode 0600, what `--key-file`,
/// KEYCHAINCTL_KEY_FILE and the default keychain's key file hold (`SecretFiles` reads them). A key
/// file is filled under a private temporary name and linked into place, so a reader never finds
/// half a key, of two writers one wins, an existing file is never overwritten, and a writer stopped
/// at any step leaves no file (`NewFile`). It is written
/// through the descriptor that created it, never reopened by name, and only into a folder no other
/// user can change (`FileSafety.checkFolders`).
package enum KeyFile {
    /// The line `unlock --to-key-file` writes after the key: such a file is a key unlocked for a
    /// while, as one cached in the keyring is, and `lock` and `exec --lock` remove it.
    package static let unlockedNote = "# written by 'keychainctl unlock --to-key-file': 'keychainctl lock' removes it\n"

    /// Drops `unlockedNote` from a key file's `text` when it follows the key's line: whether it did.
    package static func dropUnlockedNote(_ text: SecretBytes) -> Bool {
        let note = Array(unlockedNote.utf8)
        return text.withUnsafeBytes { bytes -> Int? in
            guard let newline = bytes.firstIndex(of: 0x0A), bytes.count - newline - 1 == note.count,
                bytes[(newline + 1)...].elementsEqual(note)
            else { return nil }
            return newline + 1
        }.map { text.truncate(to: $0) } != nil
    }

    /// Whether the key file at `path` is one `unlock --to-key-file` wrote (`lock` removes it).
    package static func isUnlocked(_ path: String) -> Bool {
        guard let text = try? SecretFiles.readKeyFile(path) else { return false }
        return dropUnlockedNote(text)
    }

    /// A new random key, written to a new file at `path`.
    package static func writeNew(to path: String) throws -> KeychainCredential {
        let key = SecretBytes.random(count: KeyRing.keyBytes)
        try write(key, to: path)
        return .key(key)
    }

    /// Writes `key` to a new file at `path`, made durable; an existing file is unusable
    /// configuration (exit 78), left as it was.
    package static func write(_ key: SecretBytes, to path: String, unlocked: Bool = false) throws {
        try prepare(key, at: path, unlocked: unlocked).create(existing: exists(path))
    }

    /// A new random key, written for `path` but not yet named there (`NewFile`): `init` names it
    /// just before the keychain it opens, so that neither is there without the other.
    package static func prepareNew(at path: String) throws -> (file: NewFile, credential: KeychainCredential) {
        let key = SecretBytes.random(count: KeyRing.keyBytes)
        return (try prepare(key, at: path), .key(key))
    }

    /// What naming a key file over an existing one throws (exit 78).
    package static func exists(_ path: String) -> ConfigurationError {
        ConfigurationError("cannot create key file \(path): it exists (an existing key file is never overwritten).")
    }

    private static func prepare(_ key: SecretBytes, at path: String, unlocked: Bool = false) throws -> NewFile {
        let text = key.base64()
        withUnsafeBytes(of: UInt8(0x0A)) { text.append($0) }
        if unlocked { Array(unlockedNote.utf8).withUnsafeBytes { text.append($0) } }
        try FileSafety.checkFolders(of: path, what: "key file")
        return try NewFile(path, what: "key file") { fd in
            guard text.withUnsafeBytes({ FileBytes.writeAll(fd, $0) }) else { throw NewFile.writeFailure("key file " + path) }
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
