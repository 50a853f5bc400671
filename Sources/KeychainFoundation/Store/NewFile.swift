import Glibc
import KeychainPlatform

/// Writing a file whole or not at all: key files, keychains, backups, exports.
///
/// The bytes go into a file with no name in the destination's folder (O_TMPFILE), are made
/// durable, and only then is the file given its name. Until then no other process can open it, and
/// whatever stops the writer (an error, a full disk, SIGKILL) leaves nothing: the kernel frees an
/// unnamed file when its last descriptor closes. Where the file system cannot make unnamed files
/// (some network file systems), the bytes go to `PATH.creating-PID-RANDOM` instead, removed on any
/// error, and by the next writer of PATH once its process is gone.
package final class NewFile {
    /// Where the file goes.
    package let path: String
    private let fd: Int32
    /// The name it was written under where no unnamed file could be made.
    private let temporary: String?

    /// The file for `path` (mode 0600), holding what `write` writes to the descriptor it is given,
    /// made durable, but not yet named: nothing is there until `create` or `replace`, and nothing
    /// stays if neither is called. For two files that belong together (a keychain and its key
    /// file), both are written before either is named. The parent folders are made (mode 0700); a
    /// link in the way is refused (`what` names the file).
    package init(_ path: String, what: String, _ write: (Int32) throws -> Void) throws {
        try FileSafety.checkLinks(path, what: what)
        try Folders.makeParents(of: path)
        Self.removeAbandoned(beside: path)
        var temporary: String?
        var fd = FileSync.openUnnamed(in: Folders.split(path).folder)
        if fd < 0, [EOPNOTSUPP, EISDIR, EINVAL].contains(errno) {
            let name = Self.temporaryName(for: path)
            temporary = name
            fd = open(name, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0o600)
        }
        guard fd >= 0 else { throw StoreError("cannot create \(path): \(SystemError.text(errno))") }
        (self.path, self.fd, self.temporary) = (path, fd, temporary)
        try write(fd)
        guard fsync(fd) == 0 else { throw Self.writeFailure(path) }
    }

    deinit {
        close(fd)
        if let temporary { unlink(temporary) }
    }

    /// Names the file `path`, never over an existing file (`existing` is thrown then): of several
    /// makers exactly one wins.
    package func create(existing: any Error) throws {
        let linked = temporary.map { link($0, path) == 0 } ?? FileSync.link(fd, to: path)
        guard linked else {
            if errno == EEXIST { throw existing }
            throw StoreError("cannot create \(path): \(SystemError.text(errno))")
        }
        Folders.syncParent(of: path)
    }

    /// Names the file `path`, replacing a file there at once: a reader finds the old file or the
    /// new one. The new one is named `PATH.creating-…` for the moment between its naming and the
    /// rename, the one window in which a kill leaves it (removed by the next writer of PATH).
    package func replace() throws {
        let named = temporary ?? Self.temporaryName(for: path)
        guard temporary != nil || FileSync.link(fd, to: named) else {
            throw StoreError("cannot create \(named): \(SystemError.text(errno))")
        }
        guard rename(named, path) == 0 else {
            let failure = errno
            unlink(named)
            throw StoreError("cannot replace \(path): \(SystemError.text(failure))")
        }
        Folders.syncParent(of: path)
    }

    /// The error for a write to `path` that failed just now (errno).
    package static func writeFailure(_ path: String) -> StoreError { StoreError("cannot write \(path): \(SystemError.text(errno))") }

    private static let marker = ".creating-"

    private static func temporaryName(for path: String) -> String {
        "\(path)\(marker)\(getpid())-\(Base64.encode(Sodium.randomBytes(6)).replacingBytes("/", with: "_"))"
    }

    /// Removes what earlier writers of `path` left when they were killed in one of the windows
    /// above (`PATH.creating-PID-…` whose process is gone, and SQLite's files beside one, which
    /// versions before unnamed files left): a file of a writer still running is left to it.
    private static func removeAbandoned(beside path: String) {
        let (folder, name) = Folders.split(path)
        let prefix = name + marker
        guard let directory = opendir(folder) else { return }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let entryName = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard entryName.hasPrefix(prefix) else { continue }
            let rest = entryName.dropFirst(prefix.count)
            guard let dash = rest.firstIndex(of: "-"), let pid = pid_t(rest[..<dash]), pid > 0 else { continue }
            guard kill(pid, 0) != 0, errno == ESRCH else { continue }
            var status = stat()
            let full = folder + "/" + entryName
            guard lstat(full, &status) == 0, status.st_uid == geteuid() else { continue }
            unlink(full)
        }
    }
}
