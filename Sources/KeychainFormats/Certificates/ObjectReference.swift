import KeychainFoundation

/// `kSecReturnRef` on a command line: the object a certificate, key or identity item holds, as PEM
/// (a SecCertificate, a SecKey rebuilt from `v_Data` and the attributes, a
/// SecIdentity carrying both). A private key's bytes leave the keychain only when its `extr` is
/// true and the caller asked with `--allow-private-key-export`.
package enum ObjectReference {
    /// The PEM of `item`, whose secret is `secret`; an identity (`item` its key half overlaid with
    /// its certificate) also takes its certificate's DER. A key prints its public key, or with
    /// `exportPrivate` its private key (`exportRefusal` has been asked first). Bytes that are not
    /// the object the class says (a key added raw with `--data-file`) are errSecDecode.
    package static func pem(of item: Item, secret: SecretBytes, certificate: [UInt8]?, exportPrivate: Bool) throws(KeychainError)
        -> SecretBytes
    {
        let undecodable = KeychainError(
            .decode,
            hint: "\(item.summary) does not hold a certificate or key keychainctl can rebuild (was it added raw, with --data-file?).")
        switch item.itemClass {
        case .certificate:
            guard let pem = secret.withUnsafeBytes({ Certificate.pem(der: Array($0)) }) else { throw undecodable }
            return SecretBytes(copying: Array(pem.utf8))
        case .key:
            return try keyPEM(of: item, secret: secret, exportPrivate: exportPrivate, undecodable: undecodable)
        case .identity:
            guard let certificate, let certificatePEM = Certificate.pem(der: certificate) else { throw undecodable }
            let key = try keyPEM(of: item, secret: secret, exportPrivate: exportPrivate, undecodable: undecodable)
            let both = SecretBytes(copying: Array(certificatePEM.utf8))
            key.withUnsafeBytes { both.append($0) }
            return both
        case .genericPassword, .internetPassword:
            throw KeychainError(.param, hint: "a password has no reference; ask for its data.")
        }
    }

    /// Why returning `returns` of `item` would hand out a private key's bytes it may not, or `nil`:
    /// its data (Apple's external representation) or, with the flag, its private PEM need the
    /// flag and an extractable key.
    package static func exportRefusal(_ item: Item, returnsData: Bool, returnsReference: Bool, allowed: Bool) -> KeychainError? {
        guard item.itemClass == .key || item.itemClass == .identity, item.attributes[Schema.keyClass] == .number(1) else { return nil }
        guard returnsData || (allowed && returnsReference) else { return nil }
        guard allowed else {
            return KeychainError(
                .param,
                hint:
                    "\(item.summary) is a private key: its bytes are printed only with --allow-private-key-export, and only if it is extractable; --return ref prints its public key."
            )
        }
        guard item.attributes[Schema.isExtractable] == .bool(true) else {
            return KeychainError(
                .param, hint: "\(item.summary) is a private key that is not extractable (extr false): its bytes never leave the keychain.")
        }
        return nil
    }

    private static func keyPEM(of item: Item, secret: SecretBytes, exportPrivate: Bool, undecodable: KeychainError) throws(KeychainError)
        -> SecretBytes
    {
        guard case .string(let keyType)? = item.attributes[Schema.keyType], case .number(let bits)? = item.attributes[Schema.keySizeInBits],
            case .number(let keyClass)? = item.attributes[Schema.keyClass]
        else { throw undecodable }
        let isPrivate = keyClass == 1
        if isPrivate, exportPrivate {
            guard let pem = KeyMaterial.privateKeyPEM(external: secret, keyType: keyType, bits: Int(bits)) else { throw undecodable }
            return pem
        }
        guard let pem = KeyMaterial.publicKeyPEM(external: secret, keyType: keyType, isPrivate: isPrivate, bits: Int(bits)) else {
            throw undecodable
        }
        return SecretBytes(copying: Array(pem.utf8))
    }
}
