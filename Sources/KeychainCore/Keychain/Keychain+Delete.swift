/// SecItemDelete (`SecItemServer.c`, `_SecItemDelete`).
extension Keychain {
    /// Deletes every match (default limit all). Check order: no writable group (-34018) → explicit
    /// group (-34018) → bad request → none (-25300). A synchronizable item leaves a tombstone (no
    /// secret) so that its deletion can sync; others go outright. Returns the deleted items.
    package func delete(_ request: ItemRequest, caller: Caller, dryRun: Bool = false) throws -> [Item] {
        try checkWriteAccess(request, caller: caller)
        let query = try ItemQuery(request, defaultLimit: .all)
        try Self.checkPersistentRefStandsAlone(query)
        let filter = filter(for: query, caller: caller, writing: true)
        return try writeOrRehearse(dryRun: dryRun) {
            let rows = try store.rows(query.itemClass, filter: filter, limit: query.limit.rowLimit, withSecret: false)
            guard !rows.isEmpty else { throw notFound(query, filter: filter) }
            let now = Self.now()
            return try rows.map { rowid, row in
                let item = try keys.openItem(row, itemClass: query.itemClass)
                if item.isSynchronizable {
                    let tombstone = Self.tombstone(of: item, uuid: item.uuid, now: now)
                    _ = try store.update(query.itemClass, rowid: rowid, try keys.seal(tombstone, secret: nil))
                } else {
                    try store.delete(query.itemClass, rowid: rowid)
                }
                return item
            }
        }
    }
}
