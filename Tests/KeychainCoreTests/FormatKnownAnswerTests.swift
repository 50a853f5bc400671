import Testing

@testable import KeychainCore

/// Known answers for what the file stores, computed outside keychainctl (Python's hashlib BLAKE2b,
/// which libsodium's generichash and KDF are): a change to the sub-key derivation or to what a
/// digest covers cannot pass by agreeing with itself.
@Suite struct FormatKnownAnswerTests {
    /// The keychain key 00 01 … 1f.
    static let key = SecretBytes(copying: (0..<32).map { UInt8($0) })

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String($0, radix: 16).leftPadded(to: 2) }.joined() }

    static func hex(_ secret: SecretBytes) -> String { secret.withUnsafeBytes { hex(Array($0)) } }

    /// crypto_kdf_derive_from_key(32, 1, "kcdigest", key): BLAKE2b keyed with the key, salt the
    /// sub-key id (little-endian, padded), personal the context (padded).
    @Test func theDigestKeyIsDerivedAsLibsodiumsKDF() {
        #expect(
            Self.hex(KeyDerivation.derive(.digest, from: Self.key)) == "f263ee92d06823cc789dd02a962a04ececd7cb266f8f8b75cb1315ac223198e2")
    }

    /// An attribute's digest: BLAKE2b-128 keyed with the digest key over "genp\0acct\0alice" (the
    /// class, schema version 2 on) or "acct\0alice" (version 1).
    @Test func anAttributesDigestCoversClassCodeAndValue() {
        let digestKey = KeyDerivation.derive(.digest, from: Self.key)
        let bound = KeyedDigest(key: digestKey, classBound: true)
        #expect(Self.hex(bound.digest(.genericPassword, code: "acct", value: Array("alice".utf8))) == "16b39eaf86ef330ee8adbf0823633c48")
        let unbound = KeyedDigest(key: digestKey, classBound: false)
        #expect(Self.hex(unbound.digest(.genericPassword, code: "acct", value: Array("alice".utf8))) == "48d7f4b1cb8fe87cd07b067f52cb580a")
        // The typed path (a query's value, hashed in place) gives the same digest.
        #expect(
            Self.hex(bound.digest(.genericPassword, code: "acct", value: .string("alice"), kind: .string))
                == "16b39eaf86ef330ee8adbf0823633c48")
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
