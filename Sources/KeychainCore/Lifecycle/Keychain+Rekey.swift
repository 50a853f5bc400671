import KeychainFormats
import KeychainFoundation

/// `rekey`: a new keychain key for the whole file, in one transaction (docs/GUIDE.md). Fresh class keys
/// are wrapped under the new key; every row's item key is re-wrapped, its
/// metadata re-sealed and its keyed digests recomputed (the digest key derives from the keychain
/// key); the key check, passphrase record and device state are replaced. Afterwards the old key
/// opens nothing in this file. A row that does not open stops it all (errSecDecode naming it).
extension Keychain {
    /// Rekeys the file to `newCredential` (a passphrase is stretched at `preset`'s cost with a new
    /// salt); returns how many rows were re-sealed. `dryRun` opens every row and writes nothing.
    package func rekey(
        to newCredential: KeychainCredential, preset: PassphraseKDF.Preset, dryRun: Bool, progress: () -> Void = {}
    ) throws -> Int {
        guard case .v2 = keys.format else { throw StoreError("a version-1 keychain is upgraded when first opened; open it once first") }
        let (newKey, kdf) = try Self.newKey(from: newCredential, preset: preset, forWhat: "changed")
        // The simulated device's lock is iOS's business, not the file's: every class is re-keyed.
        let stored = keys.device
        keys.device.lock = .unlocked
        defer { keys.device = stored }
        let wrapped = KeyRing.freshClassKeys(like: keys, under: newKey)
        let new = KeyRing(keychainKey: newKey, wrappedClassKeys: wrapped, format: keys.format)
        var count = 0
        do {
            try store.write {
                // Row by row as SQLite hands them over, each rewritten in place (its rowid, the
                // scan's order, does not change): one row in memory at a time, not the file.
                for itemClass in ItemClass.stored {
                    try store.forEachRow(itemClass, filter: .everyRow, withSecret: true) { rowid, row in
                        let opened = try keys.openRow(row, itemClass: itemClass)
                        guard try store.update(itemClass, rowid: rowid, try new.resealed(opened, from: keys)) == .written else {
                            throw DamagedRow.Reason.malformedColumn.error(itemClass, uuid: row.uuid)
                        }
                        count += 1
                        progress()
                        return true
                    }
                }
                try store.writeRekey(
                    keyCheck: KeyRing.keyCheck(for: newKey, format: keys.format, kdfRecord: kdf?.record), passphrase: kdf,
                    wrappedClassKeys: wrapped, deviceRecord: new.sealDevice(stored))
                if let record = try store.syncStateRecord() {
                    guard let state = keys.openSyncState(record) else {
                        throw StoreError("the sync state does not open: the file was edited without its key; nothing was rekeyed")
                    }
                    try store.writeSyncState(new.sealSyncState(state))
                }
                if dryRun { throw DryRun() }
            }
        } catch is DryRun {}
        if !dryRun, let identity { KeyCache.invalidate(KeyCache.Slot(id: identity, path: store.connection.path), by: "keychainctl rekey") }
        return count
    }

    private struct DryRun: Error {}
}
