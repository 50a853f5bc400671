import Glibc
import KeychainPlatform

/// Folder creation for the keychain and key files.
package enum Folders {
    /// Creates the missing parent folders of `path`, each with mode 0700 (existing ones are left as
    /// they are).
    package static func makeParents(of path: String) throws(StoreError) {
        var prefix = ""
        let components = path.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        for (index, component) in components.enumerated() {
            prefix += (index == 0 ? "" : "/") + component
            guard !prefix.isEmpty, access(prefix, F_OK) != 0 else { continue }
            guard mkdir(prefix, 0o700) == 0 || errno == EEXIST else {
                throw StoreError("cannot create folder \(prefix): \(SystemError.text(errno))")
            }
        }
    }

    /// The folder holding `path` and its last component: ("/", "x") for "/x", (".", "x") for "x".
    package static func split(_ path: String) -> (folder: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let name = String(path[path.index(after: slash)...])
        return (slash == path.startIndex ? "/" : String(path[..<slash]), name)
    }

    /// Flushes the folder holding `path` to disk, so that a file just linked or created there
    /// survives a crash along with its contents (the file's own fsync does not cover its name).
    package static func syncParent(of path: String) {
        let fd = open(split(path).folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }

    /// `path` made absolute and free of symbolic links, `.` and `..` as far as it exists (the
    /// rest appended as written): where a path really points, for telling whether one is inside
    /// another, even before it is created.
    /// `path` made absolute without following any link: the working folder before a relative
    /// path, and `.` and `..` folded by name (what the user named, even where a link no longer
    /// leads anywhere).
    package static func lexicallyAbsolute(_ path: String) -> String {
        var base = ""
        if !path.hasPrefix("/") {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            base = getcwd(&buffer, buffer.count) != nil ? String(cString: buffer) : "/"
        }
        var parts: [Substring] = []
        for part in (base + "/" + path).split(separator: "/") {
            switch part {
            case ".": continue
            case "..": if !parts.isEmpty { parts.removeLast() }
            default: parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }

    package static func absolute(_ path: String) -> String {
        if let resolved = realpath(path, nil) {
            defer { free(resolved) }
            return String(cString: resolved)
        }
        let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        guard let slash = trimmed.lastIndex(of: "/") else {
            return absolute(".") + "/" + trimmed
        }
        let parent = slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
        let last = String(trimmed[trimmed.index(after: slash)...])
        let base = absolute(parent)
        if last == "." || last.isEmpty { return base }
        if last == ".." {
            let up = String(base[..<(base.lastIndex(of: "/") ?? base.startIndex)])
            return up.isEmpty ? "/" : up
        }
        return (base == "/" ? "" : base) + "/" + last
    }
}
