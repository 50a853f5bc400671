import CSQLite

/// A compiled statement: bind by position, step, read columns. Every bind is checked, and text
/// and blobs are bound and read with explicit byte counts, so a value holding a NUL byte is
/// compared whole (never cut at the NUL as a C string would be).
package final class SQLiteStatement {
    private let handle: OpaquePointer
    private let connection: SQLiteConnection

    package init(_ handle: OpaquePointer, connection: SQLiteConnection) {
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

    /// SQLite's storage class of a column in the current row.
    package enum ColumnType: Equatable {
        case integer, real, text, blob, null
    }

    /// Clears bindings and resets, ready to run again.
    package func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Binds `values` to parameters 1…n; a value SQLite refuses (too big, out of memory) throws.
    package func bind(_ values: [Value]) throws(StoreError) {
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch value {
            case .integer(let number): status = sqlite3_bind_int64(handle, index, number)
            case .text(let text):
                var text = text
                status = text.withUTF8 { utf8 in
                    UnsafeRawBufferPointer(utf8).withMemoryRebound(to: CChar.self) { chars in
                        sqlite3_bind_text64(
                            handle, index, chars.baseAddress ?? UnsafePointer(bitPattern: 1), UInt64(chars.count),
                            csqlite_transient(), UInt8(SQLITE_UTF8))
                    }
                }
            case .blob(let bytes):
                status = bytes.withUnsafeBytes { buffer in
                    sqlite3_bind_blob64(
                        handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), UInt64(buffer.count),
                        csqlite_transient())
                }
            case .null: status = sqlite3_bind_null(handle, index)
            }
            guard status == SQLITE_OK else {
                sqlite3_clear_bindings(handle)
                throw connection.error(status, doing: "bind parameter \(index) of a statement")
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
        try bind(values)
        defer { sqlite3_reset(handle) }
        while try step() {}
    }

    /// Column `index` as an integer.
    package func integer(_ index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }

    /// Column `index` as text, all of its bytes (a NUL inside is kept; invalid UTF-8 is repaired,
    /// so that it can never equal a valid value's bytes).
    package func text(_ index: Int32) -> String {
        guard let pointer = sqlite3_column_text(handle, index) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeRawBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// Lends column `index`'s bytes as stored (text or blob; none for NULL) for the duration of
    /// `body`, without copying them.
    package func withBytes<R>(_ index: Int32, _ body: (UnsafeRawBufferPointer) throws(StoreError) -> R) throws(StoreError) -> R {
        let pointer = sqlite3_column_blob(handle, index)
        return try body(UnsafeRawBufferPointer(start: pointer, count: pointer == nil ? 0 : Int(sqlite3_column_bytes(handle, index))))
    }

    /// Column `index` as bytes (empty for NULL).
    package func blob(_ index: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, index))
        guard count > 0, let pointer = sqlite3_column_blob(handle, index) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// Whether the statement has stepped to a row and not yet been reset.
    package var isBusy: Bool { sqlite3_stmt_busy(handle) != 0 }

    /// Whether column `index` is NULL.
    package func isNull(_ index: Int32) -> Bool { sqlite3_column_type(handle, index) == SQLITE_NULL }

    /// The storage class of column `index` in the current row.
    package func type(_ index: Int32) -> ColumnType {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: .integer
        case SQLITE_FLOAT: .real
        case SQLITE_TEXT: .text
        case SQLITE_BLOB: .blob
        default: .null
        }
    }
}
