import Glibc

/// Checks on the paths of the files that hold keys and secrets.
package enum FileSafety {
    /// Refuses `path` when one of its components, as written, is a symbolic link owned by a user
    /// other than this one or root: that user could point it at a file of their choosing (a key
    /// they know, a keychain they read) at any moment.
    package static func checkLinks(_ path: String, what: String) throws(ConfigurationError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            prefix += (prefix.isEmpty || prefix.hasSuffix("/") ? "" : "/") + component
            var status = stat()
            guard lstat(prefix, &status) == 0 else { return }  // missing: opening it reports that
            if status.st_mode & S_IFMT == S_IFLNK, status.st_uid != geteuid(), status.st_uid != 0 {
                throw ConfigurationError(
                    "the \(what) path \(path) goes through \(prefix), a symbolic link owned by another user (uid \(status.st_uid)); "
                        + "nothing was read.")
            }
        }
    }
}
