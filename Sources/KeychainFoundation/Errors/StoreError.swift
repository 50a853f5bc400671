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
}
