import CSQLite

/// A compiled statement: bind by position, step, read columns.
package final class SQLiteStatement {
    private let handle: OpaquePointer
    private let connection: SQLiteConnection

    init(_ handle: OpaquePointer, connection: SQLiteConnection) {
        self.handle = handle
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    /// Values a statement can bind.
    package enum Value {
        case integer(Int64)
        case text(String)
        case blob([UInt8])
        case null
    }

    /// Clears bindings and resets, ready to run again.
    package func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Binds `values` to parameters 1…n.
    package func bind(_ values: [Value]) {
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            switch value {
            case .integer(let number): sqlite3_bind_int64(handle, index, number)
            case .text(let text): sqlite3_bind_text(handle, index, text, -1, csqlite_transient())
            case .blob(let bytes):
                bytes.withUnsafeBytes { buffer in
                    _ = sqlite3_bind_blob(
                        handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(buffer.count),
                        csqlite_transient())
                }
            case .null: sqlite3_bind_null(handle, index)
            }
        }
    }

    /// Advances to the next row: `true` when there is one, `false` when done.
    package func step() throws(StoreError) -> Bool {
        let status = sqlite3_step(handle)
        switch status {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = connection.error(status, doing: "run a statement")
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Binds, runs to completion, and resets.
    package func run(_ values: [Value] = []) throws(StoreError) {
        reset()
        bind(values)
        defer { sqlite3_reset(handle) }
        while try step() {}
    }

    /// Column `index` as an integer.
    package func integer(_ index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }

    /// Column `index` as text.
    package func text(_ index: Int32) -> String {
        guard let pointer = sqlite3_column_text(handle, index) else { return "" }
        return String(cString: pointer)
    }

    /// Column `index` as bytes (empty for NULL).
    package func blob(_ index: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, index))
        guard count > 0, let pointer = sqlite3_column_blob(handle, index) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// Whether the statement has stepped to a row and not yet been reset.
    var isBusy: Bool { sqlite3_stmt_busy(handle) != 0 }

    /// Whether column `index` is NULL.
    package func isNull(_ index: Int32) -> Bool { sqlite3_column_type(handle, index) == SQLITE_NULL }
}
