import CSQLite
import KeychainFormats
import KeychainFoundation

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

/// Upgrading a schema-version-2 keychain (or one just upgraded from version 1) to the current
/// version: the file gains the sealed state of its simulated device, as a new keychain's
/// (unlocked, with a passcode and enrolled biometry). Nothing else changes.
extension Keychain {
    /// Adds the device state to the file `store` opened; `false` when another process upgraded it
    /// first (the caller re-opens). A file this process may not write keeps its version and is read
    /// with a fresh device's state.
    static func addDeviceState(to keys: KeyRing, store: KeychainStore) throws -> Bool {
        let fresh = DeviceState.fresh()
        do {
            let added = try store.write { () throws -> Bool in
                switch try store.currentVersion() {
                case 2:
                    try store.writeDeviceVersion(deviceRecord: keys.sealDevice(fresh))
                    return true
                case 1: return true  // left at version 1 (read-only): read as it is
                default: return false
                }
            }
            guard added else { return false }
        } catch let error as StoreError where error.sqliteCode.map({ $0 & 0xFF == SQLITE_READONLY }) ?? false {}
        keys.device = fresh
        return true
    }
}

/// A file whose item tables have an older layout (`TableLayout`: schema versions 1 to 3 had no
/// `accc` column) is upgraded by the first open, before anything else is upgraded or read
/// (`KeychainStore.upgradeTables`).
extension Keychain {
    /// Upgrades the tables of the file at `path` opened as `store`; `true` when the file changed (by
    /// this process or another), so that the caller opens it again. A file this process may not
    /// write cannot be read by this version: exit 74, saying so.
    static func upgradeTables(_ store: KeychainStore, path: String) throws -> Bool {
        guard store.tableLayout < .current else { return false }
        do {
            _ = try store.upgradeTables()
        } catch let error as StoreError where error.sqliteCode.map({ $0 & 0xFF == SQLITE_READONLY }) ?? false {
            throw StoreError(
                "\(path) was written by an earlier keychainctl (schema version \(store.unlocking.version)); this one reads it only "
                    + "after upgrading it in place, which needs write access to the file and its folder. Nothing was read or changed.")
        }
        return true
    }
}
