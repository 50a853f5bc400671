import KeychainFormats
import KeychainFoundation

/// `backup` (docs/GUIDE.md): a copy of the keychain that opens with the same key.
extension Keychain {
    /// Writes a consistent copy of the keychain to `path` (a new file, mode 0600) and checks,
    /// before it is kept, that it opens with this call's key and that SQLite finds it sound.
    /// Returns how many items (tombstones aside) the copy holds. Restoring is copying it back.
    package func backup(to path: String) throws -> Int {
        var items = 0
        try store.backup(to: path) { copy in
            let opened = try Keychain(Opening(path: path, store: copy, credential: .key(keychainKey), cachedIn: nil))
            let problems = try opened.store.integrityCheck()
            guard problems.isEmpty else {
                throw StoreError(
                    "the copy of \(store.connection.path) is not sound (\(problems.prefix(3).joined(separator: "; "))); nothing was written"
                )
            }
            items = try ItemClass.stored.reduce(0) { $0 + (try opened.store.count($1, filter: RowFilter(groups: nil, sync: nil))) }
        }
        return items
    }
}
