import CSodium

/// The key hierarchy of one open keychain (docs/SECURITY.md).
///
/// keychain key ─┬─ digest key (derived): keyed digests of matchable attributes
///               ├─ wrap key (derived, v2): wraps the class keys, seals the key check
///               └─ class key per accessibility class (random, wrapped)
///                    ├─ metadata key (derived): seals each item's attributes
///                    ├─ item-wrap key (derived, v2): wraps per-item keys
///                    └─ per-item keys (random, wrapped): seal each item's secret
///
/// Not thread-safe (its caches fill lazily): one key ring serves one command in one thread.
package final class KeyRing: @unchecked Sendable {
    /// 32 bytes for every key in the hierarchy.
    package static let keyBytes = 32
    private static let keyCheckV1 = Array("keychainctl key check v1".utf8)
    private static let keyCheckV2 = Array("keychainctl key check v2".utf8)

    /// How this file binds its blobs.
    package let format: SealFormat
    private let wrapKey: SecretBytes
    /// Keyed digests for matchable attributes.
    package let digests: KeyedDigest
    private var wrappedClassKeys: [String: [UInt8]]
    /// The simulated device the keychain belongs to: a class key its state does not allow is never
    /// unwrapped (`classKey` refuses it), so no bug further up can read or write such a class.
    package var device = DeviceState(lock: .unlocked, passcode: true, biometrySet: nil) {
        didSet {
            for accessibility in Accessibility.allCases where !device.allows(accessibility) { forget(accessibility) }
        }
    }
    private var classKeys: [String: SecretBytes] = [:]
    private var metadataKeys: [String: SecretBytes] = [:]
    private var itemWrapKeys: [String: SecretBytes] = [:]
    /// One guarded buffer for per-item keys, reused item after item: a guarded allocation costs
    /// six system calls, and a migration of 10,000 items made three per item. Each use fills it
    /// (with a fresh key or an unwrapped one) immediately before reading it.
    package let itemKey = SecretBytes(count: keyBytes)
    /// The key derived from this call's application password, once one was given
    /// (`KeyRing+ApplicationPassword.swift`).
    package var applicationPasswordKey: SecretBytes?

    /// A key ring over `keychainKey` and the file's wrapped class keys (by `pdmn` code).
    package init(keychainKey: SecretBytes, wrappedClassKeys: [String: [UInt8]], format: SealFormat) {
        self.format = format
        self.wrapKey = Self.wrapKey(keychainKey, format: format)
        self.digests = KeyedDigest(key: KeyDerivation.derive(.digest, from: keychainKey), classBound: format != .v1)
        self.wrappedClassKeys = wrappedClassKeys
    }

    package static func wrapKey(_ keychainKey: SecretBytes, format: SealFormat) -> SecretBytes {
        format == .v1 ? keychainKey : KeyDerivation.derive(.classKeyWrap, from: keychainKey)
    }

    /// A value sealed under `key` that proves, on opening, that a later key is the same one. From
    /// version 2 it also authenticates the keychain's identity and its passphrase parameters.
    package static func keyCheck(for key: SecretBytes, format: SealFormat, kdfRecord: [UInt8]?) -> [UInt8] {
        let (plaintext, context) = keyCheckContext(format, kdfRecord: kdfRecord)
        return plaintext.withUnsafeBytes { AEAD.seal($0, key: wrapKey(key, format: format), associatedData: context) }
    }

    /// Whether this ring's keychain key opens `check`: the wrong key or passphrase fails here,
    /// before anything is read. Uses the ring's own wrap key, so opening a keychain derives it once.
    package func opens(keyCheck check: [UInt8], kdfRecord: [UInt8]?) -> Bool {
        let (plaintext, context) = Self.keyCheckContext(format, kdfRecord: kdfRecord)
        return AEAD.openPublic(check, key: wrapKey, associatedData: context) == plaintext
    }

    private static func keyCheckContext(_ format: SealFormat, kdfRecord: [UInt8]?) -> (plaintext: [UInt8], context: [UInt8]) {
        switch format {
        case .v1: (keyCheckV1, keyCheckV1)
        case .v2(let id): (keyCheckV2, SealFormat.lengthPrefixed([keyCheckV2, id, kdfRecord ?? []]))
        }
    }

    /// Fresh random class keys for every accessibility class, wrapped for `format` under `keychainKey`.
    package static func newWrappedClassKeys(under keychainKey: SecretBytes, format: SealFormat) -> [String: [UInt8]] {
        let wrapKey = wrapKey(keychainKey, format: format)
        var wrapped: [String: [UInt8]] = [:]
        for accessibility in Accessibility.allCases {
            wrapped[accessibility.rawValue] = wrap(SecretBytes.random(count: keyBytes), accessibility, under: wrapKey, format: format)
        }
        return wrapped
    }

    /// This ring's class keys wrapped for `format` under `keychainKey` (a file's upgrade: the
    /// class keys stay, their wrapping changes).
    package func rewrappedClassKeys(keychainKey: SecretBytes, format: SealFormat) throws(KeychainError) -> [String: [UInt8]] {
        let wrapKey = Self.wrapKey(keychainKey, format: format)
        var wrapped: [String: [UInt8]] = [:]
        for accessibility in Accessibility.allCases {
            wrapped[accessibility.rawValue] = Self.wrap(try classKey(accessibility), accessibility, under: wrapKey, format: format)
        }
        return wrapped
    }

    package static func wrap(_ classKey: SecretBytes, _ accessibility: Accessibility, under wrapKey: SecretBytes, format: SealFormat)
        -> [UInt8]
    {
        classKey.withUnsafeBytes { AEAD.seal($0, key: wrapKey, associatedData: classKeyContext(accessibility, format: format)) }
    }

    private static func classKeyContext(_ accessibility: Accessibility, format: SealFormat) -> [UInt8] {
        switch format {
        case .v1: Array("class key \(accessibility.rawValue)".utf8)
        case .v2(let id): SealFormat.lengthPrefixed([Array("kc2".utf8), id, Array("class key".utf8), Array(accessibility.rawValue.utf8)])
        }
    }

    /// The class key of `accessibility`, unwrapped on first use; a class key that does not open
    /// means the file was tampered with (errSecDecode).
    package func classKey(_ accessibility: Accessibility) throws(KeychainError) -> SecretBytes {
        guard device.allows(accessibility) else { throw device.refusal(accessibility) }
        if let key = classKeys[accessibility.rawValue] { return key }
        guard let wrapped = wrappedClassKeys[accessibility.rawValue],
            let key = AEAD.open(wrapped, key: wrapKey, associatedData: Self.classKeyContext(accessibility, format: format)),
            key.count == Self.keyBytes
        else {
            throw KeychainError(
                .decode,
                hint:
                    "the class key for \(accessibility.rawValue) does not open: the keychain file is damaged or was tampered with; run 'keychainctl verify'."
            )
        }
        classKeys[accessibility.rawValue] = key
        return key
    }

    /// Whether the file holds a (wrapped) class key for `accessibility`.
    package func hasClassKey(_ accessibility: Accessibility) -> Bool { wrappedClassKeys[accessibility.rawValue] != nil }

    /// Drops the unwrapped keys of `accessibility` (they are zeroed as they are released).
    private func forget(_ accessibility: Accessibility) {
        classKeys[accessibility.rawValue] = nil
        metadataKeys[accessibility.rawValue] = nil
        itemWrapKeys[accessibility.rawValue] = nil
    }

    /// A fresh random class key for `accessibility`, wrapped under this ring's keychain key, and
    /// the ring's own copy replaced: a new passcode gets a new `akpu` class, whose items from
    /// before it are lost for good.
    package func newClassKey(_ accessibility: Accessibility) -> [UInt8] {
        forget(accessibility)
        let wrapped = Self.wrap(SecretBytes.random(count: Self.keyBytes), accessibility, under: wrapKey, format: format)
        wrappedClassKeys[accessibility.rawValue] = wrapped
        return wrapped
    }

    /// Forgets `accessibility`'s class key for good (the passcode's removal destroys `akpu`).
    package func destroyClassKey(_ accessibility: Accessibility) {
        forget(accessibility)
        wrappedClassKeys[accessibility.rawValue] = nil
    }

    /// The device state sealed under the keychain key, bound to this keychain (schema version 3).
    package static func sealDevice(_ state: DeviceState, under keychainKey: SecretBytes, format: SealFormat) -> [UInt8] {
        sealDevice(state, wrapKey: wrapKey(keychainKey, format: format), format: format)
    }

    /// `sealDevice` with this ring's key.
    package func sealDevice(_ state: DeviceState) -> [UInt8] { Self.sealDevice(state, wrapKey: wrapKey, format: format) }

    private static func sealDevice(_ state: DeviceState, wrapKey: SecretBytes, format: SealFormat) -> [UInt8] {
        state.encoded.withUnsafeBytes { AEAD.seal($0, key: wrapKey, associatedData: deviceContext(format)) }
    }

    /// The device state a sealed record holds; `nil` when it does not open or parse (the file was
    /// edited without the key).
    package func openDevice(_ record: [UInt8]) -> DeviceState? {
        AEAD.openPublic(record, key: wrapKey, associatedData: Self.deviceContext(format)).flatMap(DeviceState.init(encoded:))
    }

    private static func deviceContext(_ format: SealFormat) -> [UInt8] {
        switch format {
        case .v1: Array("device state".utf8)
        case .v2(let id): SealFormat.lengthPrefixed([Array("kc3".utf8), id, Array("device state".utf8)])
        }
    }

    /// The device's sync state (`SyncState.encoded`) sealed under the keychain key, bound to this
    /// keychain (schema version 5; a version-1 file never syncs: it is upgraded when opened).
    package func sealSyncState(_ encoded: [UInt8]) -> [UInt8] {
        encoded.withUnsafeBytes { AEAD.seal($0, key: wrapKey, associatedData: syncStateContext) }
    }

    /// The encoded sync state a sealed record holds; `nil` when it does not open.
    package func openSyncState(_ record: [UInt8]) -> [UInt8]? {
        AEAD.openPublic(record, key: wrapKey, associatedData: syncStateContext)
    }

    /// The identity this keychain syncs under until it has a saved sync state: a keyed digest of
    /// its sync context, so a sync killed before it could save its state names the same device
    /// the next time (and adopts the records it wrote) instead of a new random one that would take
    /// them for another device's and overwrite later changes made here.
    package var syncDeviceID: Bytes16 {
        var digest = [UInt8](repeating: 0, count: 16)
        let context = syncStateContext + Array("device".utf8)
        wrapKey.withUnsafeBytes { key in
            _ = crypto_generichash(
                &digest, digest.count, context, UInt64(context.count), key.baseAddress!.assumingMemoryBound(to: UInt8.self), key.count)
        }
        return Bytes16(digest) ?? .zero
    }

    /// The seed of the signing key this keychain syncs under until it has a saved sync state
    /// (then the state keeps it): derived as `syncDeviceID` is, so that a sync killed before it
    /// saved signs with the same key the next time.
    package var syncSigningSeed: SecretBytes {
        let seed = SecretBytes(count: DeviceSigningKey.seedBytes)
        let context = syncStateContext + Array("device signing key".utf8)
        wrapKey.withUnsafeBytes { key in
            seed.withUnsafeMutableBytes { out in
                _ = crypto_generichash(
                    out.baseAddress!.assumingMemoryBound(to: UInt8.self), out.count, context, UInt64(context.count),
                    key.baseAddress!.assumingMemoryBound(to: UInt8.self), key.count)
            }
        }
        return seed
    }

    private var syncStateContext: [UInt8] {
        switch format {
        case .v1: Array("sync state".utf8)
        case .v2(let id): SealFormat.lengthPrefixed([Array("kc5".utf8), id, Array("sync state".utf8)])
        }
    }

    /// The metadata key of `accessibility`.
    package func metadataKey(_ accessibility: Accessibility) throws(KeychainError) -> SecretBytes {
        if let key = metadataKeys[accessibility.rawValue] { return key }
        let key = KeyDerivation.derive(.metadata, from: try classKey(accessibility))
        metadataKeys[accessibility.rawValue] = key
        return key
    }

    /// The key that wraps per-item keys of `accessibility`: the class key itself in version 1, a
    /// sub-key kept to that purpose from version 2.
    package func itemWrapKey(_ accessibility: Accessibility) throws(KeychainError) -> SecretBytes {
        guard format != .v1 else { return try classKey(accessibility) }
        if let key = itemWrapKeys[accessibility.rawValue] { return key }
        let key = KeyDerivation.derive(.itemKeyWrap, from: try classKey(accessibility))
        itemWrapKeys[accessibility.rawValue] = key
        return key
    }
}
