/// Creating a keychain file, safely against other processes doing the same at the same moment.
extension KeychainStore {
    /// Creates a keychain at `path` whose key check is `keyCheck`. The database is built in memory
    /// and written as a new file whole (`NewFile`): no process ever sees a half-made keychain, of
    /// several creators exactly one wins, an existing file is never overwritten, and a creator
    /// stopped at any step leaves nothing. `beforeNaming` runs once the file is written and just
    /// before it is named (where a key file written beside it is named).
    package static func create(
        at path: String, keychainID: [UInt8], keyCheck: [UInt8], passphrase: PassphraseKDF?, wrappedClassKeys: [String: [UInt8]],
        deviceRecord: [UInt8], beforeNaming: () throws -> Void = {}
    ) throws {
        let connection = try SQLiteConnection.inMemory()
        try connection.writeTransaction {
            for sql in KeychainSchema.createStatements { try connection.execute(sql) }
            try connection.prepare("INSERT INTO schema_version VALUES (?)").run([.integer(Int64(schemaVersion))])
            var meta: [(String, [UInt8])] = [("key_check", keyCheck), ("keychain_id", keychainID), ("device", deviceRecord)]
            if let passphrase { meta.append(("kdf", passphrase.record)) }
            try writeMeta(connection, meta)
            try writeClassKeys(connection, wrappedClassKeys)
        }
        let file = try newFile(connection, at: path, what: "keychain")
        try beforeNaming()
        try file.create(
            existing: KeychainError(
                .duplicateKeychain, hint: "a keychain already exists at \(path); keychainctl init never overwrites one."))
    }

    /// The in-memory database `connection` holds, written as a new file for `path` (`NewFile`, not
    /// yet named), in WAL mode, as every keychain file is.
    package static func newFile(_ connection: SQLiteConnection, at path: String, what: String) throws -> NewFile {
        var image = try connection.serialized()
        // Header bytes 18 and 19 are the file format's write and read versions: 1 for a rollback
        // journal, 2 for WAL (SQLite's file format, "File format version numbers"). They are what
        // `PRAGMA journal_mode = WAL` writes, which a database in memory cannot.
        guard image.count >= 100 else { throw StoreError("cannot write \(path): SQLite gave no database image") }
        image[18] = 2
        image[19] = 2
        return try NewFile(path, what: what) { fd in
            guard image.withUnsafeBytes({ FileBytes.writeAll(fd, $0) }) else { throw NewFile.writeFailure(path) }
        }
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
