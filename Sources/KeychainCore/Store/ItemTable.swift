/// The SQL of one class's table, derived from its `ClassSchema`: never written per class.
package struct ItemTable: Sendable {
    /// The class's schema.
    package let schema: ClassSchema
    /// Digest columns in declaration order.
    let digestColumns: [String]

    init(_ schema: ClassSchema) {
        self.schema = schema
        self.digestColumns = schema.digestAttributes.map(\.column)
    }

    /// Columns every row has before its digests, in SELECT order.
    static let identityColumns = ["rowid", "uuid", "agrp", "pdmn", "sync", "tomb", "metadata", "item_key", "secret"]

    /// The UNIQUE constraint's columns (Apple's primary key).
    var uniqueColumns: [String] { schema.primaryKey.map { schema.attribute($0)!.column } }

    /// CREATE TABLE and its indexes.
    var createStatements: [String] {
        let table = schema.table
        let digests = digestColumns.map { "\($0) BLOB" }.joined(separator: ", ")
        return [
            """
            CREATE TABLE \(table) (rowid INTEGER PRIMARY KEY, uuid BLOB NOT NULL UNIQUE, \
            agrp TEXT NOT NULL, pdmn TEXT NOT NULL, sync INTEGER NOT NULL, tomb INTEGER NOT NULL, \
            \(digests), metadata BLOB NOT NULL, item_key BLOB, secret BLOB, \
            UNIQUE(\(uniqueColumns.joined(separator: ", "))))
            """
        ]
            + schema.indexed.map { code in
                let column = schema.attribute(code)!.column
                return "CREATE INDEX \(table)_\(column) ON \(table)(\(column))"
            }
    }

    /// `SELECT` of every column needed to rebuild a `SealedItem`, with `secret` columns only when
    /// asked: an attribute query never reads a secret.
    func selectList(withSecret: Bool) -> String {
        let secret = withSecret ? "item_key, secret" : "NULL, NULL"
        return "rowid, uuid, agrp, pdmn, sync, tomb, metadata, \(secret), \(digestColumns.joined(separator: ", "))"
    }

    /// INSERT of a whole row.
    var insertSQL: String {
        let columns = ["uuid", "agrp", "pdmn", "sync", "tomb", "metadata", "item_key", "secret"] + digestColumns
        return
            "INSERT INTO \(schema.table) (\(columns.joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))"
    }

    /// UPDATE of a whole row by rowid.
    var updateSQL: String {
        let columns = ["uuid", "agrp", "pdmn", "sync", "tomb", "metadata", "item_key", "secret"] + digestColumns
        return "UPDATE \(schema.table) SET \(columns.map { "\($0) = ?" }.joined(separator: ", ")) WHERE rowid = ?"
    }

    /// DELETE of the tombstone (if any) holding the same primary key as a row about to be written.
    var deleteTombstoneSQL: String {
        let match = uniqueColumns.map { "\($0) IS ?" }.joined(separator: " AND ")
        return "DELETE FROM \(schema.table) WHERE tomb = 1 AND \(match)"
    }

    /// The values bound by `insertSQL` (and, with the rowid appended, `updateSQL`).
    func values(of row: SealedItem) -> [SQLiteStatement.Value] {
        var values: [SQLiteStatement.Value] = [
            .blob(row.uuid), .text(row.accessGroup), .text(row.accessibility), .integer(row.sync ? 1 : 0),
            .integer(row.tombstone ? 1 : 0), .blob(row.metadata),
            row.wrappedItemKey.map { .blob($0) } ?? .null, row.secret.map { .blob($0) } ?? .null,
        ]
        for attribute in schema.digestAttributes {
            values.append(row.digests[attribute.code].map { .blob($0) } ?? .null)
        }
        return values
    }

    /// The values bound by `deleteTombstoneSQL` for `row`'s primary key.
    func primaryKeyValues(of row: SealedItem) -> [SQLiteStatement.Value] {
        schema.primaryKey.map { code in
            switch code {
            case "agrp": .text(row.accessGroup)
            case "sync": .integer(row.sync ? 1 : 0)
            default: row.digests[code].map { .blob($0) } ?? .null
            }
        }
    }

    /// Rebuilds a row from the current result row of a statement made with `selectList`.
    func row(from statement: SQLiteStatement) -> (rowid: Int64, item: SealedItem) {
        var digests: [String: [UInt8]] = [:]
        for (offset, attribute) in schema.digestAttributes.enumerated() {
            let index = Int32(9 + offset)
            if !statement.isNull(index) { digests[attribute.code] = statement.blob(index) }
        }
        let item = SealedItem(
            uuid: statement.blob(1), accessGroup: statement.text(2), accessibility: statement.text(3),
            sync: statement.integer(4) != 0, tombstone: statement.integer(5) != 0, digests: digests,
            metadata: statement.blob(6), wrappedItemKey: statement.isNull(7) ? nil : statement.blob(7),
            secret: statement.isNull(8) ? nil : statement.blob(8))
        return (statement.integer(0), item)
    }
}
