/// The file-level half of an upgrade from schema version 1 (rows are re-sealed by `Keychain`,
/// which holds the keys, inside the same transaction).
extension KeychainStore {
    /// The schema version as it is now, read inside the caller's transaction (another process may
    /// have upgraded the file since it was opened).
    package func currentVersion() throws(StoreError) -> Int { try KeychainSchema.readVersion(connection) }

    /// Writes version 2's unlocking material in place of version 1's and sets the version.
    package func writeVersion2(keychainID: [UInt8], keyCheck: [UInt8], passphrase: PassphraseKDF?, wrappedClassKeys: [String: [UInt8]])
        throws(StoreError)
    {
        try connection.execute("DELETE FROM keychain_meta WHERE name IN ('kdf_salt', 'kdf_ops', 'kdf_mem')")
        var meta: [(String, [UInt8])] = [("key_check", keyCheck), ("keychain_id", keychainID)]
        if let passphrase { meta.append(("kdf", passphrase.record)) }
        try Self.writeMeta(connection, meta)
        try Self.writeClassKeys(connection, wrappedClassKeys)
        try connection.execute("UPDATE schema_version SET version = 2")
    }
}

/// A new keychain key (`rekey`): every piece of unlocking material replaced in the caller's transaction.
extension KeychainStore {
    /// Replaces the key check, the passphrase record (removed for a key-file keychain), every
    /// wrapped class key and the sealed device state.
    package func writeRekey(keyCheck: [UInt8], passphrase: PassphraseKDF?, wrappedClassKeys: [String: [UInt8]], deviceRecord: [UInt8])
        throws(StoreError)
    {
        try connection.execute("DELETE FROM keychain_meta WHERE name = 'kdf'")
        try connection.execute("DELETE FROM class_keys")
        var meta: [(String, [UInt8])] = [("key_check", keyCheck), ("device", deviceRecord)]
        if let passphrase { meta.append(("kdf", passphrase.record)) }
        try Self.writeMeta(connection, meta)
        try Self.writeClassKeys(connection, wrappedClassKeys)
    }
}

/// The device state (schema version 3) and the item tables' later layouts (`TableLayout`).
extension KeychainStore {
    /// Adds the sealed device state to a version-2 file whose tables already have their `accc`
    /// column, and makes it the current version.
    package func writeDeviceVersion(deviceRecord: [UInt8]) throws(StoreError) {
        try writeDevice(deviceRecord)
        try connection.execute("UPDATE schema_version SET version = \(Self.schemaVersion)")
    }

    /// Rebuilds every item table of an older layout in the current one, each new column filled as
    /// its layout says (`TableLayout.addedColumns`). A file at the schema version just before the
    /// current layout's first becomes the current version; earlier ones keep their number for the
    /// steps that follow. Returns `false` when another process did it first.
    ///
    /// Each table is renamed aside, the new one created exactly as `init` creates it and filled,
    /// and the old one dropped, in `init`'s order: the objects end up stored in the same order as a
    /// new file's, so the schema check keeps its fast path.
    package func upgradeTables() throws -> Bool {
        try write { () throws -> Bool in
            let layout = try KeychainSchema.verify(connection)
            guard layout < .current else { return false }
            for itemClass in ItemClass.stored {
                let name = itemClass.rawValue
                try connection.execute("ALTER TABLE \(name) RENAME TO \(name)_before_upgrade")
                for sql in table(itemClass).createStatements(layout: layout).dropFirst() {
                    try connection.execute("DROP INDEX \(sql.split(separator: " ")[2])")
                }
            }
            for itemClass in ItemClass.stored {
                let name = itemClass.rawValue
                for sql in table(itemClass).createStatements() { try connection.execute(sql) }
                let columns = table(itemClass).columns.map(\.name)
                let source = columns.map { layout.source(of: $0) }
                try connection.execute(
                    "INSERT INTO \(name) (\(columns.joined(separator: ", "))) SELECT \(source.joined(separator: ", ")) FROM \(name)_before_upgrade"
                )
                try connection.execute("DROP TABLE \(name)_before_upgrade")
            }
            try connection.execute(
                "UPDATE schema_version SET version = \(Self.schemaVersion) WHERE version = \(TableLayout.current.firstSchemaVersion - 1)")
            return true
        }
    }

    /// The sealed device state as the file holds it now (`nil` before version 3).
    package func deviceRecord() throws(StoreError) -> [UInt8]? { try KeychainSchema.readMeta(connection)["device"] }

    /// The sealed sync state (`nil` before the first sync).
    package func syncStateRecord() throws(StoreError) -> [UInt8]? { try KeychainSchema.readSyncState(connection) }

    /// Replaces the sealed sync state; a version-4 file becomes version 5, which may hold one.
    package func writeSyncState(_ record: [UInt8]) throws(StoreError) {
        try Self.writeMeta(connection, [("sync_state", record)])
        try connection.execute("UPDATE schema_version SET version = \(Self.schemaVersion) WHERE version = 4")
    }

    /// Replaces the sealed device state.
    package func writeDevice(_ record: [UInt8]) throws(StoreError) { try Self.writeMeta(connection, [("device", record)]) }

    /// Stores (or replaces) the wrapped class key of `pdmn`.
    package func writeClassKey(_ pdmn: String, _ wrapped: [UInt8]) throws(StoreError) {
        try Self.writeClassKeys(connection, [pdmn: wrapped])
    }

    /// Removes the wrapped class key of `pdmn`: its items can never be opened again.
    package func deleteClassKey(_ pdmn: String) throws(StoreError) {
        try connection.prepare("DELETE FROM class_keys WHERE pdmn = ?").run([.text(pdmn)])
    }
}

/// Whole-file checks.
extension KeychainStore {
    /// SQLite's `PRAGMA integrity_check`: its complaints, none when the file's structure is sound.
    package func integrityCheck() throws(StoreError) -> [String] {
        let statement = try connection.prepare("PRAGMA integrity_check")
        var messages: [String] = []
        while try statement.step() {
            let message = statement.text(0)
            if message != "ok" { messages.append(message) }
        }
        return messages
    }
}
