import KeychainFormats
import KeychainFoundation

/// The rows a modifying call (update, delete) acts on, and what such a call reports.
extension Keychain {
    /// What an update or delete did (or, in a dry run, would do).
    package struct ChangeResult: Sendable {
        /// How many items were (or would be) changed.
        package let count: Int
        /// The matched items as they were before the change, for a dry run's listing only: a real
        /// run keeps no item, so its memory does not grow with the number it changes.
        package let items: [Item]
        /// Damaged rows that matched the query's columns and were left alone (`skipDamaged`).
        package let skipped: [DamagedRow]
        /// Damaged rows removed without being opened (a delete by persistent reference).
        package let removedDamaged: [DamagedRow]

        /// This result and `next`'s, as one call's (an identity's certificate and key halves).
        func followed(by next: ChangeResult) -> ChangeResult {
            ChangeResult(
                count: count + next.count, items: items + next.items, skipped: skipped + next.skipped,
                removedDamaged: removedDamaged + next.removedDamaged)
        }
    }

    /// One opened, checked row, and its row number in this transaction.
    typealias MatchedRow = (rowid: Int64, opened: OpenedRow)

    /// Opens and checks the rows `query` selects until its limit of good ones: the one loop find,
    /// update and delete share. Each good row goes to `body` as it is opened (its secret is let go
    /// when `body` returns); a damaged row never stops it, and those met are returned at the end.
    /// `withSecret` reads the sealed secret columns; `openSecret` also opens the secret. A protected
    /// item is authorized for `access` once its attributes open (`authorize`): one left out does
    /// not count toward the limit.
    func forEachMatch(
        _ query: ItemQuery, filter: RowFilter, withSecret: Bool, openSecret: Bool, access: Access,
        _ body: (MatchedRow, ItemSecret?) throws -> Void
    ) throws -> [DamagedRow] {
        try forEachMatch(query, filter: filter, withSecret: withSecret, openSecret: openSecret, access: access, peeking: false, body)
            .damaged
    }

    /// `forEachMatch`, and with `peeking`, whether the SQL selects another row once the limit is
    /// reached (stepped to, never opened: what a find's "more items matched" rests on).
    func forEachMatch(
        _ query: ItemQuery, filter: RowFilter, withSecret: Bool, openSecret: Bool, access: Access, peeking: Bool,
        _ body: (MatchedRow, ItemSecret?) throws -> Void
    ) throws -> (damaged: [DamagedRow], more: Bool) {
        let limit = query.limit.rowLimit
        var count = 0
        var damaged: [DamagedRow] = []
        var more = false
        try store.forEachRow(query.itemClass, filter: filter, withSecret: withSecret) { rowid, row in
            if let limit, count >= limit {
                more = true
                return false
            }
            let metadataOnly = row.hasAccessControl && access != .delete
            if let opened = try containingDamage(
                &damaged, { try open(row, for: query, filter: filter, withSecret: openSecret && !metadataOnly) }),
                query.matches(opened.opened.item), try authorize(opened.opened, rowid: rowid, access: access)
            {
                count += 1
                let secret = openSecret && metadataOnly ? try keys.openSecret(of: opened.opened) : opened.secret
                try body((rowid, opened.opened), secret)
            }
            return limit.map { count < $0 || peeking } ?? true
        }
        return (damaged, more)
    }

    /// Hands each row a modifying call acts on to `body`, in two passes inside the caller's
    /// transaction. The first opens and checks every row the query selects, up to its limit of good
    /// ones, and keeps only their row numbers (and, for a dry run's listing, `keepingItems`, their
    /// items); any damaged row then refuses the whole call, nothing written (errSecDecode naming
    /// each), unless `skipDamaged`, and no good row is errSecItemNotFound. The second reads each
    /// kept row again, with its sealed secret columns, opens it again and hands it over: memory
    /// stays a row number per item however many change, and no row is changed while a query over
    /// its table is still stepping.
    func forEachRowToChange(
        _ query: ItemQuery, filter: RowFilter, skipDamaged: Bool, keepingItems: Bool, access: Access,
        _ body: (MatchedRow) throws -> Void
    ) throws -> ChangeResult {
        var rowids: [Int64] = []
        var items: [Item] = []
        let damaged = try forEachMatch(query, filter: filter, withSecret: false, openSecret: false, access: access) { match, _ in
            rowids.append(match.rowid)
            if keepingItems { items.append(match.opened.item) }
        }
        if !damaged.isEmpty, !skipDamaged { throw DamagedRow.refusal(damaged, changedNothing: true) }
        guard !rowids.isEmpty else { throw notFound(query, filter: filter, skipped: damaged) }
        for rowid in rowids {
            guard let row = try store.row(query.itemClass, rowid: rowid) else {
                throw KeychainError(.decode, hint: "a matched item vanished during the change; nothing was changed.")
            }
            try body((rowid, try open(row, for: query, filter: filter, withSecret: false).opened))
        }
        return ChangeResult(count: rowids.count, items: items, skipped: damaged, removedDamaged: [])
    }

    /// The row holding `sealed`'s primary key in `group`, opened and checked; `nil` when there is
    /// none. A damaged holder is errSecDecode: it is never replaced or reported as a duplicate
    /// unseen.
    func holder(of sealed: SealedItem, _ itemClass: ItemClass, inGroup group: String) throws -> MatchedRow? {
        guard let found = try store.row(itemClass, holdingKeyOf: sealed, inGroup: group) else { return nil }
        let opened = try keys.openRow(found.row, itemClass: itemClass)
        let item = opened.item
        let schema = store.table(itemClass).schema
        // The digests opened cleanly, so they are the item's own; SQL must also have matched the key.
        let holdsKey = schema.primaryKey.allSatisfy { code in
            schema.attribute(code)!.isPlaintextColumn || found.row.digests[code] == sealed.digests[code]
        }
        guard holdsKey, item.accessGroup.sameBytes(as: group), item.isSynchronizable == sealed.isSynchronizable else {
            throw DamagedRow.Reason.queryMismatch.error(itemClass, uuid: found.row.uuid)
        }
        return (found.rowid, opened)
    }

    /// Before `sealed` is written into `group` (an add, or row `rowid` rewritten): a verified
    /// tombstone holding the same primary key is replaced silently, as Apple replaces it
    /// (docs/FIDELITY.md). A live holder is left for the UNIQUE constraint to report, and returned.
    @discardableResult
    func clearTombstone(for sealed: SealedItem, _ itemClass: ItemClass, inGroup group: String, except rowid: Int64? = nil) throws
        -> MatchedRow?
    {
        guard let holder = try holder(of: sealed, itemClass, inGroup: group), holder.rowid != rowid else { return nil }
        guard holder.opened.item.isTombstone else { return holder }
        try store.delete(itemClass, rowid: holder.rowid)
        return nil
    }
}
