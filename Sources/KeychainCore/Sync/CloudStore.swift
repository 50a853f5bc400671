import Glibc
import KeychainFormats
import KeychainFoundation
import KeychainPlatform

/// The cloud store several keychain files (devices of one account) sync through (docs/SYNC.md): a
/// directory holding a sealed marker, a sealed head (version 2: `CloudHead`) and one file per
/// record, `records/<uuid hex>`, each sealed under the account key. Nothing in it is plaintext but
/// the record names (UUIDs) and sizes. Plain files, so that an engine the user already runs (a
/// shared folder, git) can carry it.
package final class CloudStore {
    package let path: String
    let accountKey: SecretBytes
    /// Version 1 (records unsigned, no head: what stores made by 1.0 and earlier are until `cloud
    /// upgrade`) or version 2 and its epoch.
    package private(set) var format: Format
    package static let marker = "keychainctl-cloud"
    private static let markerText = Array("keychainctl cloud store v1".utf8)
    private static let markerData = SealFormat.lengthPrefixed([Array("kcc1 marker".utf8)])

    package enum Format: Equatable {
        case v1
        case v2(epoch: UInt32)

        package var epoch: UInt32? {
            guard case .v2(let epoch) = self else { return nil }
            return epoch
        }
    }
    /// The largest record read: a 16 MiB secret and its attributes, sealed.
    static let recordLimit = InputLimits.secretBytes + (1 << 20)

    var recordsPath: String { path + "/records" }
    static let headName = "head"

    /// The store's own paths, relative to its folder: all that `sync --git` ever stages.
    package static let ownPaths = [".gitignore", marker, headName, "records"]

    /// The store's `.gitignore`: everything at the top but the store's own files, and the staging
    /// files of interrupted writes. A key file or `.env` kept in the folder is never committed.
    static let gitignore = Array(
        ("# keychainctl cloud store: only its own files are ever committed.\n/*\n!/.gitignore\n!/\(marker)\n!/\(headName)\n"
            + "!/records/\n/records/*.new-*\n").utf8)

    /// Creates an empty version-2 store at `path` (a new or empty directory) for the account whose
    /// key is `accountKey`.
    package static func create(at path: String, accountKey: SecretBytes) throws {
        if mkdir(path, 0o700) != 0, errno != EEXIST { throw StoreError("cannot create \(path): \(SystemError.text(errno))") }
        guard access(path + "/" + marker, F_OK) != 0 else { throw StoreError("\(path) is already a cloud store; nothing was changed") }
        if mkdir(path + "/records", 0o700) != 0, errno != EEXIST {
            throw StoreError("cannot create \(path)/records: \(SystemError.text(errno))")
        }
        try writeAtomically(gitignore, to: path + "/.gitignore")
        try writeAtomically(CloudHead(epoch: 1).sealed(under: accountKey), to: path + "/" + headName)
        try writeAtomically(CloudMarker(epoch: 1, key: accountKey).bytes, to: path + "/" + marker)
    }

    /// Opens the store at `path`: a directory that is not one is a StoreError (exit 74); the
    /// wrong account key is errSecAuthFailed (exit 51) and nothing is read. `gitCheckout` says the
    /// folder is a git working copy, where a missing `records/` is an empty one (below).
    package init(path: String, accountKey: SecretBytes, gitCheckout: Bool = false) throws {
        self.path = path
        self.accountKey = accountKey
        // The records folder is listed and written: a symbolic link there would send both elsewhere.
        var status = stat()
        if lstat(path + "/records", &status) == 0, status.st_mode & S_IFMT != S_IFDIR {
            throw KeychainError(
                .decode, hint: "\(path)/records is not a folder (a symbolic link or a file); nothing was read or written through it.")
        }
        guard let sealed = try Self.readFile(path + "/" + Self.marker, limit: CloudMarker.byteLimit) else {
            throw StoreError("\(path) is not a keychainctl cloud store (no \(Self.marker)); make one with 'keychainctl cloud init'")
        }
        if let marker = CloudMarker(parsing: sealed) {
            switch marker.open(with: accountKey) {
            case .current(let epoch): format = .v2(epoch: epoch)
            case .rotated(let notice):
                throw KeychainError(
                    .authFailed,
                    hint: "the account key of the cloud store \(path) was rotated \(notice.description): this key is an older one, "
                        + "and nothing written since opens with it. Get the new account key file from a device that has it; "
                        + "nothing was read or changed.")
            case nil:
                throw KeychainError(
                    .authFailed, hint: "the account key does not open the cloud store \(path); nothing was read or changed.")
            }
        } else {
            guard AEAD.openPublic(sealed, key: accountKey, associatedData: Self.markerData) == Self.markerText else {
                throw KeychainError(
                    .authFailed, hint: "the account key does not open the cloud store \(path); nothing was read or changed.")
            }
            format = .v1
        }
        // git keeps no empty folder: a clone of a store that holds no record yet has none, and the
        // remote is the truth. The marker opened with this account's key, so the folder is made,
        // empty (a link or file there was refused above). A plain folder that lost its records
        // folder stays an error: that is a store someone damaged, not an empty one.
        if gitCheckout, mkdir(recordsPath, 0o700) != 0, errno != EEXIST {
            throw StoreError("cannot create \(recordsPath): \(SystemError.text(errno))")
        }
    }

    /// Runs `body` holding the store's lock (flock on `.lock`): two devices syncing at once take
    /// turns, and a process killed while holding it releases it. `.lock` is opened without
    /// following a symbolic link (one committed by whoever can push would make every device create
    /// or lock a file of the link's choosing) and must be a regular file.
    /// Reentrant: a body that locks again (`sync --git` holds it around its attempts) goes on.
    package func withLock<R>(_ body: () throws -> R) throws -> R {
        if lockDepth > 0 {
            lockDepth += 1
            defer { lockDepth -= 1 }
            return try body()
        }
        lockDepth = 1
        defer { lockDepth = 0 }
        return try Self.withLock(path: path, body)
    }

    private var lockDepth = 0

    /// Runs `body` holding the lock of the store folder `path` (`withLock`).
    static func withLock<R>(path: String, _ body: () throws -> R) throws -> R {
        let fd = open(path + "/.lock", O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0o600)
        guard fd >= 0 else {
            if errno == ELOOP { throw Self.notRegular(path + "/.lock") }
            throw StoreError("cannot lock \(path): \(SystemError.text(errno))")
        }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { throw Self.notRegular(path + "/.lock") }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw StoreError("cannot lock \(path): \(SystemError.text(errno))") }
        }
        return try body()
    }

    /// What a record file's status says about its version: a writer replaces a record by renaming
    /// a new file over it, which gives it a new inode and change time, so an equal stamp means the
    /// same version (git's index relies on the same). A sync opens only records whose stamp moved.
    package struct Stamp: Equatable, Sendable {
        package var inode: UInt64
        /// The status change time, in nanoseconds (no tool sets it back).
        package var changed: UInt64
        package var size: UInt64

        package static let none = Stamp(inode: 0, changed: 0, size: 0)
    }

    /// Every record file: its UUID and stamp, in the folder's order. Names that are not 32 lowercase hex
    /// digits are not records (a writer's temporary file, git's, the user's).
    package func listing() throws -> [(uuid: Bytes16, stamp: Stamp)] {
        guard let directory = opendir(recordsPath) else {
            throw StoreError("cannot list \(recordsPath): \(SystemError.text(errno))")
        }
        defer { closedir(directory) }
        let fd = dirfd(directory)
        var found: [(uuid: Bytes16, stamp: Stamp)] = []
        while let entry = readdir(directory) {
            let listed = try withUnsafeBytes(of: entry.pointee.d_name) { raw -> (uuid: Bytes16, stamp: Stamp)? in
                let name = UnsafeRawBufferPointer(rebasing: raw.prefix { $0 != 0 })
                guard let uuid = Self.uuid(fromName: name) else { return nil }
                var status = stat()
                guard fstatat(fd, raw.baseAddress!.assumingMemoryBound(to: CChar.self), &status, AT_SYMLINK_NOFOLLOW) == 0 else {
                    if errno == ENOENT { return nil }
                    throw StoreError("cannot read cloud record \(Self.name(uuid)): \(SystemError.text(errno))")
                }
                return (uuid, Stamp(status))
            }
            if let listed { found.append(listed) }
        }
        return found
    }

    /// The stamp of record `uuid` as it is now (`nil` when there is none).
    package func stamp(_ uuid: Bytes16) -> Stamp? {
        var status = stat()
        guard lstat(file(uuid), &status) == 0 else { return nil }
        return Stamp(status)
    }

    /// Record `uuid`: `nil` when there is none; errSecDecode naming it when it does not open
    /// (another account's, altered, cut short, or renamed from another UUID).
    package func record(_ uuid: Bytes16) throws -> CloudRecord? {
        guard
            let sealed = try Self.readFile(
                file(uuid), limit: Self.recordLimit,
                oversized: { size in
                    KeychainError(
                        .decode, hint: "cloud record \(Self.name(uuid)) is larger than any record (\(size)); nothing was applied from it.")
                })
        else { return nil }
        guard var record = CloudRecord.open(sealed, uuid: uuid, accountKey: accountKey) else {
            throw KeychainError(
                .decode,
                hint: "cloud record \(Self.name(uuid)) does not open under the account key: it was altered, cut short, "
                    + "renamed from another record, or belongs to another account; nothing was applied from it.")
        }
        record.fileDigest = Self.digest(sealed)
        return record
    }

    /// The bytes of record `uuid`'s file (`nil` when there is none), unopened.
    func rawRecord(_ uuid: Bytes16) throws -> [UInt8]? { try Self.readFile(file(uuid), limit: Self.recordLimit) }

    /// The digest a head lists for a record file's bytes.
    package static func digest(_ bytes: [UInt8]) -> Bytes16 { Sodium.pieceDigest { (feed) throws(Never) in bytes.withUnsafeBytes(feed) } }

    // MARK: Head

    /// The stamp of the head file as it is now (`nil` when there is none).
    package func headStamp() -> Stamp? {
        var status = stat()
        guard lstat(path + "/" + Self.headName, &status) == 0 else { return nil }
        return Stamp(status)
    }

    /// The store's head (version 2); errSecDecode when it is missing or does not open.
    package func head() throws -> CloudHead {
        guard let epoch = format.epoch else { throw StoreError("\(path) is a version-1 cloud store: it has no head") }
        let headPath = path + "/" + Self.headName
        guard let sealed = try Self.readFile(headPath, limit: CloudHead.byteLimit) else {
            throw KeychainError(
                .decode,
                hint: "the cloud store \(path) has no head file (\(Self.headName)): it was deleted; nothing was applied or changed.")
        }
        guard let head = CloudHead.open(sealed, epoch: epoch, accountKey: accountKey) else {
            throw KeychainError(
                .decode,
                hint: "the head of the cloud store \(path) does not open under the account key of epoch \(epoch): it was altered, "
                    + "replaced, or a rotation was interrupted ('keychainctl cloud rekey' again with both keys finishes it); "
                    + "nothing was applied or changed.")
        }
        return head
    }

    /// Writes `head` (whole, durable) and returns the new file's stamp.
    package func write(_ head: CloudHead) throws -> Stamp {
        try Self.writeAtomically(head.sealed(under: accountKey), to: path + "/" + Self.headName)
        return headStamp() ?? .none
    }

    /// Writes the marker of a version-2 store (whole, durable).
    func write(_ marker: CloudMarker) throws {
        try Self.writeAtomically(marker.bytes, to: path + "/" + Self.marker)
        format = .v2(epoch: marker.epochOpened(with: accountKey) ?? 0)
    }

    /// The marker as it is, parsed (version 2), `nil` for a version-1 one.
    func currentMarker() throws -> CloudMarker? {
        try Self.readFile(path + "/" + Self.marker, limit: CloudMarker.byteLimit).flatMap(CloudMarker.init(parsing:))
    }

    /// A store file that is a symbolic link, FIFO, device or folder: errSecDecode naming it.
    static func notRegular(_ path: String) -> KeychainError {
        KeychainError(.decode, hint: "\(path) is not a regular file (a symbolic link, FIFO, device or folder); it was not opened.")
    }

    /// A staging file's suffix: random, so that two writers sharing the folder without a working
    /// lock (a synced folder, some SMB mounts) never write into one file.
    private static func stagingSuffix() -> String {
        ".new-" + Hex.lowercase(SecretBytes.random(count: 8).withUnsafeBytes { Array($0) })
    }

    /// Writes `records`, each whole and atomically (a new file renamed over the old), signed by
    /// `signer` (version 2) or unsigned (version 1), and returns the new files' stamps and digests.
    /// Every new file is written first, then all are made durable at once (`syncfs`: one flush,
    /// not one per record), then renamed into place and the folder synced: a record is never in
    /// place before its bytes are on disk.
    package func write(_ records: [CloudRecord], signer: DeviceSigningKey?) throws -> [Bytes16: (stamp: Stamp, digest: Bytes16)] {
        try write(records.map { ($0.uuid, $0.sealed(under: accountKey, signer: signer)) })
    }

    /// Writes sealed record files (`write(_:signer:)`).
    func write(_ files: [(uuid: Bytes16, sealed: [UInt8])]) throws -> [Bytes16: (stamp: Stamp, digest: Bytes16)] {
        guard !files.isEmpty else { return [:] }
        let suffix = Self.stagingSuffix()
        var staged: [Bytes16] = []
        var digests: [Bytes16: Bytes16] = [:]
        defer { for uuid in staged { unlink(file(uuid) + suffix) } }
        for (uuid, sealed) in files {
            let path = file(uuid) + suffix
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard fd >= 0 else { throw StoreError("cannot write \(path): \(SystemError.text(errno))") }
            staged.append(uuid)
            digests[uuid] = Self.digest(sealed)
            let written = sealed.withUnsafeBytes { FileBytes.writeAll(fd, $0) }
            let reason = SystemError.text(errno)
            close(fd)
            guard written else { throw StoreError("cannot write \(path): \(reason)") }
        }
        try syncRecords(fileSystem: true)
        var stamps: [Bytes16: (stamp: Stamp, digest: Bytes16)] = [:]
        for uuid in staged {
            guard rename(file(uuid) + suffix, file(uuid)) == 0 else {
                throw StoreError("cannot write \(file(uuid)): \(SystemError.text(errno))")
            }
            stamps[uuid] = (stamp(uuid) ?? Stamp.none, digests[uuid] ?? .zero)
        }
        staged = []
        try syncRecords(fileSystem: false)
        return stamps
    }

    /// Writes one record (`write(_:signer:)` of one); returns its file's stamp.
    package func write(_ record: CloudRecord, signer: DeviceSigningKey?) throws -> Stamp {
        try write([record], signer: signer)[record.uuid]?.stamp ?? .none
    }

    /// Flushes the records folder's entries, and with `fileSystem` everything written on its file
    /// system (new files' bytes) first.
    private func syncRecords(fileSystem: Bool) throws {
        let fd = open(recordsPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw StoreError("cannot open \(recordsPath): \(SystemError.text(errno))") }
        defer { close(fd) }
        guard !fileSystem || FileSync.fileSystem(of: fd), fsync(fd) == 0 else {
            throw StoreError("cannot sync \(recordsPath): \(SystemError.text(errno))")
        }
    }

    /// Deletes records `uuids` (nothing for one that is not there) and makes the deletions
    /// durable: a deletion lost to a crash after the keychain forgot the record would bring the
    /// item back as another device's.
    package func delete(_ uuids: [Bytes16]) throws {
        guard !uuids.isEmpty else { return }
        for uuid in uuids where unlink(file(uuid)) != 0 && errno != ENOENT {
            throw StoreError("cannot delete cloud record \(Self.name(uuid)): \(SystemError.text(errno))")
        }
        try syncRecords(fileSystem: false)
    }

    /// Deletes record `uuid` (`delete(_:)` of one).
    package func delete(_ uuid: Bytes16) throws { try delete([uuid]) }

    private func file(_ uuid: Bytes16) -> String { recordsPath + "/" + Self.name(uuid) }

    /// A UUID as its record's file name: 32 lowercase hex digits.
    package static func name(_ uuid: Bytes16) -> String { Hex.lowercase(uuid.bytes) }

    static func uuid(fromName name: UnsafeRawBufferPointer) -> Bytes16? {
        guard name.count == 32 else { return nil }
        return withUnsafeTemporaryAllocation(byteCount: 16, alignment: 8) { uuid -> Bytes16? in
            for index in 0..<16 {
                guard let high = hex(name[2 * index]), let low = hex(name[2 * index + 1]) else { return nil }
                uuid[index] = high << 4 | low
            }
            return Bytes16(UnsafeRawBufferPointer(uuid))
        }
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x61...0x66: byte - 0x57
        default: nil
        }
    }

    /// The bytes of the file at `path`, at most `limit` (more is a StoreError); `nil` when absent.
    /// `oversized` makes the error for a larger file (given the limit, described).
    /// A symbolic link, FIFO or any other file that is not regular is errSecDecode, never followed
    /// or waited on.
    static func readFile(_ path: String, limit: Int, oversized: ((String) -> Error)? = nil) throws -> [UInt8]? {
        let bytes: [UInt8]
        switch FileBytes.readRegular(path: path, limit: limit + 1) {
        case .success(let read): bytes = read
        case .failure(.missing): return nil
        case .failure(.notRegular): throw notRegular(path)
        case .failure(.failed(let error)): throw StoreError("cannot read \(path): \(SystemError.text(error))")
        }
        guard bytes.count <= limit else {
            let size = "over \(InputLimits.describe(limit))"
            throw oversized?(size) ?? StoreError("\(path) is larger than it can be (\(size))")
        }
        return bytes
    }

    /// Writes `bytes` as `path`, whole or not at all (`NewFile`), replacing what is there.
    static func writeAtomically(_ bytes: [UInt8], to path: String) throws {
        try NewFile(path, what: "cloud store file") { fd in
            guard bytes.withUnsafeBytes({ FileBytes.writeAll(fd, $0) }) else { throw NewFile.writeFailure(path) }
        }.replace()
    }
}

extension CloudStore.Stamp {
    init(_ status: stat) {
        self.init(
            inode: UInt64(status.st_ino), changed: UInt64(status.st_ctim.tv_sec) &* 1_000_000_000 &+ UInt64(status.st_ctim.tv_nsec),
            size: UInt64(status.st_size))
    }
}
