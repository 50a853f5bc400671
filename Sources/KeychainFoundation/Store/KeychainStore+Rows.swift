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
        let (select, values, sortsInMemory) = selection(filter, of: table(itemClass), limit: limit, withSecret: withSecret)
        guard sortsInMemory else {
            try forEachRow(itemClass, select, values, withSecret: withSecret, body)
            return
        }
        var rows: [(rowid: Int64, row: SealedItem)] = []
        try forEachRow(itemClass, select, values, withSecret: withSecret) {
            rows.append(($0, $1))
            return true
        }
        rows.sort { $0.rowid < $1.rowid }
        for (rowid, row) in rows.prefix(limit ?? rows.count) {
            guard try body(rowid, row) else { return }
        }
    }

    /// Whether some row `filter` selects satisfies `predicate` (judged on its columns, unopened);
    /// stops at the first that does.
    package func anyRow(_ itemClass: ItemClass, filter: RowFilter, withSecret: Bool, _ predicate: (SealedItem) -> Bool) throws -> Bool {
        var found = false
        try forEachRow(itemClass, filter: filter, withSecret: withSecret) { _, row in
            found = predicate(row)
            return !found
        }
        return found
    }

    /// SQLite's plan for the rows `filter` selects (`EXPLAIN QUERY PLAN`), for tests and diagnosis.
    package func queryPlan(_ itemClass: ItemClass, filter: RowFilter, limit: Int? = nil) throws -> String {
        let table = table(itemClass)
        let (select, values, _) = selection(filter, of: table, limit: limit, withSecret: false)
        let statement = try connection.prepare("EXPLAIN QUERY PLAN " + table.sql(select))
        try statement.bind(values)
        var lines: [String] = []
        while try statement.step() { lines.append(statement.text(3)) }
        return lines.joined(separator: "\n")
    }

    /// The statement selecting `filter`'s rows and its values. A filter that pins the primary key
    /// but for the group and sync matches at most one row per group, sync value and tombstone
    /// state: those are fetched through the primary key's index, unordered and unlimited, and
    /// the caller puts them in insertion order (`sortsInMemory`). With ORDER BY rowid in the SQL,
    /// SQLite walks a single-column index already in rowid order instead (the service's, say),
    /// which reads every account of a service with 200,000 of them.
    private func selection(_ filter: RowFilter, of table: ItemTable, limit: Int?, withSecret: Bool)
        -> (statement: ItemTable.Statement, values: [SQLiteStatement.Value], sortsInMemory: Bool)
    {
        let (clause, values) = filter.clause
        let pinned = pinsKey(filter, of: table)
        return (.select(where: clause, withSecret: withSecret, limit: pinned ? nil : limit, unordered: pinned), values, pinned)
    }

    /// Whether `filter` pins every column of the table's primary key except the group and sync
    /// (so it selects at most a handful of rows).
    private func pinsKey(_ filter: RowFilter, of table: ItemTable) -> Bool {
        // A handful of columns each side: a scan, not a set built per query.
        table.uniqueColumns.allSatisfy { column in
            column == Schema.accessGroup || column == Schema.synchronizable || filter.digests.contains { $0.column == column }
        }
    }

    /// Runs a statement that selects whole rows, calling `body` for each while it returns `true`.
    private func forEachRow(
        _ itemClass: ItemClass, _ kind: ItemTable.Statement, _ values: [SQLiteStatement.Value], withSecret: Bool,
        _ body: (_ rowid: Int64, _ row: SealedItem) throws -> Bool
    ) throws {
        let table = table(itemClass)
        let statement = try statement(kind, of: itemClass)
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
        let statement = try statement(.count(where: clause), of: itemClass)
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
        var found: (rowid: Int64, row: SealedItem)?
        let values = table(itemClass).primaryKeyValues(of: row, group: group)
        try forEachRow(itemClass, .holder, values, withSecret: true) {
            found = ($0, $1)
            return false
        }
        return found
    }

    /// Row `rowid`, with its sealed secret.
    package func row(_ itemClass: ItemClass, rowid: Int64) throws -> SealedItem? {
        var found: SealedItem?
        try forEachRow(itemClass, .row, [.integer(rowid)], withSecret: true) {
            found = $1
            return false
        }
        return found
    }

    /// Inserts a row.
    package func insert(_ itemClass: ItemClass, _ row: SealedItem) throws -> WriteOutcome {
        try run(itemClass, .insert, table(itemClass).values(of: row))
    }

    /// Rewrites row `rowid` whole.
    package func update(_ itemClass: ItemClass, rowid: Int64, _ row: SealedItem) throws -> WriteOutcome {
        try run(itemClass, .update, table(itemClass).values(of: row) + [.integer(rowid)])
    }

    /// Deletes row `rowid`, whatever it holds (a damaged row included).
    package func delete(_ itemClass: ItemClass, rowid: Int64) throws {
        _ = try run(itemClass, .delete, [.integer(rowid)])
    }

    /// Runs a write; only a violation of the primary key's UNIQUE constraint is a duplicate.
    private func run(_ itemClass: ItemClass, _ kind: ItemTable.Statement, _ values: [SQLiteStatement.Value]) throws
        -> WriteOutcome
    {
        let table = table(itemClass)
        let statement = try statement(kind, of: itemClass)
        do {
            try statement.run(values)
            return .written
        } catch  where error.isUniqueViolation(of: table.schema.table, columns: table.uniqueColumns) {
            return .duplicate
        }
    }
}
