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
}
