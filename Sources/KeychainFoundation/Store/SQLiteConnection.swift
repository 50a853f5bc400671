import CSQLite

/// One SQLite connection: WAL, a busy timeout, and writes inside `BEGIN IMMEDIATE`.
package final class SQLiteConnection {
    private let handle: OpaquePointer
    /// The database file's path.
    package let path: String
    /// How many `readTransaction`s are open (nested ones join the outermost).
    private var readDepth = 0
    private var writeDepth = 0
    /// The four statements that open and close transactions, each compiled on first use and kept:
    /// `sqlite3_exec` compiled BEGIN and COMMIT again on every call, a twentieth of a
    /// SecItemCopyMatching's instructions.
    private var control: [Control: OpaquePointer] = [:]

    private enum Control: String {
        case begin = "BEGIN"
        case beginImmediate = "BEGIN IMMEDIATE"
        case commit = "COMMIT"
        case rollback = "ROLLBACK"
    }

    /// Configures SQLite for a process that is one command: no memory statistics, which nothing
    /// reads and which lock a global mutex on every allocation (find -8% of its instructions), and
    /// no bulk page-cache allocation, whose 20 pages were each touched at a connection's first read
    /// (find -15 page faults). Only the command calls it, before any SQLite call: SQLite's
    /// configuration is the whole process's, and an app using the library keeps its own.
    package static func configureForOneCommand() { _ = csqlite_configure_for_one_command() }

    /// Opens (and with `create`, creates) the file at `path`.
    package init(path: String, create: Bool) throws(StoreError) {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (create ? SQLITE_OPEN_CREATE : 0)
        let status = sqlite3_open_v2(path, &db, flags, nil)
        guard status == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(db)
            throw StoreError("cannot open \(path): \(message)", sqliteCode: status)
        }
        self.handle = db
        self.path = path
        sqlite3_busy_timeout(db, 10_000)
        sqlite3_extended_result_codes(db, 1)
        // The file is untrusted input: no triggers, views, extensions or schema-defined functions
        // run, the schema cannot be written through PRAGMAs, and damaged b-tree cells are caught.
        let hardened = csqlite_harden(db)
        guard hardened == SQLITE_OK else {
            sqlite3_close(db)
            throw StoreError("cannot open \(path): SQLite refused its hardening options", sqliteCode: hardened)
        }
        // Keep the -wal and -shm files when the last connection closes: every keychainctl call is a
        // new process, and re-creating them each time cost a third of a find's system time.
        var persist: Int32 = 1
        sqlite3_file_control(db, "main", SQLITE_FCNTL_PERSIST_WAL, &persist)
        // ...but truncate the WAL to zero bytes when the last connection checkpoints on close:
        // otherwise each new process re-reads every frame of a large WAL to rebuild its index
        // (40 ms per call after filling 100,000 items). A process that stays (an app using the
        // library) checkpoints every 100 pages, not SQLite's 1,000: the write that happens to
        // checkpoint copies a tenth as much, which took SecItemAdd's 99.9th percentile from
        // 0.55-0.7 ms to 0.2 ms in memory (the median did not move).
        try execute("PRAGMA journal_size_limit = 0; PRAGMA cell_size_check = ON; PRAGMA wal_autocheckpoint = 100")
    }

    deinit {
        for statement in control.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
    }

    /// A new empty database in memory: one built whole before it is written as a file.
    package static func inMemory() throws(StoreError) -> SQLiteConnection { try SQLiteConnection(path: ":memory:", create: true) }

    /// The database's bytes, as its file would hold them (`sqlite3_serialize`).
    package func serialized() throws(StoreError) -> [UInt8] {
        var size: sqlite3_int64 = 0
        guard let bytes = sqlite3_serialize(handle, "main", &size, 0) else {
            throw StoreError("cannot copy the database \(path) out of SQLite (out of memory)")
        }
        defer { sqlite3_free(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: Int(size)))
    }

    /// Copies this database, as one consistent snapshot, into `destination` (SQLite's online
    /// backup, all pages in one step: other processes may go on writing meanwhile).
    package func backup(into destination: SQLiteConnection) throws(StoreError) {
        guard let backup = sqlite3_backup_init(destination.handle, "main", handle, "main") else {
            throw destination.error(sqlite3_errcode(destination.handle), doing: "start a backup")
        }
        var status = sqlite3_backup_step(backup, -1)
        while status == SQLITE_BUSY || status == SQLITE_LOCKED {
            sqlite3_sleep(20)
            status = sqlite3_backup_step(backup, -1)
        }
        let finished = sqlite3_backup_finish(backup)
        guard status == SQLITE_DONE, finished == SQLITE_OK else {
            throw destination.error(status == SQLITE_DONE ? finished : status, doing: "copy the keychain")
        }
    }

    /// Runs SQL that binds nothing and returns no rows.
    package func execute(_ sql: String) throws(StoreError) {
        let status = sqlite3_exec(handle, sql, nil, nil, nil)
        guard status == SQLITE_OK else { throw error(status, doing: "run a statement") }
    }

    /// Compiles a statement.
    package func prepare(_ sql: String) throws(StoreError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard status == SQLITE_OK, let statement else { throw error(status, doing: "prepare a statement") }
        return SQLiteStatement(statement, connection: self)
    }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`, rolling back when it throws.
    package func writeTransaction<R>(_ body: () throws -> R) throws -> R {
        // Inside another write, `body` joins it: an identity's two halves commit or roll back together.
        if writeDepth > 0 {
            writeDepth += 1
            defer { writeDepth -= 1 }
            return try body()
        }
        writeDepth = 1
        defer { writeDepth = 0 }
        try run(.beginImmediate)
        do {
            let result = try body()
            try run(.commit)
            return result
        } catch {
            try? run(.rollback)
            throw error
        }
    }

    /// Runs `body` inside a deferred (read) transaction, so that a multi-statement read sees one
    /// state. Inside another read, `body` joins it: several finds (exec's references) see one state;
    /// inside a write, it reads what the write has changed so far.
    package func readTransaction<R>(_ body: () throws -> R) throws -> R {
        if readDepth > 0 || writeDepth > 0 {
            readDepth += 1
            defer { readDepth -= 1 }
            return try body()
        }
        try run(.begin)
        readDepth = 1
        defer {
            readDepth = 0
            try? run(.commit)
        }
        return try body()
    }

    /// Runs one of the transaction statements, compiling it the first time.
    private func run(_ statement: Control) throws(StoreError) {
        let compiled: OpaquePointer
        if let cached = control[statement] {
            compiled = cached
        } else {
            var prepared: OpaquePointer?
            let status = sqlite3_prepare_v2(handle, statement.rawValue, -1, &prepared, nil)
            guard status == SQLITE_OK, let prepared else { throw error(status, doing: "prepare \(statement.rawValue)") }
            control[statement] = prepared
            compiled = prepared
        }
        let status = sqlite3_step(compiled)
        sqlite3_reset(compiled)
        guard status == SQLITE_DONE else { throw error(status, doing: "run \(statement.rawValue)") }
    }

    /// The rowid of the row the last INSERT wrote.
    package var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// How many rows the last INSERT, UPDATE or DELETE changed.
    package var changes: Int { Int(sqlite3_changes(handle)) }

    /// A StoreError for a failed call; the message never includes bound values.
    package func error(_ status: Int32, doing what: String) -> StoreError {
        let detail = String(cString: sqlite3_errmsg(handle))
        return StoreError("cannot \(what) on \(path): \(detail)", sqliteCode: status)
    }
}
