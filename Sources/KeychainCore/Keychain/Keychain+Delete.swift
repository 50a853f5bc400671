import KeychainFormats
import KeychainFoundation

/// SecItemDelete (`SecItemServer.c`, `_SecItemDelete`).
extension Keychain {
    /// Deletes every match (default limit all). Check order: no writable group (-34018) → explicit
    /// group (-34018) → bad request → none (-25300). A synchronizable item leaves a tombstone (no
    /// secret) so that its deletion can sync; others go outright.
    ///
    /// A delete by persistent reference removes a damaged row without opening it (a tombstone
    /// needs attributes it does not have): the one way out for a row that cannot be read.
    ///
    /// Rows of a class the device's state has locked are deleted too, unopened and without a
    /// tombstone, as Apple's source does (`SecItemDb.c` deletes by rowid, ignoring decryption
    /// errors, and cannot read `sync`); they are counted but cannot be listed.
    package func delete(_ request: ItemRequest, caller: Caller, dryRun: Bool = false, skipDamaged: Bool = false) throws
        -> ChangeResult
    {
        if Self.isIdentity(request) {
            return try deleteIdentities(request, caller: caller, dryRun: dryRun, skipDamaged: skipDamaged)
        }
        try beginCall("delete")
        let query = try preflight(.delete, request, caller: caller).query
        var filter = filter(for: query, caller: caller, writing: true)
        return try writeOrRehearse(dryRun: dryRun) {
            if query.persistentRef != nil {
                filter.tombstone = nil
                if let removed = try deleteDamaged(query, filter: filter) { return removed }
                filter.tombstone = false
            }
            let locked = keys.device.allowsEveryClass ? 0 : try deleteLockedRows(query.itemClass, filter: filter)
            let now = Self.now()
            let result: ChangeResult
            do {
                result = try forEachRowToChange(
                    query, filter: filter, skipDamaged: skipDamaged, keepingItems: dryRun, access: .delete
                ) { rowid, opened in
                    let item = opened.item
                    if item.isSynchronizable {
                        let tombstone = Self.tombstone(of: item, uuid: item.uuid, now: now)
                        _ = try store.update(query.itemClass, rowid: rowid, try keys.seal(tombstone, secret: nil))
                    } else {
                        try store.delete(query.itemClass, rowid: rowid)
                    }
                }
            } catch let error as KeychainError where error.status == .itemNotFound && locked > 0 {
                return ChangeResult(count: locked, items: [], skipped: [], removedDamaged: [])
            }
            return ChangeResult(count: result.count + locked, items: result.items, skipped: result.skipped, removedDamaged: [])
        }
    }

    /// Deletes the rows `filter` selects whose class the device's state has locked; returns how
    /// many there were.
    private func deleteLockedRows(_ itemClass: ItemClass, filter: RowFilter) throws -> Int {
        var rowids: [Int64] = []
        try store.forEachRow(itemClass, filter: filter, withSecret: false) { rowid, row in
            if isLocked(row) { rowids.append(rowid) }
            return true
        }
        for rowid in rowids { try store.delete(itemClass, rowid: rowid) }
        return rowids.count
    }

    /// The row a persistent reference names, deleted outright when it is damaged; `nil` when it is
    /// not damaged (the ordinary delete then runs) or does not exist.
    private func deleteDamaged(_ query: ItemQuery, filter: RowFilter) throws -> ChangeResult? {
        guard let (rowid, row) = try store.rows(query.itemClass, filter: filter, limit: 1, withSecret: true).first else { return nil }
        if isLocked(row) { return nil }
        var damaged: [DamagedRow] = []
        _ = try containingDamage(&damaged) { try keys.open(row, itemClass: query.itemClass, withSecret: true) }
        guard !damaged.isEmpty else { return nil }
        try store.delete(query.itemClass, rowid: rowid)
        return ChangeResult(count: 0, items: [], skipped: [], removedDamaged: damaged)
    }
}
