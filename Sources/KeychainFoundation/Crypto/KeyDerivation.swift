import CSodium

/// Sub-keys derived from a parent key with libsodium's BLAKE2b-based KDF.
package enum KeyDerivation {
    /// The eight-byte contexts that keep each derived key to its one purpose.
    package enum Purpose: String, CaseIterable {
        /// Keyed digests of matchable attributes (from the keychain key).
        case digest = "kcdigest"
        /// The metadata key of one accessibility class (from that class key).
        case metadata = "kcmetadt"
        /// Wraps class keys and seals the key check (from the keychain key; schema version 2).
        case classKeyWrap = "kcwrapck"
        /// Wraps per-item keys (from a class key; schema version 2).
        case itemKeyWrap = "kcwrapik"
    }

    /// A 32-byte sub-key of `parent` for `purpose`.
    package static func derive(_ purpose: Purpose, from parent: SecretBytes) -> SecretBytes {
        let context = Array(purpose.rawValue.utf8).map { CChar(bitPattern: $0) }
        precondition(context.count == Int(crypto_kdf_contextbytes()) && parent.count == Int(crypto_kdf_keybytes()))
        let child = SecretBytes(count: 32)
        child.withUnsafeMutableBytes { out in
            parent.withUnsafeBytes { key in
                _ = crypto_kdf_derive_from_key(
                    out.baseAddress!.assumingMemoryBound(to: UInt8.self), 32, 1, context,
                    key.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
        return child
    }
}
