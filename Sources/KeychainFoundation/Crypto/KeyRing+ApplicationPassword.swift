import CSodium

/// The application password (`kSecAccessControlApplicationPassword`): "not a
/// constraint but additional item encryption". An item created with one has its per-item key
/// wrapped under a key derived from the password, inside the usual wrapping by its class: without
/// the password the secret cannot be opened, whatever else an attacker holds.
///
/// The key is Argon2id (libsodium's interactive cost, 64 MiB) of the password, salted with the
/// keychain's identity, derived once per call.
extension KeyRing {
    /// Whether this call was given an application password.
    package var hasApplicationPassword: Bool { applicationPasswordKey != nil }

    /// Derives the key of `password` for the rest of the call.
    package func useApplicationPassword(_ password: SecretBytes) throws(KeychainError) {
        guard case .v2(let keychainID) = format else {
            throw KeychainError(.param, hint: "application passwords need a keychain of schema version 2 or later.")
        }
        // In bounds by construction: libsodium's interactive cost and a 16-byte salt.
        let kdf = try! PassphraseKDF(
            opsLimit: UInt64(crypto_pwhash_opslimit_interactive()), memLimit: UInt64(crypto_pwhash_memlimit_interactive()),
            salt: Array(keychainID.prefix(PassphraseKDF.saltBytes)), encoding: .nfc)
        guard let key = kdf.deriveKey(from: password) else {
            throw KeychainError(.param, hint: "cannot derive the application password's key: Argon2id needs 64 MiB of memory.")
        }
        applicationPasswordKey = key
    }

    /// `itemKey` sealed under the application password's key; errSecInteractionNotAllowed when the
    /// call has none.
    package func wrapUnderApplicationPassword(_ itemKey: SecretBytes, associatedData: [UInt8]) throws(KeychainError) -> [UInt8] {
        guard let key = applicationPasswordKey else { throw Self.noApplicationPassword }
        return itemKey.withUnsafeBytes { AEAD.seal($0, key: key, associatedData: associatedData) }
    }

    /// Opens `inner` into `itemKey` with the application password's key: errSecAuthFailed when it
    /// is the wrong one, errSecInteractionNotAllowed when the call has none.
    package func unwrapUnderApplicationPassword(_ inner: [UInt8], into itemKey: SecretBytes, associatedData: [UInt8]) throws(KeychainError)
    {
        guard let key = applicationPasswordKey else { throw Self.noApplicationPassword }
        guard AEAD.open(inner, into: itemKey, key: key, associatedData: associatedData) else {
            throw KeychainError(.authFailed, hint: "the application password is wrong.")
        }
    }

    private static var noApplicationPassword: KeychainError {
        KeychainError(
            .interactionNotAllowed, hint: "the item is protected by an application password; pass it with --application-password-fd N.")
    }
}
