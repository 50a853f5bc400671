import Glibc
import KeychainFoundation

/// Where a built app's files are: in folders on the disk, or inside an archive read in place (an
/// `.ipa`). Paths are the same either way: a member of `App.ipa` is `App.ipa/Payload/Example.app/…`,
/// so messages name it as a user would find it after unzipping.
package enum BundleFiles: Sendable {
    case disk
    case archive(ZipArchive)

    /// The files `path` lies in: an archive when `path` is one, or runs through one (its first
    /// component that is a regular file must then be a zip archive); the disk otherwise.
    package static func containing(_ path: String) throws(ProfileError) -> BundleFiles {
        // Each prefix that ends before a slash, then the whole path.
        let ends = path.indices.filter { $0 != path.startIndex && path[$0] == "/" } + [path.endIndex]
        for end in ends {
            let prefix = String(path[..<end])
            var info = stat()
            guard stat(prefix, &info) == 0 else { return .disk }
            guard info.st_mode & S_IFMT == S_IFREG else { continue }
            guard let head = FileBytes.read(path: prefix, limit: 4), ZipArchive.isZip(head) else {
                if isIPA(prefix) { throw notAZip(prefix) }
                return .disk
            }
            return .archive(try ZipArchive.open(prefix))
        }
        return .disk
    }

    /// Whether `path` is named as an `.ipa` (which is a zip archive).
    package static func isIPA(_ path: String) -> Bool { path.lowercased().hasSuffix(".ipa") }

    /// Why a file named `.ipa` that is not a zip archive cannot be read as an app.
    package static func notAZip(_ path: String) -> ProfileError {
        ProfileError("\(path) is not a zip archive, as an .ipa is (Payload/NAME.app inside): it is not an app keychainctl can read.")
    }

    /// `path` inside the archive, `nil` when it is not under it (or is the archive itself).
    private func member(_ path: String, of archive: ZipArchive) -> String? {
        guard path.hasPrefix(archive.path + "/") else { return nil }
        return String(path.dropFirst(archive.path.count + 1))
    }

    /// Whether `path` is a regular file: on the disk followed through links only while they stay
    /// inside the bundle `root` (when given), in an archive never (a link is never read as a file).
    package func isFile(_ path: String, within root: String? = nil) -> Bool {
        switch self {
        case .disk:
            var info = stat()
            guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return false }
            guard let root else { return true }
            guard let resolved = Self.resolved(path), let base = Self.resolved(root) else { return false }
            return resolved.hasPrefix(base == "/" ? "/" : base + "/")
        case .archive(let archive): return member(path, of: archive).map { archive.files[$0] != nil } ?? false
        }
    }

    /// `path` with every link resolved, as the kernel would follow it.
    private static func resolved(_ path: String) -> String? {
        guard let pointer = realpath(path, nil) else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }

    /// Whether `path` is a folder, not a link to one.
    package func isFolder(_ path: String) -> Bool {
        switch self {
        case .disk:
            var info = stat()
            return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
        case .archive(let archive): return member(path, of: archive).map { archive.folders.contains($0) } ?? false
        }
    }

    /// The folders in folder `path`, by name, sorted; none when it is not a folder. A link is
    /// never followed out of the bundle.
    package func folders(in path: String) -> [String] {
        switch self {
        case .disk:
            guard let directory = opendir(path) else { return [] }
            defer { closedir(directory) }
            var names: [String] = []
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                guard name != ".", name != "..", isFolder(path + "/" + name) else { continue }
                names.append(name)
            }
            return names.sorted()
        case .archive(let archive):
            let inner = member(path, of: archive) ?? (path == archive.path ? "" : nil)
            guard let inner else { return [] }
            let start = inner.isEmpty ? "" : inner + "/"
            return archive.folders.filter { $0.hasPrefix(start) && !$0.dropFirst(start.count).contains("/") }
                .map { String($0.dropFirst(start.count)) }.sorted()
        }
    }

    /// The file at `path`, at most `limit` bytes; `nil` with `errno` set when the disk cannot give it.
    package func read(_ path: String, limit: Int) throws(ProfileError) -> [UInt8]? {
        switch self {
        case .disk: return FileBytes.read(path: path, limit: limit)
        case .archive(let archive):
            guard let name = member(path, of: archive) else { throw ProfileError("\(path) is not in \(archive.path).") }
            return try archive.read(name, limit: limit)
        }
    }

    /// The first bytes of file `path` (at most four): enough to tell a Mach-O or an archive.
    package func head(_ path: String) throws(ProfileError) -> [UInt8] {
        switch self {
        case .disk: return FileBytes.read(path: path, limit: 4) ?? []
        case .archive(let archive):
            guard let name = member(path, of: archive) else { throw ProfileError("\(path) is not in \(archive.path).") }
            return try archive.head(name, count: 4)
        }
    }

    /// The entitlements the Mach-O executable at `path` carries.
    package func machOEntitlements(_ path: String) throws(ProfileError) -> [UInt8] {
        switch self {
        case .disk: return try MachOEntitlements.read(path: path)
        case .archive(let archive):
            guard let name = member(path, of: archive) else { throw ProfileError("\(path) is not in \(archive.path).") }
            return try archive.machOEntitlements(name, path: path)
        }
    }
}
