import Glibc

/// Creating a keychain file, safely against other processes doing the same at the same moment.
extension KeychainStore {
    /// Creates a keychain at `path` whose key check is `keyCheck`. The file is built under a
    /// private temporary name and then hard-linked into place, so no process ever sees a half-made
    /// keychain, and of several creators exactly one wins; an existing file is never overwritten.
    package static func create(
        at path: String, keyCheck: [UInt8], passphrase: PassphraseKDF?, wrappedClassKeys: [String: [UInt8]]
    ) throws {
        try Folders.makeParents(of: path)
        let temporary = "\(path).creating-\(getpid())-\(Base64.encode(Sodium.randomBytes(6)).replacing("/", with: "_"))"
        let fd = open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StoreError("cannot create \(temporary): \(FileBytes.lastErrorDescription())") }
        close(fd)
        defer {
            unlink(temporary)
            unlink(temporary + "-wal")
            unlink(temporary + "-shm")
        }
        do {
            let connection = try SQLiteConnection(path: temporary, create: false)
            try connection.execute("PRAGMA journal_mode = WAL")
            try connection.writeTransaction {
                try connection.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
                try connection.execute("INSERT INTO schema_version VALUES (\(schemaVersion))")
                try connection.execute("CREATE TABLE keychain_meta (name TEXT PRIMARY KEY, value BLOB NOT NULL)")
                try connection.execute("CREATE TABLE class_keys (pdmn TEXT PRIMARY KEY, wrapped BLOB NOT NULL)")
                for table in derivedTablesInOrder {
                    for sql in table.createStatements { try connection.execute(sql) }
                }
                let meta = try connection.prepare("INSERT INTO keychain_meta VALUES (?, ?)")
                try meta.run([.text("key_check"), .blob(keyCheck)])
                if let passphrase {
                    try meta.run([.text("kdf_salt"), .blob(passphrase.salt)])
                    try meta.run([.text("kdf_ops"), .blob(Array(String(passphrase.opsLimit).utf8))])
                    try meta.run([.text("kdf_mem"), .blob(Array(String(passphrase.memLimit).utf8))])
                }
                let keys = try connection.prepare("INSERT INTO class_keys VALUES (?, ?)")
                for (pdmn, wrapped) in wrappedClassKeys.sorted(by: { $0.key < $1.key }) {
                    try keys.run([.text(pdmn), .blob(wrapped)])
                }
            }
        }
        guard link(temporary, path) == 0 else {
            if errno == EEXIST {
                throw KeychainError(
                    .duplicateKeychain, hint: "a keychain already exists at \(path); keychainctl init never overwrites one.")
            }
            throw StoreError("cannot create \(path): \(FileBytes.lastErrorDescription())")
        }
    }

    private static var derivedTablesInOrder: [ItemTable] {
        ItemClass.stored.map { ItemTable(Schema.of($0)!) }
    }
}
