/// Reading and writing item rows. Every write here runs inside a caller's `write` transaction.
/// Nothing here opens a row: `Keychain` checks every row it acts on.
extension KeychainStore {
    /// What a write of a row came to.
    package enum WriteOutcome: Sendable {
        case written
        /// Another row already holds the primary key (errSecDuplicateItem).
        case duplicate
    }

    /// Calls `body` for each row of `itemClass` that `filter` selects, in insertion order, while it
    /// returns `true`, up to `limit` rows, reading sealed secrets only when `withSecret`. Rows are
    /// streamed, not collected.
    package func forEachRow(
        _ itemClass: ItemClass, filter: RowFilter, limit: Int? = nil, withSecret: Bool,
        _ body: (_ rowid: Int64, _ row: SealedItem) throws -> Bool
    ) throws {
        let table = table(itemClass)
        let (clause, values) = filter.clause
        let limitSQL = limit.map { " LIMIT \($0)" } ?? ""
        let statement = try statement(
            "SELECT \(table.selectList(withSecret: withSecret)) FROM \(table.schema.table) WHERE \(clause) ORDER BY rowid\(limitSQL)")
        try statement.bind(values)
        defer { statement.reset() }
        while try statement.step() {
            let (rowid, row) = table.row(from: statement, withSecret: withSecret)
            guard try body(rowid, row) else { return }
        }
    }

    /// How many rows of `itemClass` `filter` selects.
    package func count(_ itemClass: ItemClass, filter: RowFilter) throws -> Int {
        let (clause, values) = filter.clause
        let statement = try statement("SELECT count(*) FROM \(table(itemClass).schema.table) WHERE \(clause)")
        try statement.bind(values)
        defer { statement.reset() }
        return try statement.step() ? Int(statement.integer(0)) : 0
    }

    /// The rows `filter` selects, collected.
    package func rows(_ itemClass: ItemClass, filter: RowFilter, limit: Int? = nil, withSecret: Bool) throws
        -> [(rowid: Int64, row: SealedItem)]
    {
        var rows: [(rowid: Int64, row: SealedItem)] = []
        try forEachRow(itemClass, filter: filter, limit: limit, withSecret: withSecret) {
            rows.append(($0, $1))
            return true
        }
        return rows
    }

    /// The row, live or tombstone, that holds `row`'s primary key once its group is `group` (at
    /// most one: the UNIQUE constraint), with its sealed secret.
    package func row(_ itemClass: ItemClass, holdingKeyOf row: SealedItem, inGroup group: String) throws
        -> (rowid: Int64, row: SealedItem)?
    {
        let table = table(itemClass)
        let terms = table.primaryKeyTerms(of: row, group: group)
        let statement = try statement(
            "SELECT \(table.selectList(withSecret: true)) FROM \(table.schema.table) WHERE "
                + terms.map { "\($0.column) IS ?" }.joined(separator: " AND ") + " LIMIT 1")
        try statement.bind(terms.map(\.value))
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        let (rowid, found) = table.row(from: statement, withSecret: true)
        return (rowid, found)
    }

    /// Row `rowid`, with its sealed secret.
    package func row(_ itemClass: ItemClass, rowid: Int64) throws -> SealedItem? {
        var filter = RowFilter.everyRow
        filter.rowid = rowid
        return try rows(itemClass, filter: filter, limit: 1, withSecret: true).first?.row
    }

    /// Inserts a row.
    package func insert(_ itemClass: ItemClass, _ row: SealedItem) throws -> WriteOutcome {
        let table = table(itemClass)
        return try run(table, table.insertSQL, table.values(of: row))
    }

    /// Rewrites row `rowid` whole.
    package func update(_ itemClass: ItemClass, rowid: Int64, _ row: SealedItem) throws -> WriteOutcome {
        let table = table(itemClass)
        return try run(table, table.updateSQL, table.values(of: row) + [.integer(rowid)])
    }

    /// Deletes row `rowid`, whatever it holds (a damaged row included).
    package func delete(_ itemClass: ItemClass, rowid: Int64) throws {
        let table = table(itemClass)
        _ = try run(table, "DELETE FROM \(table.schema.table) WHERE rowid = ?", [.integer(rowid)])
    }

    /// Runs a write; only a violation of the primary key's UNIQUE constraint is a duplicate.
    private func run(_ table: ItemTable, _ sql: String, _ values: [SQLiteStatement.Value]) throws -> WriteOutcome {
        let statement = try statement(sql)
        do {
            try statement.run(values)
            return .written
        } catch  where error.isUniqueViolation(of: table.schema.table, columns: table.uniqueColumns) {
            return .duplicate
        }
    }
}
