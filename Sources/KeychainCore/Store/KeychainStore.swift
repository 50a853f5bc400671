import Glibc

/// The keychain file: one SQLite database in WAL mode holding the schema version, the key check,
/// the wrapped class keys and one table per item class.
package final class KeychainStore {
    /// The schema version this build writes; older files are upgraded on open.
    package static let schemaVersion = 1

    let connection: SQLiteConnection
    let tables: [ItemClass: ItemTable]
    private var statements: [String: SQLiteStatement] = [:]

    /// What the file says about unlocking it.
    package struct Unlocking: Sendable {
        /// The sealed key-check value.
        package let keyCheck: [UInt8]
        /// Argon2id parameters when the keychain was made from a passphrase.
        package let passphrase: PassphraseKDF?
        /// Class keys wrapped by the keychain key, by `pdmn` code.
        package let wrappedClassKeys: [String: [UInt8]]
    }

    /// The unlocking material read on open.
    package let unlocking: Unlocking

    private static let derivedTables = Dictionary(
        uniqueKeysWithValues: Schema.classes.map { ($0.key, ItemTable($0.value)) })

    /// Opens an existing keychain file. A missing file is errSecNotAvailable (run `init`); a file
    /// that is not a keychain is a StoreError.
    package init(path: String) throws {
        guard access(path, F_OK) == 0 else {
            throw KeychainError(
                .notAvailable, hint: "no keychain at \(path); create one with 'keychainctl init --keychain \(path)'.")
        }
        connection = try SQLiteConnection(path: path, create: false)
        tables = Self.derivedTables
        try connection.execute("PRAGMA synchronous = NORMAL")
        unlocking = try Self.readUnlocking(connection)
    }

    private static func readUnlocking(_ connection: SQLiteConnection) throws(StoreError) -> Unlocking {
        var meta: [String: [UInt8]] = [:]
        var version = 0
        do {
            let statement = try connection.prepare(
                "SELECT name, value FROM keychain_meta UNION ALL SELECT 'version', version FROM schema_version")
            while try statement.step() {
                let name = statement.text(0)
                if name == "version" { version = Int(statement.integer(1)) } else { meta[name] = statement.blob(1) }
            }
        } catch {
            throw StoreError("\(connection.path) is not a keychainctl keychain (\(error.message))", sqliteCode: error.sqliteCode)
        }
        guard version >= 1, let keyCheck = meta["key_check"] else {
            throw StoreError("\(connection.path) is not a keychainctl keychain (no schema version or key check)")
        }
        guard version <= schemaVersion else {
            throw StoreError("\(connection.path) has schema version \(version); this keychainctl reads up to \(schemaVersion)")
        }
        var wrapped: [String: [UInt8]] = [:]
        let classKeys = try connection.prepare("SELECT pdmn, wrapped FROM class_keys")
        while try classKeys.step() { wrapped[classKeys.text(0)] = classKeys.blob(1) }
        var passphrase: PassphraseKDF?
        if let salt = meta["kdf_salt"], let ops = meta["kdf_ops"], let mem = meta["kdf_mem"],
            let opsLimit = UInt64(String(decoding: ops, as: UTF8.self)),
            let memLimit = UInt64(String(decoding: mem, as: UTF8.self))
        {
            passphrase = PassphraseKDF(opsLimit: opsLimit, memLimit: memLimit, salt: salt)
        }
        return Unlocking(keyCheck: keyCheck, passphrase: passphrase, wrappedClassKeys: wrapped)
    }

    /// A cached compiled statement for `sql`; a fresh one when the cached one is still being
    /// stepped (a query run inside another's row loop must not reset it).
    func statement(_ sql: String) throws(StoreError) -> SQLiteStatement {
        if let cached = statements[sql] {
            guard cached.isBusy else {
                cached.reset()
                return cached
            }
            return try connection.prepare(sql)
        }
        let statement = try connection.prepare(sql)
        statements[sql] = statement
        return statement
    }

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction: all of it happens or none of it.
    package func write<R>(_ body: () throws -> R) throws -> R { try connection.writeTransaction(body) }

    /// Runs `body` in one read transaction.
    package func read<R>(_ body: () throws -> R) throws -> R { try connection.readTransaction(body) }

    /// The table of a stored class.
    func table(_ itemClass: ItemClass) -> ItemTable { tables[itemClass]! }
}
