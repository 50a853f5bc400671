import Glibc
import KeychainPlatform

/// Creating a keychain file, safely against other processes doing the same at the same moment.
extension KeychainStore {
    /// Creates a keychain at `path` whose key check is `keyCheck`. The file is built under a
    /// private temporary name and then hard-linked into place, so no process ever sees a half-made
    /// keychain, and of several creators exactly one wins; an existing file is never overwritten.
    package static func create(
        at path: String, keychainID: [UInt8], keyCheck: [UInt8], passphrase: PassphraseKDF?, wrappedClassKeys: [String: [UInt8]],
        deviceRecord: [UInt8]
    ) throws {
        try publish(
            at: path, what: "keychain",
            existing: KeychainError(
                .duplicateKeychain, hint: "a keychain already exists at \(path); keychainctl init never overwrites one.")
        ) { temporary, _ in
            let connection = try SQLiteConnection(path: temporary, create: false)
            try connection.execute("PRAGMA journal_mode = WAL")
            try connection.writeTransaction {
                for sql in KeychainSchema.createStatements { try connection.execute(sql) }
                try connection.prepare("INSERT INTO schema_version VALUES (?)").run([.integer(Int64(schemaVersion))])
                var meta: [(String, [UInt8])] = [("key_check", keyCheck), ("keychain_id", keychainID), ("device", deviceRecord)]
                if let passphrase { meta.append(("kdf", passphrase.record)) }
                try writeMeta(connection, meta)
                try writeClassKeys(connection, wrappedClassKeys)
            }
        }
    }

    /// Makes a new file at `path` as `build` fills it: under a private temporary name (mode 0600),
    /// then hard-linked into place, so no process ever sees it half-made, of several makers exactly
    /// one wins, and an existing file is never overwritten (`existing` is thrown). The parent
    /// folders are made (mode 0700); a link in the way is refused (`what` names the file). `build`
    /// gets the temporary name and the descriptor `O_EXCL` created it with: what it writes through
    /// the descriptor reaches this file, whatever another process does to the name meanwhile.
    package static func publish(at path: String, what: String, existing: any Error, _ build: (String, Int32) throws -> Void) throws {
        try FileSafety.checkLinks(path, what: what)
        try Folders.makeParents(of: path)
        removeAbandoned(beside: path)
        let temporary = "\(path).creating-\(getpid())-\(Base64.encode(Sodium.randomBytes(6)).replacingBytes("/", with: "_"))"
        let fd = open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw StoreError("cannot create \(temporary): \(SystemError.text(errno))") }
        defer { close(fd) }
        defer { removeTemporary(temporary) }
        try build(temporary, fd)
        guard link(temporary, path) == 0 else {
            if errno == EEXIST { throw existing }
            throw StoreError("cannot create \(path): \(SystemError.text(errno))")
        }
        Folders.syncParent(of: path)
    }

    /// What SQLite may leave beside a database it wrote: its write-ahead log, shared memory and
    /// rollback journal.
    private static let sideFiles = ["", "-wal", "-shm", "-journal"]

    private static func removeTemporary(_ temporary: String) {
        for suffix in sideFiles { unlink(temporary + suffix) }
    }

    /// Removes the temporary files of earlier makers of `path` that were killed before they could
    /// (`PATH.creating-PID-…` whose process is gone, and SQLite's files beside them): a backup or
    /// `init` ended by SIGKILL leaves nothing behind once the next one runs.
    private static func removeAbandoned(beside path: String) {
        let (folder, name) = Folders.split(path)
        let marker = name + ".creating-"
        guard let directory = opendir(folder) else { return }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let entryName = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard entryName.hasPrefix(marker) else { continue }
            let rest = entryName.dropFirst(marker.count)
            guard let dash = rest.firstIndex(of: "-"), let pid = pid_t(rest[..<dash]), pid > 0 else { continue }
            guard kill(pid, 0) != 0, errno == ESRCH else { continue }
            var status = stat()
            let full = folder + "/" + entryName
            guard lstat(full, &status) == 0, status.st_uid == geteuid() else { continue }
            unlink(full)
        }
    }

    /// Inserts or replaces keychain_meta entries.
    package static func writeMeta(_ connection: SQLiteConnection, _ entries: [(String, [UInt8])]) throws(StoreError) {
        let statement = try connection.prepare("INSERT OR REPLACE INTO keychain_meta VALUES (?, ?)")
        for (name, value) in entries { try statement.run([.text(name), .blob(value)]) }
    }

    /// Inserts or replaces the wrapped class keys.
    package static func writeClassKeys(_ connection: SQLiteConnection, _ wrapped: [String: [UInt8]]) throws(StoreError) {
        let statement = try connection.prepare("INSERT OR REPLACE INTO class_keys VALUES (?, ?)")
        for (pdmn, key) in wrapped.sorted(by: { $0.key < $1.key }) { try statement.run([.text(pdmn), .blob(key)]) }
    }
}
