import CSodium

/// Sub-keys derived from a parent key with libsodium's BLAKE2b-based KDF.
enum KeyDerivation {
    /// The eight-byte contexts that keep each derived key to its one purpose.
    enum Purpose: String {
        /// Keyed digests of matchable attributes (from the keychain key).
        case digest = "kcdigest"
        /// The metadata key of one accessibility class (from that class key).
        case metadata = "kcmetadt"
    }

    /// A 32-byte sub-key of `parent` for `purpose`.
    static func derive(_ purpose: Purpose, from parent: SecretBytes) -> SecretBytes {
        let child = SecretBytes(count: 32)
        let context = Array(purpose.rawValue.utf8).map { CChar(bitPattern: $0) }
        child.withUnsafeBytes { out in
            parent.withUnsafeBytes { key in
                _ = crypto_kdf_derive_from_key(
                    UnsafeMutablePointer(mutating: out.baseAddress!.assumingMemoryBound(to: UInt8.self)),
                    32, 1, context, key.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
        return child
    }
}
