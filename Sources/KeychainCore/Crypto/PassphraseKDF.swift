import CSodium

/// Argon2id parameters, stored in the keychain file so that they can be raised later.
package struct PassphraseKDF: Sendable, Equatable {
    /// Argon2id passes.
    package var opsLimit: UInt64
    /// Argon2id memory in bytes.
    package var memLimit: UInt64
    /// The file's random salt.
    package var salt: [UInt8]

    /// libsodium's "interactive" cost (2 passes, 64 MiB): about a tenth of a second here, paid by
    /// every invocation that unlocks with a passphrase.
    package static func fresh() -> PassphraseKDF {
        PassphraseKDF(
            opsLimit: UInt64(crypto_pwhash_opslimit_interactive()),
            memLimit: UInt64(crypto_pwhash_memlimit_interactive()),
            salt: Sodium.randomBytes(Int(crypto_pwhash_saltbytes())))
    }

    /// Derives the 32-byte keychain key from `passphrase`; `nil` if libsodium refuses (out of memory).
    package func deriveKey(from passphrase: SecretBytes) -> SecretBytes? {
        let key = SecretBytes(count: 32)
        let status: Int32 = key.withUnsafeBytes { out in
            passphrase.withUnsafeBytes { pass in
                crypto_pwhash(
                    UnsafeMutablePointer(mutating: out.baseAddress!.assumingMemoryBound(to: UInt8.self)),
                    32, pass.baseAddress!.assumingMemoryBound(to: CChar.self), UInt64(pass.count),
                    salt, opsLimit, Int(memLimit), crypto_pwhash_alg_argon2id13())
            }
        }
        return status == 0 ? key : nil
    }
}
