import Glibc
import KeychainFormats
import KeychainFoundation
import KeychainPlatform

/// An open keychain: the SecItem policy (add, find, update, delete, group moves) over the store
/// and the key ring. Mirrors `SecItemServer.c`'s checks and their order.
package final class Keychain {
    let store: KeychainStore
    let keys: KeyRing
    /// How this call answers the authentication protected items ask for.
    package var authentication = Authentication()
    /// The items the current call has authenticated for (by UUID): each is asked about once per
    /// call, and every call starts afresh, as every SecItem call asks again.
    var authenticatedItems: [[UInt8]] = []

    /// Opens the keychain at `path`. The wrong key or passphrase is errSecAuthFailed, checked
    /// before anything else is read. A file of an earlier schema version is upgraded in place first
    /// (see `Keychain+Upgrade.swift`). `deviceState` runs this one call as if the simulated device
    /// were in that lock state, changing nothing stored (`--device-state`).
    package convenience init(path: String, credential: KeychainCredential, deviceState: DeviceState.Lock? = nil) throws {
        try self.init(path: path, source: CredentialSource(useCache: false) { _ in credential }, deviceState: deviceState)
    }

    /// Opens the keychain at `path` with the key cached for it by `unlock` when `source` allows
    /// one and it opens the file's key check, else with what `source` resolves.
    package convenience init(path: String, source: CredentialSource, deviceState: DeviceState.Lock? = nil) throws {
        try self.init(try Self.opening(path: path, source: source), deviceState: deviceState)
    }

    /// The first half of opening: the file opened and the credential chosen. The key cached for
    /// the file by `unlock` is taken when `source` allows one and it opens the file's key check
    /// (a stale one is invalidated); otherwise `source` resolves one, so a command prompts only
    /// when no cached key serves, and can prompt before its own questions (the slow derivation
    /// comes after them all, in `init(_:deviceState:)`).
    package static func opening(path: String, source: CredentialSource) throws -> Opening {
        let store = try KeychainStore(path: path)
        if source.useCache, let entry = cachedKey(opening: store) {
            return Opening(path: path, store: store, credential: .key(entry.key), cachedIn: entry.ring)
        }
        do {
            return Opening(path: path, store: store, credential: try source.resolve(store.unlocking.passphrase != nil), cachedIn: nil)
        } catch let error as KeychainError where error.status == .interactionNotAllowed && source.useCache {
            // No key at hand: where the cache noted that a key it held was removed, say so (a
            // concurrent job's `lock --all`, an earlier step's `exec --lock` look alike otherwise).
            guard case .v2(let id) = store.unlocking.format, let removal = KeyCache.removal(of: KeyCache.Slot(id: id, path: path)) else {
                throw error
            }
            let until = removal.expires.map { " (until \(Self.utc($0)))" } ?? ""
            throw KeychainError(
                .interactionNotAllowed,
                hint: error.hint + " The key 'keychainctl unlock' cached for this keychain\(until) was removed at \(Self.utc(removal.at)) "
                    + "by '\(removal.by.terminalSafe)', in this session or another of this user: unlock it again to cache it anew.")
        }
    }

    /// A time as UTC, to the second (`2026-12-08T00:12:03Z`).
    static func utc(_ seconds: UInt64) -> String {
        ISO8601.format(Int64(seconds) * 1000).replacingBytes(".000Z", with: "Z")
    }

    /// The key `unlock` cached for the file `store` opened, when it opens the file's key check; a
    /// cached key that does not (the file was rekeyed, or another file took its identity) is
    /// invalidated.
    package static func cachedKey(opening store: KeychainStore) -> KeyCache.Entry? {
        let unlocking = store.unlocking
        guard case .v2(let id) = unlocking.format, let entry = KeyCache.lookup(KeyCache.Slot(id: id, path: store.connection.path)) else {
            return nil
        }
        let ring = KeyRing(keychainKey: entry.key, wrappedClassKeys: unlocking.wrappedClassKeys, format: unlocking.format)
        guard ring.opens(keyCheck: unlocking.keyCheck, kdfRecord: unlocking.kdfRecord) else {
            KernelKeyring.invalidate(entry.serial)
            return nil
        }
        return entry
    }

    /// A file opened and the credential chosen for it.
    package struct Opening {
        let path: String
        let store: KeychainStore
        let credential: KeychainCredential
        /// The keyring the credential came from when it is the key cached by `unlock`.
        package let cachedIn: KernelKeyring.Ring?
    }

    /// Opens the keychain `opening` chose a credential for.
    package init(_ opening: Opening, deviceState: DeviceState.Lock? = nil) throws {
        let path = opening.path
        let credential = opening.credential
        var opened = try Self.open(path: path, credential: credential, store: opening.store)
        try KeychainMigrator.run(&opened, path: path)
        store = opened.store
        keys = opened.keys
        keychainKey = opened.key
        cachedKeyRing = opening.cachedIn
        if let deviceState { keys.device.lock = deviceState }
    }

    /// The keychain key this call opened the file with (what `unlock` caches and `rekey` replaces).
    package let keychainKey: SecretBytes
    /// The keyring the key came from when it was the one `unlock` cached.
    package let cachedKeyRing: KernelKeyring.Ring?
    /// Whether the key came from the kernel keyring's cache.
    package var usedCachedKey: Bool { cachedKeyRing != nil }

    /// The file's identity, which names its cached key; `nil` for a version-1 file (upgraded on open).
    package var identity: [UInt8]? {
        if case .v2(let id) = store.unlocking.format { return id }
        return nil
    }

    /// A file opened: its store, its key ring and the keychain key (derived once from a passphrase).
    typealias OpenedFile = (store: KeychainStore, keys: KeyRing, key: SecretBytes)

    static func open(path: String, credential: KeychainCredential, store: KeychainStore? = nil) throws -> OpenedFile {
        let store = try store ?? KeychainStore(path: path)
        let unlocking = store.unlocking
        let key: SecretBytes
        switch credential {
        case .key(let given): key = given
        case .passphrase(let passphrase):
            guard let kdf = unlocking.passphrase else {
                throw KeychainError(
                    .authFailed, hint: "this keychain was created with a key file, not a passphrase; pass --key-file or KEYCHAINCTL_KEY.")
            }
            guard let derived = kdf.deriveKey(from: passphrase) else {
                throw ConfigurationError("cannot derive the key: Argon2id needs \(kdf.memLimit >> 20) MiB of memory.")
            }
            key = derived
        }
        let keys = KeyRing(keychainKey: key, wrappedClassKeys: unlocking.wrappedClassKeys, format: unlocking.format)
        guard keys.opens(keyCheck: unlocking.keyCheck, kdfRecord: unlocking.kdfRecord) else {
            // Argon2id parameters edited within their bounds derive another key, which looks like a
            // wrong passphrase without the right key: the exit status's entry (the man page's
            // EXIT STATUS) says so, where a typo's message need not. A restored backup is the
            // usual surprise: it keeps the key its keychain had when taken.
            let hint =
                unlocking.passphrase == nil
                ? "the key does not open \(path); nothing was read or changed. A keychain file opens only with the key it was "
                    + "made or last rekeyed with; a backup keeps the one its keychain had when the backup was taken."
                : "wrong passphrase for \(path): it does not open the keychain; nothing was read or changed. Check it and try "
                    + "again; a backup opens with the passphrase its keychain had when the backup was taken."
            throw KeychainError(.authFailed, hint: hint)
        }
        if let record = unlocking.deviceRecord {
            guard let device = keys.openDevice(record) else {
                throw StoreError("\(path)'s device state does not open: the file was edited without its key; nothing was read or changed")
            }
            keys.device = device
        }
        return (store, keys, key)
    }

    /// Creates a keychain at `path` unlocked by `credential`; a passphrase is stretched with
    /// Argon2id at `preset`'s cost. An empty passphrase is refused. `beforeNaming` runs when the
    /// file is written, just before it is named (`KeychainStore.create`).
    package static func create(
        path: String, credential: KeychainCredential, preset: PassphraseKDF.Preset = .moderate, beforeNaming: () throws -> Void = {}
    ) throws {
        let (key, kdf) = try newKey(from: credential, preset: preset, forWhat: "created")
        let keychainID = Sodium.randomBytes(SealFormat.keychainIDBytes)
        let format = SealFormat.v2(keychainID: keychainID)
        try KeychainStore.create(
            at: path, keychainID: keychainID, keyCheck: KeyRing.keyCheck(for: key, format: format, kdfRecord: kdf?.record),
            passphrase: kdf, wrappedClassKeys: KeyRing.newWrappedClassKeys(under: key, format: format),
            deviceRecord: KeyRing.sealDevice(.fresh(), under: key, format: format), beforeNaming: beforeNaming)
    }

    /// The keychain key a new credential gives (`init`, `rekey`): a key as it is, or a passphrase
    /// stretched with Argon2id at `preset`'s cost under a fresh salt, with its record. An empty
    /// passphrase is refused ("nothing was `forWhat`").
    static func newKey(from credential: KeychainCredential, preset: PassphraseKDF.Preset, forWhat: String) throws
        -> (key: SecretBytes, kdf: PassphraseKDF?)
    {
        switch credential {
        case .key(let given): return (given, nil)
        case .passphrase(let passphrase):
            guard passphrase.count > 0 else { throw ConfigurationError("the passphrase is empty; nothing was \(forWhat).") }
            let fresh = PassphraseKDF.fresh(preset)
            guard let derived = fresh.deriveKey(from: passphrase) else {
                throw ConfigurationError("cannot derive the key: Argon2id needs \(fresh.memLimit >> 20) MiB of memory.")
            }
            return (derived, fresh)
        }
    }

    /// Runs `body`'s calls (finds, deletes, adds) in one write transaction: another process sees
    /// all of their changes or none, and makes none of its own in between (a credential helper
    /// replacing a login while another process replaces the same one).
    package func inOneWrite<R>(_ body: () throws -> R) throws -> R { try store.write(body) }

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
            if let explicit = query.attributes[Schema.accessGroup]?.stringValue { [explicit] } else if caller.groups.grantsEveryGroup {
                nil
            } else {
                writing ? caller.groups.writable : caller.groups.readable
            }
        var filter = RowFilter(
            groups: groups, sync: query.sync == .any ? nil : query.sync == .yes)
        for (code, value) in query.attributes.sorted(by: { $0.key < $1.key }) {
            switch code {
            case Schema.accessGroup: continue
            case Schema.protection: filter.accessibility = value.stringValue
            default:
                let attribute = query.schema.attribute(code)!
                let digest = keys.digests.digest(query.itemClass, code: code, value: value, kind: attribute.kind)
                filter.digests.append(DigestedAttribute(column: attribute.column, digest: digest, code: code, value: value))
            }
        }
        filter.uuid = query.persistentRef?.uuid
        return filter
    }

    /// Opens a row the SQL selected for `query` and checks that it is what the query asked for:
    /// the filter's groups, sync, tombstone, accessibility and persistent reference, and every
    /// matched attribute's exact bytes. A row that fails is errSecDecode naming it (docs/SECURITY.md).
    func open(_ row: SealedItem, for query: ItemQuery, filter: RowFilter, withSecret: Bool) throws(KeychainError)
        -> (opened: OpenedRow, secret: ItemSecret?)
    {
        let opened = try keys.open(row, itemClass: query.itemClass, withSecret: withSecret, known: filter.digests)
        let item = opened.opened.item
        let matches =
            filter.admits(item)
            && query.attributes.allSatisfy { item.attributes[$0.key]?.canonicalBytes == $0.value.canonicalBytes }
        guard matches else { throw DamagedRow.Reason.queryMismatch.error(query.itemClass, uuid: row.uuid) }
        return opened
    }

    /// Runs `body`, turning a damaged row's errSecDecode into an entry of `damaged`; any other
    /// failure (a class key that does not open included) still throws.
    func containingDamage<T>(_ damaged: inout [DamagedRow], _ body: () throws -> T) throws -> T? {
        do { return try body() } catch let error as KeychainError where !error.damaged.isEmpty {
            damaged += error.damaged
            return nil
        }
    }

    /// What a miss among non-synchronizable items says of the others, in the options' words
    /// (`exec`'s references say it in the query's).
    static let syncAdvice = "(synchronizable ones need --sync yes or --sync any)"

    /// errSecItemNotFound, saying where it looked and which damaged rows it left out.
    func notFound(_ query: ItemQuery, filter: RowFilter, skipped: [DamagedRow] = []) -> KeychainError {
        var hint = "no \(query.itemClass.longName) matches"
        if let groups = filter.groups { hint += " in access group\(groups.count == 1 ? "" : "s") \(groups.joined(separator: ", "))" }
        if query.sync == .no {
            hint += " among non-synchronizable items " + Self.syncAdvice
        }
        if !skipped.isEmpty { hint += "; \(skipped.count) damaged item\(skipped.count == 1 ? " was" : "s were") skipped" }
        return KeychainError(.itemNotFound, hint: hint + ".")
    }
}
