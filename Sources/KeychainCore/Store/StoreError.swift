/// The keychain file could not be read or written (exit 74). Never carries bound values.
package struct StoreError: Error, Sendable, CustomStringConvertible {
    /// What failed, e.g. "cannot open /path/keychain.db: unable to open database file".
    package let message: String
    /// The SQLite result code, when SQLite failed.
    package let sqliteCode: Int32?

    package init(_ message: String, sqliteCode: Int32? = nil) {
        self.message = message
        self.sqliteCode = sqliteCode
    }

    package var description: String { message }

    /// Whether SQLite reported a UNIQUE-constraint violation on exactly `columns` of `table`
    /// (a duplicate item when those are the primary key). Any other constraint failure, a NOT NULL
    /// or the `uuid` column's uniqueness, is not a duplicate and stays an error.
    func isUniqueViolation(of table: String, columns: [String]) -> Bool {
        guard sqliteCode == 2067 else { return false }  // SQLITE_CONSTRAINT_UNIQUE
        return message.hasSuffix("UNIQUE constraint failed: " + columns.map { "\(table).\($0)" }.joined(separator: ", "))
    }
}
