import KeychainFormats
import KeychainFoundation

/// What unlocks a keychain: its 32-byte key, or a passphrase the key is derived from (Argon2id).
package enum KeychainCredential: Sendable {
    case key(SecretBytes)
    case passphrase(SecretBytes)

    /// A key from its base64 text (a key file's contents or `KEYCHAINCTL_KEY`).
    /// Decoded in guarded memory: the key never passes through an ordinary string or array.
    package static func key(base64 text: SecretBytes, source: String) throws(ConfigurationError) -> KeychainCredential {
        guard let key = text.base64Decoded(strict: true), key.count == KeyRing.keyBytes else {
            throw ConfigurationError(
                "\(source) does not hold a keychain key: expected 32 random bytes in base64 (as 'keychainctl init --generate-key-file' writes)."
            )
        }
        return .key(key)
    }
}

/// How a command finds the credential that opens a keychain: the key `unlock` cached in the kernel
/// keyring, when `useCache` allows it (no explicit key source was given) and it opens the file,
/// else what `resolve` returns (an environment variable, a prompt), asked only then and told
/// whether the file is opened by a passphrase.
package struct CredentialSource {
    package var useCache: Bool
    package var resolve: (_ passphraseKeychain: Bool) throws -> KeychainCredential

    package init(useCache: Bool, resolve: @escaping (_ passphraseKeychain: Bool) throws -> KeychainCredential) {
        self.useCache = useCache
        self.resolve = resolve
    }
}
