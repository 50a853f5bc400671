import CCrypto
import KeychainFoundation

/// ECIES as Apple's SecKey makes it (`SecKeyAdaptors.m`, `SecKeyECIESCopyEncryptedData`): a new
/// ephemeral key on the recipient's curve, ECDH with the recipient's public key, ANSI X9.63's
/// derivation of the AES key (16 bytes up to P-256, 32 above) with the ephemeral public point as
/// shared info, then AES-GCM with a 16-byte IV (all zero, or derived after the key with the
/// variable-IV algorithms) and a 16-byte tag. The result is the ephemeral point, the ciphertext
/// and the tag.
extension KeyMaterial {
    /// The IV's and the tag's length in Apple's AES-GCM (`kSecKeyIESIV`, `kSecKeyIESTagLength`).
    static let gcmBlock = 16

    /// `plaintext` sealed to this public key.
    func eciesSeal(_ digest: KeyOperation.Digest, variableIV: Bool, _ plaintext: [UInt8]) throws(ObjectError) -> [UInt8] {
        let ephemeral = try KeyMaterial.random(.ec, bits: bits)
        let key = try ephemeral.eciesKey(digest, variableIV: variableIV, peer: self, ephemeralPoint: ephemeral.publicBytes)
        let (ciphertext, tag) = try Self.aesGCM(encrypt: true, key: key, keyLength: eciesKeyLength, input: plaintext, tag: nil)
        return ephemeral.publicBytes + ciphertext + tag
    }

    /// A sealed message opened by this private key; errSecParam's reason when it is too short,
    /// its ephemeral point is not on the curve, or its tag does not match.
    func eciesOpen(_ digest: KeyOperation.Digest, variableIV: Bool, _ sealed: [UInt8]) throws(ObjectError) -> [UInt8] {
        let pointLength = 2 * ((bits + 7) / 8) + 1
        guard sealed.count >= pointLength + Self.gcmBlock else { throw ObjectError("the input is too short for ECIES") }
        let point = Array(sealed.prefix(pointLength))
        let ephemeral = try KeyMaterial(external: SecretBytes(copying: point), algorithm: .ec, isPrivate: false)
        let key = try eciesKey(digest, variableIV: variableIV, peer: ephemeral, ephemeralPoint: point)
        let body = sealed.dropFirst(pointLength)
        let (plaintext, _) = try Self.aesGCM(
            encrypt: false, key: key, keyLength: eciesKeyLength, input: Array(body.dropLast(Self.gcmBlock)),
            tag: Array(body.suffix(Self.gcmBlock)))
        return plaintext
    }

    /// The AES key's length for this key's curve.
    private var eciesKeyLength: Int { bits > 256 ? 32 : 16 }

    /// The AES key, then the IV: derived, or zeros.
    private func eciesKey(_ digest: KeyOperation.Digest, variableIV: Bool, peer: KeyMaterial, ephemeralPoint: [UInt8]) throws(ObjectError)
        -> SecretBytes
    {
        let derived = try exchange(
            .ecdh(kdf: digest), with: peer, requestedSize: eciesKeyLength + (variableIV ? Self.gcmBlock : 0), sharedInfo: ephemeralPoint)
        return variableIV ? derived : Self.zeroIV(after: derived)
    }

    /// `key` followed by Apple's all-zero 16-byte IV (`kSecKeyIESIV`), as `aesGCM` takes them.
    static func zeroIV(after key: SecretBytes) -> SecretBytes {
        let joined = SecretBytes(count: key.count + gcmBlock)
        joined.withUnsafeMutableBytes { target in
            target.initializeMemory(as: UInt8.self, repeating: 0)
            key.withUnsafeBytes { target.copyMemory(from: $0) }
        }
        return joined
    }

    /// AES-GCM with the key and IV `key` holds (its first `keyLength` bytes, then 16) over
    /// `input`, authenticating `additional` too: the output and, encrypting, the tag; decrypting,
    /// `tag` must match.
    static func aesGCM(encrypt: Bool, key: SecretBytes, keyLength: Int, input: [UInt8], additional: [UInt8] = [], tag: [UInt8]?)
        throws(ObjectError) -> (output: [UInt8], tag: [UInt8])
    {
        // OpenSSL counts an update's bytes in an Int32.
        guard let inputLength = Int32(exactly: input.count), let additionalLength = Int32(exactly: additional.count) else {
            throw ObjectError("the input is longer than AES-GCM takes at once")
        }
        guard let context = EVP_CIPHER_CTX_new() else { throw ObjectError("OpenSSL could not allocate") }
        defer { EVP_CIPHER_CTX_free(context) }
        let cipher = keyLength == 16 ? EVP_aes_128_gcm() : EVP_aes_256_gcm()
        var output = [UInt8](repeating: 0, count: input.count + gcmBlock)
        var tagBytes = tag ?? [UInt8](repeating: 0, count: gcmBlock)
        var written: Int32 = 0
        var final: Int32 = 0
        let done = key.withUnsafeBytes { keyAndIV -> Bool in
            let base = keyAndIV.bindMemory(to: UInt8.self).baseAddress
            let mode: Int32 = encrypt ? 1 : 0
            guard EVP_CipherInit_ex(context, cipher, nil, nil, nil, mode) == 1,
                EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, Int32(gcmBlock), nil) == 1,
                EVP_CipherInit_ex(context, nil, nil, base, base.map { $0 + keyLength }, mode) == 1,
                additional.isEmpty || EVP_CipherUpdate(context, nil, &written, additional, additionalLength) == 1,
                EVP_CipherUpdate(context, &output, &written, input, inputLength) == 1
            else { return false }
            if !encrypt, EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(gcmBlock), &tagBytes) != 1 { return false }
            let finished = output.withUnsafeMutableBufferPointer { EVP_CipherFinal_ex(context, $0.baseAddress! + Int(written), &final) }
            guard finished == 1 else { return false }
            return !encrypt || EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(gcmBlock), &tagBytes) == 1
        }
        ERR_clear_error()
        guard done else {
            // Nothing of an unauthenticated plaintext is handed on, nor left in memory.
            OpenSSL.zero(&output)
            throw ObjectError(encrypt ? "AES-GCM could not encrypt" : "the ciphertext or its tag was altered (AES-GCM)")
        }
        return (Array(output.prefix(Int(written + final))), tagBytes)
    }
}
