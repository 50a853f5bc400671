import Glibc
import KeychainFoundation

/// The order a keychain's key is looked for after whatever a caller names outright (the command's
/// `--key-file` and `--passphrase-fd`), the same for the command and the library:
/// KEYCHAINCTL_KEY_FILE, KEYCHAINCTL_KEY, the key `unlock` cached (unless told not to), the default
/// keychain's key file, KEYCHAINCTL_PASSPHRASE, then the caller's own last resort (the command's
/// prompt and hints; the library's refusal).
package struct CredentialChain {
    /// KEYCHAINCTL_KEY and KEYCHAINCTL_PASSPHRASE, taken (and wiped from the environment) whichever
    /// source wins, so that no child is handed them.
    let key: SecretBytes?
    let passphrase: SecretBytes?

    /// Takes the two secret variables.
    package init() {
        key = Environment.takeSecret(SettingVariable.key.rawValue)
        passphrase = Environment.takeSecret(SettingVariable.passphrase.rawValue)
    }

    /// The key the variables name outright: KEYCHAINCTL_KEY_FILE's, else KEYCHAINCTL_KEY.
    package func named() throws -> KeychainCredential? {
        if let keyFile = SettingVariable.keyFile.value { return try SecretFiles.key(fromFile: keyFile) }
        if let key { return try KeychainCredential.key(base64: key, source: SettingVariable.key.rawValue) }
        return nil
    }

    /// KEYCHAINCTL_PASSPHRASE, within its cap.
    package func passphraseCredential() throws -> KeychainCredential? {
        try passphrase.map { .passphrase(try SecretFiles.capped($0, source: SettingVariable.passphrase.rawValue)) }
    }

    /// What follows the named key: the cache (unless `noCache`), `defaultKeyFile` when the file is
    /// opened by a key and one is there, KEYCHAINCTL_PASSPHRASE, then `lastResort`, told whether the
    /// file is opened by a passphrase.
    package func rest(
        noCache: Bool, defaultKeyFile: String?, lastResort: @escaping (_ passphraseKeychain: Bool) throws -> KeychainCredential
    ) -> CredentialSource {
        CredentialSource(useCache: !noCache) { passphraseKeychain in
            // One stat, and only when nothing else gave a key.
            if !passphraseKeychain, let defaultKeyFile, access(defaultKeyFile, F_OK) == 0 {
                return try SecretFiles.key(fromFile: defaultKeyFile)
            }
            if let passphrase = try passphraseCredential() { return passphrase }
            return try lastResort(passphraseKeychain)
        }
    }
}
