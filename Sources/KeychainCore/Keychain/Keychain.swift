import Glibc

/// An open keychain: the SecItem policy (add, find, update, delete, group moves) over the store
/// and the key ring. Mirrors `SecItemServer.c`'s checks and their order.
package final class Keychain {
    let store: KeychainStore
    let keys: KeyRing

    /// Opens the keychain at `path`. The wrong key or passphrase is errSecAuthFailed, checked
    /// before anything else is read.
    package init(path: String, credential: KeychainCredential) throws {
        store = try KeychainStore(path: path)
        let key: SecretBytes
        switch credential {
        case .key(let given): key = given
        case .passphrase(let passphrase):
            guard let kdf = store.unlocking.passphrase else {
                throw KeychainError(
                    .authFailed, hint: "this keychain was created with a key file, not a passphrase; pass --key-file or KEYCHAINCTL_KEY.")
            }
            guard let derived = kdf.deriveKey(from: passphrase) else {
                throw ConfigurationError("cannot derive the key: Argon2id needs \(kdf.memLimit >> 20) MiB of memory.")
            }
            key = derived
        }
        guard KeyRing.verify(key, against: store.unlocking.keyCheck) else {
            throw KeychainError(.authFailed, hint: "the key or passphrase does not open \(path); nothing was read or changed.")
        }
        keys = KeyRing(keychainKey: key, wrappedClassKeys: store.unlocking.wrappedClassKeys)
    }

    /// Creates a keychain at `path` unlocked by `credential`.
    package static func create(path: String, credential: KeychainCredential) throws {
        let key: SecretBytes
        var kdf: PassphraseKDF?
        switch credential {
        case .key(let given): key = given
        case .passphrase(let passphrase):
            let fresh = PassphraseKDF.fresh()
            guard let derived = fresh.deriveKey(from: passphrase) else {
                throw ConfigurationError("cannot derive the key: Argon2id needs \(fresh.memLimit >> 20) MiB of memory.")
            }
            key = derived
            kdf = fresh
        }
        try KeychainStore.create(
            at: path, keyCheck: KeyRing.keyCheck(for: key), passphrase: kdf,
            wrappedClassKeys: KeyRing.newWrappedClassKeys(under: key))
    }

    /// Now, in milliseconds since 1970.
    static func now() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }

    /// The row filter for `query` as `caller` sees it: its groups (or the explicit one), the sync
    /// filter, the digests of matched attributes, and the persistent reference.
    func filter(for query: ItemQuery, caller: Caller, writing: Bool) -> RowFilter {
        let groups: [String]? =
            if let explicit = query.attributes["agrp"]?.stringValue { [explicit] } else if caller.groups.grantsEveryGroup { nil } else {
                writing ? caller.groups.writable : caller.groups.readable
            }
        var filter = RowFilter(
            groups: groups, sync: query.sync == .any ? nil : query.sync == .yes)
        for (code, value) in query.attributes.sorted(by: { $0.key < $1.key }) {
            switch code {
            case "agrp": continue
            case "pdmn": filter.accessibility = value.stringValue
            default:
                let column = query.schema.attribute(code)!.column
                filter.digests.append((column, keys.digests.digest(code: code, value: value.canonicalBytes)))
            }
        }
        filter.uuid = query.persistentRef?.uuid
        return filter
    }

    /// errSecItemNotFound, saying where it looked.
    func notFound(_ query: ItemQuery, filter: RowFilter) -> KeychainError {
        var hint = "no \(query.itemClass.longName) matches"
        if let groups = filter.groups { hint += " in access group\(groups.count == 1 ? "" : "s") \(groups.joined(separator: ", "))" }
        if query.sync == .no {
            hint += " among non-synchronizable items (synchronizable ones need --sync yes or --sync any)"
        }
        return KeychainError(.itemNotFound, hint: hint + ".")
    }
}
