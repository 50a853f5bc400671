/// `backup`: a copy of the file, made safely against other processes writing it meanwhile.
extension KeychainStore {
    /// Copies the file to `path` as one consistent snapshot (SQLite's online backup), handed to
    /// `check` (which opens it with the key) before it is published as a new file: never half-made,
    /// never over an existing file (errSecDuplicateKeychain).
    package func backup(to path: String, check: (String) throws -> Void) throws {
        try Self.publish(
            at: path, what: "backup",
            existing: KeychainError(.duplicateKeychain, hint: "\(path) exists; backup never overwrites a file. Nothing was written.")
        ) { temporary, _ in
            do {
                let copy = try SQLiteConnection(path: temporary, create: false)
                try connection.backup(into: copy)
            }
            try check(temporary)
        }
    }
}
