import Glibc
import KeychainPlatform

/// Creating a keychain file, safely against other processes doing the same at the same moment.
extension KeychainStore {
    /// Creates a keychain at `path` whose key check is `keyCheck`. The file is built under a
    /// private temporary name and then hard-linked into place, so no process ever sees a half-made
    /// keychain, and of several creators exactly one wins; an existing file is never overwritten.
    package static func create(
        at path: String, keychainID: [UInt8], keyCheck: [UInt8], passphrase: PassphraseKDF?, wrappedClassKeys: [String: [UInt8]],
        deviceRecord: [UInt8]
    ) throws {
        try publish(
            at: path, what: "keychain",
            existing: KeychainError(
                .duplicateKeychain, hint: "a keychain already exists at \(path); keychainctl init never overwrites one.")
        ) { temporary in
            let connection = try SQLiteConnection(path: temporary, create: false)
            try connection.execute("PRAGMA journal_mode = WAL")
            try connection.writeTransaction {
                for sql in KeychainSchema.createStatements { try connection.execute(sql) }
                try connection.prepare("INSERT INTO schema_version VALUES (?)").run([.integer(Int64(schemaVersion))])
                var meta: [(String, [UInt8])] = [("key_check", keyCheck), ("keychain_id", keychainID), ("device", deviceRecord)]
                if let passphrase { meta.append(("kdf", passphrase.record)) }
                try writeMeta(connection, meta)
                try writeClassKeys(connection, wrappedClassKeys)
            }
        }
    }

    /// Makes a new file at `path` as `build` fills it: under a private temporary name (mode 0600),
    /// then hard-linked into place, so no process ever sees it half-made, of several makers exactly
    /// one wins, and an existing file is never overwritten (`existing` is thrown). The parent
    /// folders are made (mode 0700); a link in the way is refused (`what` names the file).
    package static func publish(at path: String, what: String, existing: any Error, _ build: (String) throws -> Void) throws {
        try FileSafety.checkLinks(path, what: what)
        try Folders.makeParents(of: path)
        let temporary = "\(path).creating-\(getpid())-\(Base64.encode(Sodium.randomBytes(6)).replacingBytes("/", with: "_"))"
        let fd = open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StoreError("cannot create \(temporary): \(SystemError.text(errno))") }
        close(fd)
        defer {
            unlink(temporary)
            unlink(temporary + "-wal")
            unlink(temporary + "-shm")
        }
        try build(temporary)
        guard link(temporary, path) == 0 else {
            if errno == EEXIST { throw existing }
            throw StoreError("cannot create \(path): \(SystemError.text(errno))")
        }
        Folders.syncParent(of: path)
    }

    /// Inserts or replaces keychain_meta entries.
    package static func writeMeta(_ connection: SQLiteConnection, _ entries: [(String, [UInt8])]) throws(StoreError) {
        let statement = try connection.prepare("INSERT OR REPLACE INTO keychain_meta VALUES (?, ?)")
        for (name, value) in entries { try statement.run([.text(name), .blob(value)]) }
    }

    /// Inserts or replaces the wrapped class keys.
    package static func writeClassKeys(_ connection: SQLiteConnection, _ wrapped: [String: [UInt8]]) throws(StoreError) {
        let statement = try connection.prepare("INSERT OR REPLACE INTO class_keys VALUES (?, ?)")
        for (pdmn, key) in wrapped.sorted(by: { $0.key < $1.key }) { try statement.run([.text(pdmn), .blob(key)]) }
    }
}
