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

/// The device state (schema version 3).
extension KeychainStore {
    /// Adds the sealed device state to a version-2 file and makes it version 3.
    package func writeVersion3(deviceRecord: [UInt8]) throws(StoreError) {
        try writeDevice(deviceRecord)
        try connection.execute("UPDATE schema_version SET version = 3")
    }

    /// The sealed device state as the file holds it now (`nil` before version 3).
    package func deviceRecord() throws(StoreError) -> [UInt8]? { try KeychainSchema.readMeta(connection)["device"] }

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
