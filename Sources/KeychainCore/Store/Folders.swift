import Glibc

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
                throw StoreError("cannot create folder \(prefix): \(FileBytes.lastErrorDescription())")
            }
        }
    }
}
