import Glibc

/// Checks on the paths of the files that hold keys and secrets.
package enum FileSafety {
    /// Refuses `path` when one of its components, as written, is a symbolic link owned by a user
    /// other than this one or root: that user could point it at a file of their choosing (a key
    /// they know, a keychain they read) at any moment.
    package static func checkLinks(_ path: String, what: String) throws(ConfigurationError) {
        // Each prefix ending before a "/" (and the whole path) is examined in place, in a copy of
        // the path's bytes whose separator is briefly a NUL: no strings built per component.
        var bytes = Array(path.utf8CString)
        let end = bytes.count - 1
        var index = 1
        while index <= end {
            if index == end || (bytes[index] == 0x2F && bytes[index - 1] != 0x2F) {
                let saved = bytes[index]
                bytes[index] = 0
                var status = stat()
                let found = lstat(bytes, &status) == 0
                bytes[index] = saved
                guard found else { return }  // missing: opening it reports that
                if status.st_mode & S_IFMT == S_IFLNK, status.st_uid != geteuid(), status.st_uid != 0 {
                    let link = String(decoding: bytes[0..<index].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                    throw ConfigurationError(
                        "the \(what) path \(path) goes through \(link), a symbolic link owned by another user "
                            + "(uid \(status.st_uid)); nothing was read.")
                }
            }
            index += 1
        }
    }

    /// Refuses to put a file at `path` when a folder on its way, as far as it exists, is owned by
    /// a user other than this one or root, or is writable by others (group or world) without the
    /// sticky bit: that user could swap the file for one of their own, or read it, between its
    /// creation and its use (as ssh's StrictModes refuses such folders).
    package static func checkFolders(of path: String, what: String) throws(ConfigurationError) {
        var folder = Folders.absolute(path)
        repeat {
            folder = Folders.split(folder).folder
            var status = stat()
            guard stat(folder, &status) == 0 else { continue }  // not made yet: made 0700 by us
            let owner = status.st_uid
            let othersWrite = status.st_mode & (S_IWGRP | S_IWOTH) != 0
            let sticky = status.st_mode & S_ISVTX != 0
            if owner != geteuid(), owner != 0 {
                throw ConfigurationError(
                    "refusing to write the \(what) \(path): \(folder) belongs to another user (uid \(owner)), who could replace or read it; "
                        + "choose a folder of your own.")
            }
            if othersWrite, !sticky {
                throw ConfigurationError(
                    "refusing to write the \(what) \(path): other users can write \(folder) (mode \(String(status.st_mode & 0o7777, radix: 8))), "
                        + "and could replace or read it; choose a folder only you can write (chmod go-w \(folder)).")
            }
        } while folder != "/" && folder != "."
    }
}
