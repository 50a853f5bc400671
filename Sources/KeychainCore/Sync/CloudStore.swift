import Glibc

/// The cloud store several keychain files (devices of one account) sync through (issue 11): a
/// directory holding a sealed marker and one file per record, `records/<uuid hex>`, each sealed
/// under the account key. Nothing in it is plaintext but the record names (UUIDs) and sizes. Plain
/// files, so that an engine the user already runs (a shared folder, git) can carry it.
package final class CloudStore {
    package let path: String
    private let accountKey: SecretBytes
    private static let marker = "keychainctl-cloud"
    private static let markerText = Array("keychainctl cloud store v1".utf8)
    private static let markerData = SealFormat.lengthPrefixed([Array("kcc1 marker".utf8)])
    /// The largest record read: a 16 MiB secret and its attributes, sealed.
    static let recordLimit = InputLimits.secretBytes + (1 << 20)

    private var recordsPath: String { path + "/records" }

    /// Creates an empty store at `path` (a new or empty directory) for the account whose key is
    /// `accountKey`.
    package static func create(at path: String, accountKey: SecretBytes) throws {
        if mkdir(path, 0o700) != 0, errno != EEXIST { throw StoreError("cannot create \(path): \(String(cString: strerror(errno)))") }
        guard access(path + "/" + marker, F_OK) != 0 else { throw StoreError("\(path) is already a cloud store; nothing was changed") }
        if mkdir(path + "/records", 0o700) != 0, errno != EEXIST {
            throw StoreError("cannot create \(path)/records: \(String(cString: strerror(errno)))")
        }
        let sealed = markerText.withUnsafeBytes { AEAD.seal($0, key: accountKey, associatedData: markerData) }
        try writeAtomically(sealed, to: path + "/" + marker)
    }

    /// Opens the store at `path`: a directory that is not one is a StoreError (exit 74); the
    /// wrong account key is errSecAuthFailed (exit 51) and nothing is read.
    package init(path: String, accountKey: SecretBytes) throws {
        self.path = path
        self.accountKey = accountKey
        guard let sealed = try Self.readFile(path + "/" + Self.marker, limit: 4096) else {
            throw StoreError("\(path) is not a keychainctl cloud store (no \(Self.marker)); make one with 'keychainctl cloud init'")
        }
        guard AEAD.openPublic(sealed, key: accountKey, associatedData: Self.markerData) == Self.markerText else {
            throw KeychainError(.authFailed, hint: "the account key does not open the cloud store \(path); nothing was read or changed.")
        }
    }

    /// Runs `body` holding the store's lock (flock on `.lock`): two devices syncing at once take
    /// turns, and a process killed while holding it releases it.
    package func withLock<R>(_ body: () throws -> R) throws -> R {
        let fd = open(path + "/.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StoreError("cannot lock \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw StoreError("cannot lock \(path): \(String(cString: strerror(errno)))") }
        }
        return try body()
    }

    /// The UUIDs of every record file; names that are not 32 hex digits are not records.
    package func recordNames() throws -> [[UInt8]] {
        guard let directory = opendir(recordsPath) else {
            throw StoreError("cannot list \(recordsPath): \(String(cString: strerror(errno)))")
        }
        defer { closedir(directory) }
        var names: [[UInt8]] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if let uuid = Self.uuid(fromName: name) { names.append(uuid) }
        }
        return names.sorted { $0.lexicographicallyPrecedes($1) }
    }

    /// Record `uuid`: `nil` when there is none; errSecDecode naming it when it does not open
    /// (another account's, altered, cut short, or renamed from another UUID).
    package func record(_ uuid: [UInt8]) throws -> CloudRecord? {
        guard let sealed = try Self.readFile(file(uuid), limit: Self.recordLimit) else { return nil }
        guard let record = CloudRecord.open(sealed, uuid: uuid, accountKey: accountKey) else {
            throw KeychainError(
                .decode,
                hint: "cloud record \(Self.name(uuid)) does not open under the account key: it was altered, cut short, "
                    + "renamed from another record, or belongs to another account; nothing was applied from it.")
        }
        return record
    }

    /// Writes `record` (whole, atomically: a new file renamed over the old).
    package func write(_ record: CloudRecord) throws {
        try Self.writeAtomically(record.sealed(under: accountKey), to: file(record.uuid))
    }

    /// Deletes record `uuid` (nothing when there is none).
    package func delete(_ uuid: [UInt8]) throws {
        if unlink(file(uuid)) != 0, errno != ENOENT {
            throw StoreError("cannot delete cloud record \(Self.name(uuid)): \(String(cString: strerror(errno)))")
        }
    }

    private func file(_ uuid: [UInt8]) -> String { recordsPath + "/" + Self.name(uuid) }

    /// A UUID as its record's file name: 32 lowercase hex digits.
    package static func name(_ uuid: [UInt8]) -> String { Hex.lowercase(uuid) }

    static func uuid(fromName name: String) -> [UInt8]? {
        let bytes = Array(name.utf8)
        guard bytes.count == 32 else { return nil }
        var uuid: [UInt8] = []
        for index in stride(from: 0, to: 32, by: 2) {
            guard let high = hex(bytes[index]), let low = hex(bytes[index + 1]) else { return nil }
            uuid.append(high << 4 | low)
        }
        return uuid
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x61...0x66: byte - 0x57
        default: nil
        }
    }

    /// The bytes of the file at `path`, at most `limit` (more is a StoreError); `nil` when absent.
    private static func readFile(_ path: String, limit: Int) throws -> [UInt8]? {
        guard let bytes = FileBytes.read(path: path, limit: limit + 1, noFollow: true) else {
            if errno == ENOENT { return nil }
            throw StoreError("cannot read \(path): \(FileBytes.lastErrorDescription())")
        }
        guard bytes.count <= limit else { throw StoreError("\(path) is larger than any record (\(InputLimits.describe(limit)))") }
        return bytes
    }

    /// Writes `bytes` to a new file beside `path`, syncs it, and renames it over `path`.
    private static func writeAtomically(_ bytes: [UInt8], to path: String) throws {
        let temporary = path + ".new-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw StoreError("cannot write \(path): \(FileBytes.lastErrorDescription())") }
        let written = bytes.withUnsafeBytes { FileBytes.writeAll(fd, $0) } && fsync(fd) == 0
        close(fd)
        guard written, rename(temporary, path) == 0 else {
            let reason = FileBytes.lastErrorDescription()
            unlink(temporary)
            throw StoreError("cannot write \(path): \(reason)")
        }
        Folders.syncParent(of: path)
    }
}
