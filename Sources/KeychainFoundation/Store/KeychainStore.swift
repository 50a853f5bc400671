import Glibc
import TextEscaping

/// The keychain file: one SQLite database in WAL mode holding the schema version, the key check,
/// the wrapped class keys and one table per item class.
///
/// The file is untrusted: the connection is hardened (no triggers, views or extensions run), and
/// on open its schema must be exactly the one derived from `Schema`, its metadata exactly the
/// entries this version writes, and its passphrase parameters within bounds; anything else is a
/// StoreError (exit 74). Version-1 files are upgraded in place by `Keychain` once the key is known.
package final class KeychainStore {
    /// The schema version this build writes; versions 1 to 3 are upgraded in place. Version 3
    /// added the sealed device state (`keychain_meta` entry `device`), version 4 the `accc` column,
    /// version 5 the sealed sync state (`sync_state`, written by the first `sync`).
    package static let schemaVersion = 5

    package let connection: SQLiteConnection
    /// Compiled statements by `ItemTable.cacheKey`.
    private var statements: [String: SQLiteStatement] = [:]

    /// What the file says about unlocking it.
    package struct Unlocking: Sendable {
        /// The file's schema version.
        package let version: Int
        /// The sealed key-check value.
        package let keyCheck: [UInt8]
        /// Argon2id parameters when the keychain was made from a passphrase.
        package let passphrase: PassphraseKDF?
        /// The keychain's random identity (version 2).
        package let keychainID: [UInt8]?
        /// Class keys wrapped by the keychain key, by `pdmn` code.
        package let wrappedClassKeys: [String: [UInt8]]
        /// The sealed device state (version 3).
        package let deviceRecord: [UInt8]?

        /// How the file's blobs are bound.
        package var format: SealFormat { keychainID.map { .v2(keychainID: $0) } ?? .v1 }
        /// The passphrase record the key check authenticates (version 2).
        package var kdfRecord: [UInt8]? { version >= 2 ? passphrase?.record : nil }
    }

    /// The unlocking material read on open.
    package let unlocking: Unlocking
    /// The item tables' layout as the file has them: older than `TableLayout.current` until the
    /// first open that may write upgrades them (`upgradeTables`).
    package let tableLayout: TableLayout

    /// Opens an existing keychain file. A missing file is errSecNotAvailable (run `init`); a file
    /// that is not a keychain, or whose schema was altered, is a StoreError.
    package convenience init(path: String) throws {
        try Self.checkExists(path)
        try FileSafety.checkLinks(path, what: "keychain")
        let connection = try SQLiteConnection(path: path, create: false)
        try connection.execute("PRAGMA synchronous = FULL")
        try self.init(connection: connection)
    }

    /// A keychain on an open database (a file, or a copy in memory not yet written).
    package init(connection: SQLiteConnection) throws {
        self.connection = connection
        tableLayout = try KeychainSchema.verify(connection)
        unlocking = try Self.readUnlocking(connection)
        if let next = tableLayout.next, unlocking.version >= next.firstSchemaVersion {
            let missing = next.addedColumns.map(\.column).joined(separator: ", ")
            throw StoreError(
                "\(connection.path) is not a keychainctl keychain or was tampered with (schema version \(unlocking.version) without its column \(missing))"
            )
        }
    }

    private static func readUnlocking(_ connection: SQLiteConnection) throws(StoreError) -> Unlocking {
        let meta = try KeychainSchema.readMeta(connection)
        let version = try KeychainSchema.readVersion(connection)
        let notKeychain = { (what: String) in StoreError("\(connection.path) is not a keychainctl keychain or was tampered with (\(what))")
        }
        guard let keyCheck = meta["key_check"] else { throw notKeychain("no key check") }
        var passphrase: PassphraseKDF?
        var keychainID: [UInt8]?
        if version == 1 {
            if let salt = meta["kdf_salt"] {
                guard let ops = meta["kdf_ops"].flatMap({ UInt64(String(decoding: $0, as: UTF8.self)) }),
                    let mem = meta["kdf_mem"].flatMap({ UInt64(String(decoding: $0, as: UTF8.self)) })
                else { throw StoreError("the keychain's passphrase parameters are damaged: unreadable passes or memory") }
                passphrase = try PassphraseKDF(opsLimit: ops, memLimit: mem, salt: salt, encoding: .raw)
            }
        } else {
            guard let id = meta["keychain_id"], id.count == SealFormat.keychainIDBytes else { throw notKeychain("no keychain identity") }
            keychainID = id
            passphrase = try meta["kdf"].map { record throws(StoreError) in try PassphraseKDF(record: record) }
        }
        // Exactly the entries the version names, and from version 5 on the sync state's, if any.
        let expected = KeychainSchema.metaNames(version: version, passphrase: passphrase != nil)
        let syncState = version >= 5 && meta["sync_state"] != nil ? 1 : 0
        guard meta.count == expected.count + syncState, expected.allSatisfy({ meta[$0] != nil }) else {
            throw notKeychain("unexpected keychain_meta entries")
        }
        let wrapped = try KeychainSchema.readClassKeys(connection)
        return Unlocking(
            version: version, keyCheck: keyCheck, passphrase: passphrase, keychainID: keychainID, wrappedClassKeys: wrapped,
            deviceRecord: meta["device"])
    }

    /// errSecNotAvailable when there is no file at `path`, naming `create`, the command that makes
    /// one, and `then`, what the caller needs after it: checked before anyone is asked for a
    /// passphrase or a secret.
    package static func checkExists(
        _ path: String, create: @autoclosure () -> String? = nil, then: @autoclosure () -> String? = nil
    ) throws(KeychainError) {
        guard access(path, F_OK) == 0 else {
            let command = create() ?? "keychainctl init --keychain \(path.shellQuoted)"
            throw KeychainError(
                .notAvailable,
                hint: "no keychain at \(path.terminalSafe); create it with '\(command)'." + (then().map { " Then \($0)." } ?? ""))
        }
    }

    /// The compiled `statement` on `itemClass`'s table, prepared on first use and then reused; a
    /// fresh one when the cached one is still being stepped (a query run inside another's row
    /// loop must not reset it).
    package func statement(_ statement: ItemTable.Statement, of itemClass: ItemClass) throws(StoreError) -> SQLiteStatement {
        let key = table(itemClass).cacheKey(statement)
        if let cached = statements[key] {
            guard cached.isBusy else {
                cached.reset()
                return cached
            }
            return try connection.prepare(table(itemClass).sql(statement))
        }
        let prepared = try connection.prepare(table(itemClass).sql(statement))
        statements[key] = prepared
        return prepared
    }

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction: all of it happens or none of it.
    package func write<R>(_ body: () throws -> R) throws -> R { try connection.writeTransaction(body) }

    /// Runs `body` in one read transaction.
    package func read<R>(_ body: () throws -> R) throws -> R { try connection.readTransaction(body) }

    /// The table of a stored class.
    package func table(_ itemClass: ItemClass) -> ItemTable { Self.table(itemClass) }

    /// The table of a stored class, for tests and tools that walk every column.
    package static func table(_ itemClass: ItemClass) -> ItemTable { ItemTable(Schema.of(stored: itemClass)) }
}
