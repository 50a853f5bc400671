import KeychainFoundation

extension KeyCache.Slot {
    /// The slot of the keychain `id` at `path`, as the user gave it: its tags are the absolute path
    /// with its links resolved as far as they lead, and as named.
    package init(id: [UInt8], path: String) {
        self.init(id: id, resolved: Folders.absolute(path), given: Folders.lexicallyAbsolute(path))
    }
}
