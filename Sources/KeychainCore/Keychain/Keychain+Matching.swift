/// The rows a modifying call (update, delete) acts on, and what such a call reports.
extension Keychain {
    /// What an update or delete did (or, in a dry run, would do).
    package struct ChangeResult: Sendable {
        /// The matched items as they were before the change.
        package let items: [Item]
        /// Damaged rows that matched the query's columns and were left alone (`skipDamaged`).
        package let skipped: [DamagedRow]
        /// Damaged rows removed without being opened (a delete by persistent reference).
        package let removedDamaged: [DamagedRow]
    }

    /// One opened, checked row, and its row number in this transaction.
    typealias MatchedRow = (rowid: Int64, opened: OpenedRow)

    /// Opens and checks the rows `query` selects until its limit of good ones: the one loop find,
    /// update and delete share. A damaged row never stops it and is listed apart. `withSecret`
    /// reads the sealed secret columns; `openSecret` also opens the secret.
    func openMatches(_ query: ItemQuery, filter: RowFilter, withSecret: Bool, openSecret: Bool) throws
        -> (rows: [(match: MatchedRow, secret: SecretBytes?)], damaged: [DamagedRow])
    {
        var matched: [(match: MatchedRow, secret: SecretBytes?)] = []
        let damaged = try forEachMatch(query, filter: filter, withSecret: withSecret, openSecret: openSecret) {
            matched.append(($0, $1))
        }
        return (matched, damaged)
    }

    /// `openMatches`, streamed: each good row goes to `body` as it is opened (its secret is let go
    /// when `body` returns), and the damaged rows met are returned at the end.
    func forEachMatch(
        _ query: ItemQuery, filter: RowFilter, withSecret: Bool, openSecret: Bool,
        _ body: (MatchedRow, SecretBytes?) throws -> Void
    ) throws -> [DamagedRow] {
        let limit = query.limit.rowLimit
        var count = 0
        var damaged: [DamagedRow] = []
        try store.forEachRow(query.itemClass, filter: filter, withSecret: withSecret) { rowid, row in
            if let opened = try containingDamage(&damaged, { try open(row, for: query, filter: filter, withSecret: openSecret) }) {
                count += 1
                try body((rowid, opened.opened), opened.secret)
            }
            return limit.map { count < $0 } ?? true
        }
        return damaged
    }

    /// The rows a modifying call acts on. Any damaged row refuses the whole call (errSecDecode
    /// naming each, nothing changed) unless `skipDamaged`; no good row is errSecItemNotFound.
    func matchedRows(_ query: ItemQuery, filter: RowFilter, withSecret: Bool, skipDamaged: Bool) throws
        -> (rows: [MatchedRow], skipped: [DamagedRow])
    {
        let (opened, damaged) = try openMatches(query, filter: filter, withSecret: withSecret, openSecret: false)
        let matched = opened.map(\.match)
        if !damaged.isEmpty, !skipDamaged { throw DamagedRow.refusal(damaged, changedNothing: true) }
        guard !matched.isEmpty else { throw notFound(query, filter: filter, skipped: damaged) }
        return (matched, damaged)
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
        guard holdsKey, item.accessGroup.sameBytes(as: group), item.isSynchronizable == sealed.sync else {
            throw DamagedRow.Reason.queryMismatch.error(itemClass, uuid: found.row.uuid)
        }
        return (found.rowid, opened)
    }

    /// Before `sealed` is written into `group` (an add, or row `rowid` rewritten): a verified
    /// tombstone holding the same primary key is replaced silently, as Apple replaces it
    /// (SEMANTICS §3). A live holder is left for the UNIQUE constraint to report, and returned.
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
