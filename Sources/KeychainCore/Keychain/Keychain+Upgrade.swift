import CSQLite

/// Upgrading a schema-version-1 keychain in place: the first command that opens one with its key
/// does it, in one `BEGIN IMMEDIATE` transaction. The tables keep their shape; the file gains a
/// random identity and an authenticated Argon2id record, the class keys are re-wrapped, and every
/// row that opens under version 1 is re-sealed with version 2's authenticated data (`tomb` and the
/// keychain identity bound, digests bound to their class). A row that does not open stays as it
/// is: damaged before, damaged after, reported by `verify`.
extension Keychain {
    /// Upgrades the file `store` opened; on success `keys` becomes the version-2 key ring. Returns
    /// `false` when another process upgraded it first (the caller re-opens). A file this process
    /// may not write (read-only) is left at version 1 and read as it is.
    static func upgrade(_ keys: inout KeyRing, store: KeychainStore, key: SecretBytes) throws -> Bool {
        let old = keys
        let upgraded: KeyRing?
        do {
            upgraded = try store.write { () throws -> KeyRing? in
                guard try store.currentVersion() == 1 else { return nil }
                let keychainID = Sodium.randomBytes(SealFormat.keychainIDBytes)
                let format = SealFormat.v2(keychainID: keychainID)
                let wrapped = try old.rewrappedClassKeys(keychainKey: key, format: format)
                let new = KeyRing(keychainKey: key, wrappedClassKeys: wrapped, format: format)
                for itemClass in ItemClass.stored {
                    for (rowid, row) in try store.rows(itemClass, filter: .everyRow, withSecret: true) {
                        guard let opened = try? old.open(row, itemClass: itemClass, withSecret: true) else { continue }
                        _ = try store.update(itemClass, rowid: rowid, try new.seal(opened.opened.item, secret: opened.secret))
                    }
                }
                let passphrase = store.unlocking.passphrase
                try store.writeVersion2(
                    keychainID: keychainID, keyCheck: KeyRing.keyCheck(for: key, format: format, kdfRecord: passphrase?.record),
                    passphrase: passphrase, wrappedClassKeys: wrapped)
                return new
            }
        } catch let error as StoreError where error.sqliteCode.map({ $0 & 0xFF == SQLITE_READONLY }) ?? false {
            return true
        }
        guard let upgraded else { return false }
        keys = upgraded
        return true
    }
}
