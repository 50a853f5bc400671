/// `backup`: a copy of the file, made safely against other processes writing it meanwhile.
extension KeychainStore {
    /// Copies the file to `path` as one consistent snapshot (SQLite's online backup into memory),
    /// handed to `check` (which opens it with the key) before it is written as a new file whole
    /// (`NewFile`): never half-made, nothing left if stopped, never over an existing file
    /// (errSecDuplicateKeychain).
    package func backup(to path: String, check: (KeychainStore) throws -> Void) throws {
        let copy = try SQLiteConnection.inMemory()
        try connection.backup(into: copy)
        try check(try KeychainStore(connection: copy))
        try Self.newFile(copy, at: path, what: "backup").create(
            existing: KeychainError(.duplicateKeychain, hint: "\(path) exists; backup never overwrites a file. Nothing was written."))
    }
}
