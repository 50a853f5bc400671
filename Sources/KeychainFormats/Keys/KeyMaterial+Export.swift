import CCrypto
import KeychainFoundation

/// A stored key turned back into PEM for `--return ref`: its public key always, its private key
/// only when asked and allowed (the caller checks `extr` and the export flag).
extension KeyMaterial {
    /// The SubjectPublicKeyInfo PEM of a stored key (`external` is its `v_Data`, `keyType`,
    /// `isPrivate` and `bits` its `type`, `kcls` and `bsiz`); `nil` when the bytes do not hold
    /// such a key.
    package static func publicKeyPEM(external: SecretBytes, keyType: String, isPrivate: Bool, bits: Int) -> String? {
        guard let key = rebuild(external: external, keyType: keyType, isPrivate: isPrivate, bits: bits) else { return nil }
        defer { EVP_PKEY_free(key) }
        return OpenSSL.text { PEM_write_bio_PUBKEY($0, key) == 1 }
    }

    /// The unencrypted PKCS#8 PEM of a stored private key, in guarded memory.
    package static func privateKeyPEM(external: SecretBytes, keyType: String, bits: Int) -> SecretBytes? {
        guard let key = rebuild(external: external, keyType: keyType, isPrivate: true, bits: bits) else { return nil }
        defer { EVP_PKEY_free(key) }
        // A secure-heap BIO: OpenSSL clears it when it is freed.
        guard let bio = BIO_new(BIO_s_secmem()) else { return nil }
        defer { BIO_free(bio) }
        guard PEM_write_bio_PrivateKey(bio, key, nil, nil, 0, nil, nil) == 1 else { return nil }
        var start: UnsafeMutablePointer<CChar>?
        let count = BIO_ctrl(bio, BIO_CTRL_INFO, 0, &start)
        guard count > 0, let start else { return nil }
        return SecretBytes(copying: UnsafeRawBufferPointer(start: start, count: count))
    }

    /// An OpenSSL key from Apple's external representation; the caller frees it.
    static func rebuild(external: SecretBytes, keyType: String, isPrivate: Bool, bits: Int) -> OpaquePointer? {
        guard OpenSSL.start() else { return nil }
        defer { ERR_clear_error() }
        switch keyType {
        case Algorithm.rsa.keyType:
            return external.withUnsafeBytes { buffer -> OpaquePointer? in
                let bytes = buffer.bindMemory(to: UInt8.self)
                var cursor = bytes.baseAddress
                let key =
                    isPrivate
                    ? d2i_PrivateKey(EVP_PKEY_RSA, nil, &cursor, bytes.count) : d2i_PublicKey(EVP_PKEY_RSA, nil, &cursor, bytes.count)
                guard let key, let end = cursor, end - bytes.baseAddress! == bytes.count else {
                    key.map { EVP_PKEY_free($0) }
                    return nil
                }
                return key
            }
        case Algorithm.ec.keyType:
            let group: String
            switch bits {
            case 256: group = "prime256v1"
            case 384: group = "secp384r1"
            case 521: group = "secp521r1"
            default: return nil
            }
            let width = (bits + 7) / 8
            let pointLength = 1 + 2 * width
            guard external.count == pointLength + (isPrivate ? width : 0) else { return nil }
            return external.withUnsafeBytes { buffer -> OpaquePointer? in
                guard let base = buffer.baseAddress, base.load(as: UInt8.self) == 0x04 else { return nil }
                var scalar: OpaquePointer?
                if isPrivate {
                    scalar = BN_secure_new()
                    guard BN_bin2bn(base.assumingMemoryBound(to: UInt8.self) + pointLength, Int32(width), scalar) != nil else { return nil }
                }
                defer { scalar.map { BN_clear_free($0) } }
                return group.withCString { name -> OpaquePointer? in
                    guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { return nil }
                    defer { EVP_PKEY_CTX_free(context) }
                    guard let builder = OSSL_PARAM_BLD_new() else { return nil }
                    defer { OSSL_PARAM_BLD_free(builder) }
                    guard OSSL_PARAM_BLD_push_utf8_string(builder, OpenSSL.parameterName("group"), name, 0) == 1,
                        OSSL_PARAM_BLD_push_octet_string(builder, OpenSSL.parameterName("pub"), base, pointLength) == 1,
                        scalar.map({ OSSL_PARAM_BLD_push_BN(builder, OpenSSL.parameterName("priv"), $0) == 1 }) ?? true,
                        let parameters = OSSL_PARAM_BLD_to_param(builder)
                    else { return nil }
                    defer { OSSL_PARAM_free(parameters) }
                    var key: OpaquePointer?
                    guard EVP_PKEY_fromdata_init(context) == 1,
                        EVP_PKEY_fromdata(context, &key, isPrivate ? keychainctl_pkey_keypair : keychainctl_pkey_public_key, parameters)
                            == 1
                    else { return nil }
                    return key
                }
            }
        case Algorithm.ed25519.keyType, Algorithm.x25519.keyType:
            guard bits == 256, external.count == 32 else { return nil }
            let type = keyType == Algorithm.ed25519.keyType ? EVP_PKEY_ED25519 : EVP_PKEY_X25519
            return external.withUnsafeBytes { buffer in
                let bytes = buffer.bindMemory(to: UInt8.self).baseAddress
                return isPrivate
                    ? EVP_PKEY_new_raw_private_key(type, nil, bytes, 32) : EVP_PKEY_new_raw_public_key(type, nil, bytes, 32)
            }
        default:
            return nil
        }
    }
}
