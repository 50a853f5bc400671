/// Reading SQLite's constraint failures, which only the store makes.
extension StoreError {
    /// Whether SQLite reported a UNIQUE-constraint violation on exactly `columns` of `table`
    /// (a duplicate item when those are the primary key). Any other constraint failure, a NOT NULL
    /// or the `uuid` column's uniqueness, is not a duplicate and stays an error.
    package func isUniqueViolation(of table: String, columns: [String]) -> Bool {
        guard sqliteCode == 2067 else { return false }  // SQLITE_CONSTRAINT_UNIQUE
        return message.hasSuffix("UNIQUE constraint failed: " + columns.map { "\(table).\($0)" }.joined(separator: ", "))
    }
}
