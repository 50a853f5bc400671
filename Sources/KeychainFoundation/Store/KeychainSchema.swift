/// The whole file's schema, derived from `Schema`: what `init` creates and what every open checks.
package enum KeychainSchema {
    /// The tables every keychain has besides the item tables.
    package static let fixedTables = [
        "CREATE TABLE schema_version (version INTEGER NOT NULL)",
        "CREATE TABLE keychain_meta (name TEXT PRIMARY KEY, value BLOB NOT NULL)",
        "CREATE TABLE class_keys (pdmn TEXT PRIMARY KEY, wrapped BLOB NOT NULL)",
    ]

    /// Every CREATE statement, in creation order.
    package static var createStatements: [String] {
        fixedTables + ItemClass.stored.flatMap { KeychainStore.table($0).createStatements() }
    }

    /// `sqlite_schema` as it must be, in the order `init` creates it: `[type, name, tbl_name, sql]`
    /// per object (SQLite's own indexes for PRIMARY KEY and UNIQUE constraints have no SQL:
    /// "NULL"). Built only by the tests and when a file's fingerprint differs.
    private static func expected(_ layout: TableLayout) -> [[String]] {
        var entries = [["table", "schema_version", "schema_version", fixedTables[0]]]
        for (name, sql) in zip(["keychain_meta", "class_keys"], fixedTables.dropFirst()) {
            entries.append(["table", name, name, sql])
            entries.append(["index", "sqlite_autoindex_\(name)_1", name, "NULL"])
        }
        for itemClass in ItemClass.stored {
            let statements = KeychainStore.table(itemClass).createStatements(layout: layout)
            let name = itemClass.rawValue
            entries.append(["table", name, name, statements[0]])
            entries.append(["index", "sqlite_autoindex_\(name)_1", name, "NULL"])
            entries.append(["index", "sqlite_autoindex_\(name)_2", name, "NULL"])
            for sql in statements.dropFirst() { entries.append(["index", String(sql.split(separator: " ")[2]), name, sql]) }
        }
        return entries
    }

    /// What the fingerprint covers: the rows of `sqlite_schema` in storage order, columns joined by
    /// U+0001 and rows by U+0002, a NULL as "NULL".
    package static let rowsSQL = "SELECT type, name, tbl_name, sql FROM sqlite_schema"

    /// The derived schema as the fingerprint sees a file's.
    package static func derivedDump(_ layout: TableLayout) -> String {
        expected(layout).map { $0.joined(separator: "\u{1}") }.joined(separator: "\u{2}")
    }

    /// Refuses a file whose schema is not exactly the one derived for one of the table layouts,
    /// and returns that layout: an extra trigger, view, table, index or column is exit 74, "not a
    /// keychain or tampered". The rows are hashed as SQLite hands them over and the hash compared
    /// with each layout's fingerprint (building the derived DDL at every start-up cost a fifth of a
    /// find's instructions, and sorting a tenth); the same objects stored in another order (after
    /// a VACUUM) take the slower comparison and pass.
    package static func verify(_ connection: SQLiteConnection) throws(StoreError) -> TableLayout {
        do {
            let rows = try connection.prepare(rowsSQL)
            let digest = try Sodium.fingerprint { (feed) throws(StoreError) in
                var separator: UInt8 = 2
                var first = true
                while try rows.step() {
                    if !first { withUnsafeBytes(of: &separator) { feed($0) } }
                    first = false
                    for column in Int32(0)..<4 {
                        var unit: UInt8 = 1
                        if column > 0 { withUnsafeBytes(of: &unit) { feed($0) } }
                        if rows.isNull(column) {
                            "NULL".utf8.withContiguousStorageIfAvailable { feed(UnsafeRawBufferPointer($0)) }
                        } else {
                            try rows.withBytes(column) { (bytes) throws(StoreError) in feed(bytes) }
                        }
                    }
                }
            }
            let found = Hex.lowercase(digest)
            if let layout = TableLayout.allCases.last(where: { $0.fingerprint == found }) { return layout }
        } catch {
            throw StoreError("\(connection.path) is not a keychainctl keychain (\(error.message))", sqliteCode: error.sqliteCode)
        }
        return try compareObjects(connection)
    }

    /// The slow path of `verify`: the fingerprint differs. The same objects in another order pass;
    /// otherwise the file is refused, saying which objects differ.
    private static func compareObjects(_ connection: SQLiteConnection) throws(StoreError) -> TableLayout {
        var found: Set<[String]> = []
        do {
            let statement = try connection.prepare(rowsSQL)
            while try statement.step() {
                found.insert([statement.text(0), statement.text(1), statement.text(2), statement.isNull(3) ? "NULL" : statement.text(3)])
            }
        } catch {
            throw StoreError("\(connection.path) is not a keychainctl keychain (\(error.message))", sqliteCode: error.sqliteCode)
        }
        if let layout = TableLayout.allCases.last(where: { found == Set(Self.expected($0)) }) { return layout }
        let expected = Set(Self.expected(.current))
        let named = { (entries: Set<[String]>) in entries.map { "\($0[0]) \($0[1])" }.sorted().joined(separator: ", ") }
        var what: [String] = []
        if !found.subtracting(expected).isEmpty { what.append("unexpected: \(named(found.subtracting(expected)))") }
        if !expected.subtracting(found).isEmpty { what.append("missing or altered: \(named(expected.subtracting(found)))") }
        throw StoreError(
            "\(connection.path) is not a keychainctl keychain or its schema was tampered with (\(what.joined(separator: "; "))); nothing was read or run."
        )
    }

    /// The keychain_meta entries a file of `version` holds, each once (an array: every open
    /// checks them, and hashing them into sets cost it 15,000 instructions).
    package static func metaNames(version: Int, passphrase: Bool) -> [String] {
        switch (version, passphrase) {
        case (1, false): ["key_check"]
        case (1, true): ["key_check", "kdf_salt", "kdf_ops", "kdf_mem"]
        case (2, false): ["key_check", "keychain_id"]
        case (2, true): ["key_check", "keychain_id", "kdf"]
        case (_, false): ["key_check", "keychain_id", "device"]
        case (_, true): ["key_check", "keychain_id", "kdf", "device"]
        }
    }

    /// Every keychain_meta entry: text names, blob values. The sync state, which grows with the
    /// items that sync, is read only by `sync` (`readSyncState`): here its value is one byte.
    package static func readMeta(_ connection: SQLiteConnection) throws(StoreError) -> [String: [UInt8]] {
        try readPairs(connection, "SELECT name, value FROM keychain_meta", table: "keychain_meta", skipping: "sync_state")
    }

    /// The sealed sync state, or `nil` when the file has none.
    package static func readSyncState(_ connection: SQLiteConnection) throws(StoreError) -> [UInt8]? {
        try readPairs(connection, "SELECT name, value FROM keychain_meta WHERE name = 'sync_state'", table: "keychain_meta")["sync_state"]
    }

    /// Every wrapped class key: text `pdmn` codes, blob keys.
    package static func readClassKeys(_ connection: SQLiteConnection) throws(StoreError) -> [String: [UInt8]] {
        try readPairs(connection, "SELECT pdmn, wrapped FROM class_keys", table: "class_keys")
    }

    /// A (text, blob) table whole; a value of another type means the file was edited (exit 74).
    /// The value of the entry named `skipping` is not copied (it maps to one zero byte).
    private static func readPairs(_ connection: SQLiteConnection, _ sql: String, table: String, skipping: String? = nil)
        throws(StoreError) -> [String: [UInt8]]
    {
        var pairs: [String: [UInt8]] = [:]
        pairs.reserveCapacity(16)  // a keychain's meta rows: no rehashing as they are read
        let statement = try connection.prepare(sql)
        while try statement.step() {
            guard statement.type(0) == .text, statement.type(1) == .blob else {
                throw StoreError(
                    "\(connection.path) is not a keychainctl keychain or was tampered with (a value of the wrong type in \(table))")
            }
            let name = statement.text(0)
            pairs[name] = name == skipping ? [0] : statement.blob(1)
        }
        return pairs
    }

    /// The schema version: exactly one row holding a version this build reads.
    package static func readVersion(_ connection: SQLiteConnection) throws(StoreError) -> Int {
        var versions: [Int64] = []
        let statement = try connection.prepare("SELECT version FROM schema_version")
        while try statement.step() {
            guard statement.type(0) == .integer else {
                throw StoreError("\(connection.path) was tampered with (a schema version that is not a number)")
            }
            versions.append(statement.integer(0))
        }
        guard versions.count == 1, let version = versions.first, version >= 1 else {
            throw StoreError("\(connection.path) is not a keychainctl keychain or was tampered with (no single schema version)")
        }
        guard version <= KeychainStore.schemaVersion else {
            throw StoreError(
                "\(connection.path) has schema version \(version); this keychainctl reads up to \(KeychainStore.schemaVersion)")
        }
        return Int(version)
    }
}
