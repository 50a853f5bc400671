/// The key hierarchy of one open keychain (SEMANTICS §6).
///
/// keychain key ─┬─ digest key (derived): keyed digests of matchable attributes
///               └─ class key per accessibility class (random, wrapped by the keychain key)
///                    ├─ metadata key (derived): seals each item's attributes
///                    └─ per-item keys (random, wrapped by the class key): seal each item's secret
package final class KeyRing: @unchecked Sendable {
    /// 32 bytes for every key in the hierarchy.
    package static let keyBytes = 32
    private static let keyCheckContext = Array("keychainctl key check v1".utf8)

    private let keychainKey: SecretBytes
    /// Keyed digests for matchable attributes.
    package let digests: KeyedDigest
    private let wrappedClassKeys: [String: [UInt8]]
    private var metadataKeys: [String: SecretBytes] = [:]
    private var classKeys: [String: SecretBytes] = [:]
    /// One guarded buffer for per-item keys, reused item after item: a guarded allocation costs
    /// six system calls, and a migration of 10,000 items made three per item.
    let itemKey = SecretBytes(count: keyBytes)

    /// A key ring over `keychainKey` and the file's wrapped class keys (by `pdmn` code).
    package init(keychainKey: SecretBytes, wrappedClassKeys: [String: [UInt8]]) {
        self.keychainKey = keychainKey
        self.digests = KeyedDigest(key: KeyDerivation.derive(.digest, from: keychainKey))
        self.wrappedClassKeys = wrappedClassKeys
    }

    /// A value sealed under `key` that proves, on opening, that a later key is the same one.
    package static func keyCheck(for key: SecretBytes) -> [UInt8] {
        keyCheckContext.withUnsafeBytes { AEAD.seal($0, key: key, associatedData: keyCheckContext) }
    }

    /// Whether `key` opens `check`: the wrong key or passphrase fails here, before anything is read.
    package static func verify(_ key: SecretBytes, against check: [UInt8]) -> Bool {
        AEAD.openPublic(check, key: key, associatedData: keyCheckContext) == keyCheckContext
    }

    /// Fresh random class keys for every accessibility class, wrapped by `keychainKey`.
    package static func newWrappedClassKeys(under keychainKey: SecretBytes) -> [String: [UInt8]] {
        var wrapped: [String: [UInt8]] = [:]
        for accessibility in Accessibility.allCases {
            let classKey = SecretBytes.random(count: keyBytes)
            wrapped[accessibility.rawValue] = classKey.withUnsafeBytes {
                AEAD.seal($0, key: keychainKey, associatedData: classKeyContext(accessibility))
            }
        }
        return wrapped
    }

    private static func classKeyContext(_ accessibility: Accessibility) -> [UInt8] {
        Array("class key \(accessibility.rawValue)".utf8)
    }

    /// The class key of `accessibility`, unwrapped on first use; a class key that does not open
    /// means the file was tampered with (errSecDecode).
    func classKey(_ accessibility: Accessibility) throws(KeychainError) -> SecretBytes {
        if let key = classKeys[accessibility.rawValue] { return key }
        guard let wrapped = wrappedClassKeys[accessibility.rawValue],
            let key = AEAD.open(wrapped, key: keychainKey, associatedData: Self.classKeyContext(accessibility))
        else {
            throw KeychainError(
                .decode,
                hint: "the class key for \(accessibility.rawValue) does not open: the keychain file is damaged or was tampered with.")
        }
        classKeys[accessibility.rawValue] = key
        return key
    }

    /// The metadata key of `accessibility`.
    func metadataKey(_ accessibility: Accessibility) throws(KeychainError) -> SecretBytes {
        if let key = metadataKeys[accessibility.rawValue] { return key }
        let key = KeyDerivation.derive(.metadata, from: try classKey(accessibility))
        metadataKeys[accessibility.rawValue] = key
        return key
    }
}
