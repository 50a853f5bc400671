/// The SQL of one class's table, derived from its `ClassSchema`: never written per class.
///
/// Columns, in table order: `rowid`, `uuid`, the plaintext attribute columns, the digest columns,
/// then the sealed `metadata`, `item_key` and `secret`. How each is authenticated is `Column.Protection`.
package struct ItemTable: Sendable {
    /// One column and what stops an edit of it from changing what a call acts on.
    package struct Column: Sendable {
        package enum Protection: Sendable {
            /// SQLite's row number: names a row within one transaction, decides nothing.
            case rowNumber
            /// Bound into every sealed half's authenticated data (`uuid`, plaintext attributes).
            case associatedData
            /// Recomputed from the opened metadata and compared.
            case digestOfMetadata
            /// Sealed (AEAD); its presence is bound to the authenticated `tomb` flag.
            case sealed
        }
        package let name: String
        package let protection: Protection
    }

    /// The class's schema.
    package let schema: ClassSchema

    package init(_ schema: ClassSchema) { self.schema = schema }

    // Everything below is derived on use, not at start-up: every call is a new process, and building
    // all four tables' SQL eagerly cost a fifth of a find's instructions.

    private var plaintextColumns: [String] { schema.plaintextAttributes.map(\.column) }
    private var digestColumns: [String] { schema.digestAttributes.map(\.column) }

    /// Every column of the table, in table order.
    package var columns: [Column] {
        [Column(name: "rowid", protection: .rowNumber), Column(name: "uuid", protection: .associatedData)]
            + plaintextColumns.map { Column(name: $0, protection: .associatedData) }
            + digestColumns.map { Column(name: $0, protection: .digestOfMetadata) }
            + ["metadata", "item_key", "secret"].map { Column(name: $0, protection: .sealed) }
    }

    /// The UNIQUE constraint's columns (Apple's primary key).
    package var uniqueColumns: [String] { schema.primaryKeyColumns }

    /// CREATE TABLE and its indexes, as files of `layout` have them (an older one is what an
    /// upgrade starts from).
    package func createStatements(layout: TableLayout = .current) -> [String] {
        let table = schema.table
        let plaintextDDL = schema.plaintextAttributes.filter { layout.has($0.column) }.map { "\($0.column) \($0.columnType) NOT NULL" }
        let digestDDL = digestColumns.filter { layout.has($0) }.map { "\($0) BLOB" }
        return [
            "CREATE TABLE \(table) (rowid INTEGER PRIMARY KEY, uuid BLOB NOT NULL UNIQUE, "
                + (plaintextDDL + digestDDL).joined(separator: ", ")
                + ", metadata BLOB NOT NULL, item_key BLOB, secret BLOB, UNIQUE(\(uniqueColumns.joined(separator: ", "))))"
        ]
            + schema.indexed.compactMap { code in
                let column = schema.attribute(code)!.column
                return layout.has(column) ? "CREATE INDEX \(table)_\(column) ON \(table)(\(column))" : nil
            }
    }

    /// The statements run on the table. The store prepares each once per process and keys its
    /// cache by `cacheKey`, so their SQL is built once, not per row a migration touches.
    package enum Statement: Sendable {
        /// The rows a `RowFilter` clause selects, in insertion order unless `unordered`.
        case select(where: String, withSecret: Bool, limit: Int?, unordered: Bool = false)
        /// How many rows a `RowFilter` clause selects.
        case count(where: String)
        /// The row holding a primary key: bind `primaryKeyValues(of:group:)`.
        case holder
        /// One row by rowid, with its sealed secret.
        case row
        /// A whole row written: bind `values(of:)`, and for `update` the rowid after them.
        case insert, update
        /// One row by rowid.
        case delete
    }

    /// A short string naming `statement` on this table: the store's cache key. (A string and not a
    /// Hashable enum: looking up a new type's conformance costs every process a scan of the binary's
    /// conformance records, a tenth of a find's instructions.)
    package func cacheKey(_ statement: Statement) -> String {
        let table = schema.table
        switch statement {
        case .select(let clause, let withSecret, let limit, let unordered):
            // Appended piece by piece: interpolation cost a SecItemCopyMatching 4,000 instructions.
            var key = table
            key.reserveCapacity(clause.utf8.count + 32)
            key += withSecret ? " select 1 " : " select 0 "
            if let limit { key += String(limit) } else { key += "-1" }
            key += unordered ? " 1 " : " 0 "
            key += clause
            return key
        case .count(let clause): return "\(table) count \(clause)"
        case .holder: return "\(table) holder"
        case .row: return "\(table) row"
        case .insert: return "\(table) insert"
        case .update: return "\(table) update"
        case .delete: return "\(table) delete"
        }
    }

    /// The SQL of `statement`.
    package func sql(_ statement: Statement) -> String {
        let table = schema.table
        switch statement {
        case .select(let clause, let withSecret, let limit, let unordered):
            return "SELECT \(selectList(withSecret: withSecret)) FROM \(table) WHERE \(clause)"
                + (unordered ? "" : " ORDER BY rowid") + (limit.map { " LIMIT \($0)" } ?? "")
        case .count(let clause):
            return "SELECT count(*) FROM \(table) WHERE \(clause)"
        case .holder:
            let terms = schema.primaryKey.map { "\(schema.attribute($0)!.column) IS ?" }
            return "SELECT \(selectList(withSecret: true)) FROM \(table) WHERE \(terms.joinedText(" AND ")) LIMIT 1"
        case .row:
            return "SELECT \(selectList(withSecret: true)) FROM \(table) WHERE rowid = ?"
        case .insert:
            let columns = writtenColumns
            return "INSERT INTO \(table) (\(columns.joinedText(", "))) VALUES ("
                + Array(repeating: "?", count: columns.count).joinedText(", ") + ")"
        case .update:
            return "UPDATE \(table) SET \(writtenColumns.map { "\($0) = ?" }.joinedText(", ")) WHERE rowid = ?"
        case .delete:
            return "DELETE FROM \(table) WHERE rowid = ?"
        }
    }

    /// Every column needed to rebuild a `SealedItem`; without `withSecret` only the types of the
    /// secret columns are read: an attribute query never reads a secret.
    private func selectList(withSecret: Bool) -> String {
        let secret = withSecret ? "item_key, secret" : "typeof(item_key), typeof(secret)"
        return (["rowid", "uuid"] + plaintextColumns + ["metadata", secret] + digestColumns).joinedText(", ")
    }

    /// Columns written by INSERT and UPDATE, in binding order.
    private var writtenColumns: [String] { ["uuid"] + plaintextColumns + ["metadata", "item_key", "secret"] + digestColumns }

    /// The values `.insert` binds (and `.update`, with the rowid after them).
    package func values(of row: SealedItem) -> [SQLiteStatement.Value] {
        var values: [SQLiteStatement.Value] = [.blob(row.uuid)]
        for attribute in schema.plaintextAttributes { values.append(Self.value(row.plaintext[attribute.code])) }
        values += [.blob(row.metadata), row.wrappedItemKey.map { .blob($0) } ?? .null, row.secret.map { .blob($0) } ?? .null]
        for attribute in schema.digestAttributes { values.append(row.digests[attribute.code].map { .blob($0) } ?? .null) }
        return values
    }

    /// A plaintext attribute as its column stores it.
    package static func value(_ value: AttributeValue?) -> SQLiteStatement.Value {
        switch value {
        case .string(let text), .fourCharCode(let text): .text(text)
        case .bool(let flag): .integer(flag ? 1 : 0)
        case .number(let number), .date(let number): .integer(number)
        case .data(let bytes): .blob(bytes)
        case nil: .null
        }
    }

    /// The values `.holder` binds to select the row holding `row`'s primary key in `group`.
    package func primaryKeyValues(of row: SealedItem, group: String) -> [SQLiteStatement.Value] {
        schema.primaryKey.map { code in
            if code == Schema.accessGroup { return .text(group) }
            if schema.attribute(code)!.isPlaintextColumn { return Self.value(row.plaintext[code]) }
            return row.digests[code].map { .blob($0) } ?? .null
        }
    }

    /// Rebuilds a row from the current result row of a `.select`, `.holder` or `.row` statement. A column
    /// of the wrong type or size makes the row `malformed` (reported as damaged when opened).
    package func row(from statement: SQLiteStatement, withSecret: Bool) -> (rowid: Int64, item: SealedItem) {
        // Every row a query selects is read here: no array or dictionary is built that is not
        // kept (type lists, growing dictionaries cost a SecItemCopyMatching a tenth of its time).
        var malformed: String?
        func expect(_ index: Int32, _ type: SQLiteStatement.ColumnType, orNull: Bool = false, _ name: @autoclosure () -> String) {
            guard malformed == nil else { return }
            let actual = statement.type(index)
            if actual != type, !orNull || actual != .null { malformed = name() }
        }
        expect(1, .blob, "uuid")
        let uuid = statement.blob(1)
        if uuid.count != 16 { malformed = malformed ?? "uuid" }
        var plaintext = [String: AttributeValue](minimumCapacity: schema.plaintextAttributes.count)
        var index: Int32 = 2
        for attribute in schema.plaintextAttributes {
            switch attribute.kind {
            case .string, .fourCharCode:
                expect(index, .text, attribute.column)
                plaintext[attribute.code] = .string(statement.text(index))
            default:
                expect(index, .integer, attribute.column)
                let number = statement.integer(index)
                if attribute.kind == .bool {
                    if number != 0 && number != 1 { malformed = malformed ?? attribute.column }
                    plaintext[attribute.code] = .bool(number == 1)
                } else {
                    plaintext[attribute.code] = .number(number)
                }
            }
            index += 1
        }
        expect(index, .blob, "metadata")
        let metadata = statement.blob(index)
        var wrappedItemKey: [UInt8]?
        var secret: [UInt8]?
        let present: (key: Bool, secret: Bool)
        if withSecret {
            expect(index + 1, .blob, orNull: true, "item_key")
            expect(index + 2, .blob, orNull: true, "secret")
            wrappedItemKey = statement.isNull(index + 1) ? nil : statement.blob(index + 1)
            secret = statement.isNull(index + 2) ? nil : statement.blob(index + 2)
            present = (wrappedItemKey != nil, secret != nil)
        } else {
            let types = (statement.text(index + 1), statement.text(index + 2))
            let valid = { (type: String) in type == "blob" || type == "null" }
            if !valid(types.0) || !valid(types.1) { malformed = malformed ?? "item_key or secret" }
            present = (types.0 == "blob", types.1 == "blob")
        }
        if present.key != present.secret { malformed = malformed ?? "item_key or secret" }
        index += 3
        var digests = [String: [UInt8]](minimumCapacity: 4)
        for attribute in schema.digestAttributes {
            if !statement.isNull(index) {
                expect(index, .blob, attribute.column)
                let digest = statement.blob(index)
                if digest.count != KeyedDigest.length { malformed = malformed ?? attribute.column }
                digests[attribute.code] = digest
            }
            index += 1
        }
        var item = SealedItem(
            uuid: uuid, plaintext: plaintext, digests: digests, metadata: metadata, wrappedItemKey: wrappedItemKey,
            secret: secret)
        item.secretPresent = present.key && present.secret
        item.malformed = malformed
        return (statement.integer(0), item)
    }
}
