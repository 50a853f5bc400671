/// Reading and writing item rows. Every write here runs inside a caller's `write` transaction.
extension KeychainStore {
    /// What a write of a row came to.
    package enum WriteOutcome: Sendable {
        case written
        /// Another live row already holds the primary key (errSecDuplicateItem).
        case duplicate
    }

    /// Calls `body` for each row of `itemClass` that `filter` selects, in insertion order, up to
    /// `limit` rows, reading sealed secrets only when `withSecret`. Rows are streamed, not collected.
    package func forEachRow(
        _ itemClass: ItemClass, filter: RowFilter, limit: Int? = nil, withSecret: Bool,
        _ body: (_ rowid: Int64, _ row: SealedItem) throws -> Void
    ) throws {
        let table = table(itemClass)
        let (clause, values) = filter.clause
        let limitSQL = limit.map { " LIMIT \($0)" } ?? ""
        let statement = try statement(
            "SELECT \(table.selectList(withSecret: withSecret)) FROM \(table.schema.table) WHERE \(clause) ORDER BY rowid\(limitSQL)")
        statement.bind(values)
        defer { statement.reset() }
        while try statement.step() {
            let (rowid, row) = table.row(from: statement)
            try body(rowid, row)
        }
    }

    /// How many rows of `itemClass` `filter` selects.
    package func count(_ itemClass: ItemClass, filter: RowFilter) throws -> Int {
        let (clause, values) = filter.clause
        let statement = try statement("SELECT count(*) FROM \(table(itemClass).schema.table) WHERE \(clause)")
        statement.bind(values)
        defer { statement.reset() }
        return try statement.step() ? Int(statement.integer(0)) : 0
    }

    /// The rows `filter` selects, collected.
    package func rows(_ itemClass: ItemClass, filter: RowFilter, limit: Int? = nil, withSecret: Bool) throws
        -> [(rowid: Int64, row: SealedItem)]
    {
        var rows: [(rowid: Int64, row: SealedItem)] = []
        try forEachRow(itemClass, filter: filter, limit: limit, withSecret: withSecret) { rows.append(($0, $1)) }
        return rows
    }

    /// The live row that holds `row`'s primary key once its group is `group` (a collision check
    /// for adds and group moves), if any.
    package func liveRow(_ itemClass: ItemClass, holdingKeyOf row: SealedItem, inGroup group: String) throws
        -> (rowid: Int64, row: SealedItem)?
    {
        let schema = table(itemClass).schema
        var filter = RowFilter(groups: [group], sync: row.sync)
        for code in schema.primaryKey where code != "agrp" && code != "sync" {
            filter.digests.append((schema.attribute(code)!.column, row.digests[code] ?? []))
        }
        return try rows(itemClass, filter: filter, limit: 1, withSecret: false).first
    }

    /// Row `rowid`, with its sealed secret.
    package func row(_ itemClass: ItemClass, rowid: Int64) throws -> SealedItem? {
        var filter = RowFilter(groups: nil, sync: nil)
        filter.tombstone = nil
        filter.rowid = rowid
        return try rows(itemClass, filter: filter, limit: 1, withSecret: true).first?.row
    }

    /// Inserts a row; a tombstone with the same primary key is replaced silently (SEMANTICS §3).
    package func insert(_ itemClass: ItemClass, _ row: SealedItem) throws -> WriteOutcome {
        let table = table(itemClass)
        try removeTombstone(table, at: row)
        return try run(table.insertSQL, table.values(of: row))
    }

    /// Rewrites row `rowid` whole; a tombstone already holding its new primary key is replaced.
    package func update(_ itemClass: ItemClass, rowid: Int64, _ row: SealedItem) throws -> WriteOutcome {
        let table = table(itemClass)
        if !row.tombstone { try removeTombstone(table, at: row) }
        return try run(table.updateSQL, table.values(of: row) + [.integer(rowid)])
    }

    /// Deletes row `rowid`.
    package func delete(_ itemClass: ItemClass, rowid: Int64) throws {
        let table = table(itemClass)
        _ = try run("DELETE FROM \(table.schema.table) WHERE rowid = ?", [.integer(rowid)])
    }

    private func removeTombstone(_ table: ItemTable, at row: SealedItem) throws {
        _ = try run(table.deleteTombstoneSQL, table.primaryKeyValues(of: row))
    }

    private func run(_ sql: String, _ values: [SQLiteStatement.Value]) throws -> WriteOutcome {
        let statement = try statement(sql)
        do {
            try statement.run(values)
            return .written
        } catch  where (error as StoreError).isConstraintViolation {
            return .duplicate
        }
    }
}
