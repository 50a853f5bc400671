import CCrypto
import KeychainFoundation

/// What `SecKeyCreateRandomKey`, `SecKeyCreateWithData` and the SecKey operations do with a key,
/// by OpenSSL: a new random key, a key from Apple's external representation, and signing,
/// verifying, encrypting and decrypting with the algorithms `KeyOperation` lists.
extension KeyMaterial {
    /// A new random private key (`SecKeyCreateRandomKey`): RSA of `bits` (1024 to 4096, a multiple
    /// of 8, as `SecRSAKeyGeneratePair` takes), or EC on the NIST curve of `bits` (256, 384, 521).
    package static func random(_ algorithm: Algorithm, bits: Int) throws(ObjectError) -> KeyMaterial {
        guard OpenSSL.start() else { throw ObjectError("OpenSSL could not start") }
        defer { ERR_clear_error() }
        let context: OpaquePointer?
        switch algorithm {
        case .rsa:
            guard (1024...4096).contains(bits), bits % 8 == 0 else {
                throw ObjectError("an RSA key of \(bits) bits is not one Apple makes (1024 to 4096, a multiple of 8)")
            }
            context = EVP_PKEY_CTX_new_from_name(nil, "RSA", nil)
            guard let context, EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_CTX_set_rsa_keygen_bits(context, Int32(bits)) == 1 else {
                EVP_PKEY_CTX_free(context)
                throw ObjectError("OpenSSL could not set up an RSA key")
            }
        case .ec:
            guard let group = curves.first(where: { $0.value == bits })?.key else {
                throw ObjectError("an elliptic-curve key of \(bits) bits is not one Apple makes (256, 384 or 521)")
            }
            context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil)
            guard let context, EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_CTX_set_group_name(context, group) == 1 else {
                EVP_PKEY_CTX_free(context)
                throw ObjectError("OpenSSL could not set up an elliptic-curve key")
            }
        case .ed25519, .x25519:
            throw ObjectError("a random Curve25519 key is not provided; RSA and elliptic-curve keys are")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_generate(context, &key) == 1, let key else { throw ObjectError("OpenSSL could not make the key") }
        defer { EVP_PKEY_free(key) }
        return try KeyMaterial(key, isPrivate: true)
    }

    /// The key Apple's external representation `external` holds (`SecKeyCreateWithData`, which
    /// reads no size attribute): PKCS#1 for RSA; `04‖X‖Y`, with `‖K` for a private key, for EC,
    /// whose curve its length says; the 32 raw bytes for Curve25519.
    package init(external: SecretBytes, algorithm: Algorithm, isPrivate: Bool) throws(ObjectError) {
        var size = 256
        if algorithm == .ec {
            // The point is 1 + 2w bytes and the scalar w more, for a curve of w-byte coordinates.
            let width = isPrivate ? (external.count - 1) / 3 : (external.count - 1) / 2
            size = Self.curves.values.first(where: { ($0 + 7) / 8 == width }) ?? 0
        }
        guard let key = Self.rebuild(external: external, keyType: algorithm.keyType, isPrivate: isPrivate, bits: size) else {
            throw ObjectError(
                "the data is not \(isPrivate ? "a private" : "a public") \(algorithm.name) key in Apple's external representation")
        }
        defer { EVP_PKEY_free(key) }
        try self.init(key, isPrivate: isPrivate)
    }

    /// The public half (`SecKeyCopyPublicKey`); the key itself when it is public.
    package var publicKey: KeyMaterial {
        get throws(ObjectError) {
            guard isPrivate else { return self }
            return try KeyMaterial(external: SecretBytes(copying: publicBytes), algorithm: algorithm, isPrivate: false)
        }
    }

    /// The signature of `data` by this private key.
    package func sign(_ operation: KeyOperation, _ given: [UInt8]) throws(ObjectError) -> [UInt8] {
        try check(operation, given, needsPrivate: true, kind: .signature)
        let data = try rawBlock(operation, given)
        let signature = try withKey { key throws(ObjectError) in
            if operation.hashesMessage {
                return try run(operation, key, sign: true) { context, output, length in
                    EVP_DigestSign(context, output, length, data, data.count)
                }
            }
            return try run(operation, key, sign: true) { context, output, length in EVP_PKEY_sign(context, output, length, data, data.count)
            }
        }
        guard case .ecdsa(_, _, raw: true) = operation else { return signature }
        guard let raw = rawSignature(signature) else { throw ObjectError("OpenSSL's ECDSA signature cannot be read") }
        return raw
    }

    /// Whether `signature` is this key's (public or private) signature of `data`.
    package func verify(_ operation: KeyOperation, _ data: [UInt8], signature given: [UInt8]) throws(ObjectError) -> Bool {
        try check(operation, data, needsPrivate: false, kind: .signature)
        var signature = given
        if case .ecdsa(_, _, raw: true) = operation {
            guard let encoded = derSignature(given) else { return false }
            signature = encoded
        }
        if case .rsaRaw = operation {
            // What the public key recovers, less its leading zeros, is the input itself
            // (`SecKeyAlgorithmAdaptorCopyResult_Verify_RSASignatureRaw`).
            guard signature.count <= blockSize else { return false }
            let block = [UInt8](repeating: 0, count: blockSize - signature.count) + signature
            // A block the public key cannot take (not below the modulus) is no signature of it.
            let recovered = try? withKey { key throws(ObjectError) in
                try crypt(operation, key, encrypt: true) { EVP_PKEY_encrypt($0, $1, $2, block, block.count) }
            }
            guard let recovered else { return false }
            return Array(recovered.drop { $0 == 0 }) == data
        }
        return try withKey { key throws(ObjectError) in
            let verified: Int32
            if operation.hashesMessage {
                verified = try prepare(operation, key, sign: false) { EVP_DigestVerify($0, signature, signature.count, data, data.count) }
            } else {
                verified = try prepare(operation, key, sign: false) { EVP_PKEY_verify($0, signature, signature.count, data, data.count) }
            }
            ERR_clear_error()
            return verified == 1
        }
    }

    /// `plaintext` encrypted to this key's public half.
    package func encrypt(_ operation: KeyOperation, _ plaintext: [UInt8]) throws(ObjectError) -> [UInt8] {
        try check(operation, plaintext, needsPrivate: false, kind: .encryption)
        if case .ecies(let digest, let variableIV) = operation {
            return try (isPrivate ? publicKey : self).eciesSeal(digest, variableIV: variableIV, plaintext)
        }
        if case .rsaOAEP(let digest, sessionKey: true) = operation { return try (isPrivate ? publicKey : self).wrapSeal(digest, plaintext) }
        let input = try rawBlock(operation, plaintext)
        return try withKey { key throws(ObjectError) in
            try crypt(operation, key, encrypt: true) { EVP_PKEY_encrypt($0, $1, $2, input, input.count) }
        }
    }

    /// `ciphertext` decrypted by this private key.
    package func decrypt(_ operation: KeyOperation, _ ciphertext: [UInt8]) throws(ObjectError) -> [UInt8] {
        try check(operation, ciphertext, needsPrivate: true, kind: .encryption)
        if case .ecies(let digest, let variableIV) = operation { return try eciesOpen(digest, variableIV: variableIV, ciphertext) }
        if case .rsaOAEP(let digest, sessionKey: true) = operation { return try wrapOpen(digest, ciphertext) }
        let input = try rawBlock(operation, ciphertext)
        return try withKey { key throws(ObjectError) in
            try crypt(operation, key, encrypt: false) { EVP_PKEY_decrypt($0, $1, $2, input, input.count) }
        }
    }

    /// The secret this private key shares with `peer`'s public half (`SecKeyCopyKeyExchangeResult`):
    /// the x coordinate of the shared point, or `requestedSize` bytes the ANSI X9.63 derivation
    /// makes of it with `sharedInfo`.
    package func exchange(_ operation: KeyOperation, with peer: KeyMaterial, requestedSize: Int?, sharedInfo: [UInt8])
        throws(ObjectError) -> SecretBytes
    {
        try check(operation, [], needsPrivate: true, kind: .keyExchange)
        guard peer.algorithm == .ec, peer.bits == bits else { throw ObjectError("the other key is not on this key's curve") }
        let shared = try withKey { key throws(ObjectError) -> SecretBytes in
            let point = SecretBytes(copying: peer.publicBytes)
            guard let other = Self.rebuild(external: point, keyType: algorithm.keyType, isPrivate: false, bits: bits) else {
                throw ObjectError("the other key cannot be read back")
            }
            defer { EVP_PKEY_free(other) }
            guard let context = EVP_PKEY_CTX_new(key, nil) else { throw ObjectError("OpenSSL could not allocate") }
            defer { EVP_PKEY_CTX_free(context) }
            var length = 0
            guard EVP_PKEY_derive_init(context) == 1, EVP_PKEY_derive_set_peer(context, other) == 1,
                EVP_PKEY_derive(context, nil, &length) == 1, length > 0
            else { throw ObjectError("OpenSSL could not start ECDH (\(OpenSSL.lastError()))") }
            let secret = SecretBytes(count: length)
            let derived = secret.withUnsafeMutableBytes { EVP_PKEY_derive(context, $0.bindMemory(to: UInt8.self).baseAddress, &length) }
            guard derived == 1, length == secret.count else { throw ObjectError("OpenSSL could not compute ECDH") }
            return secret
        }
        guard case .ecdh(let kdf?) = operation else { return shared }
        guard let requestedSize, (1...(1 << 20)).contains(requestedSize) else {
            throw ObjectError("the X9.63 derivation needs a requested size of 1 byte to 1 MiB")
        }
        return try Self.x963(kdf, secret: shared, sharedInfo: sharedInfo, length: requestedSize)
    }

    /// ANSI X9.63's key derivation (OpenSSL's X963KDF) of `length` bytes from `secret`.
    private static func x963(_ digest: KeyOperation.Digest, secret: SecretBytes, sharedInfo: [UInt8], length: Int) throws(ObjectError)
        -> SecretBytes
    {
        guard let kdf = EVP_KDF_fetch(nil, "X963KDF", nil) else { throw ObjectError("OpenSSL has no X9.63 derivation") }
        defer { EVP_KDF_free(kdf) }
        guard let context = EVP_KDF_CTX_new(kdf), let builder = OSSL_PARAM_BLD_new() else {
            throw ObjectError("OpenSSL could not allocate")
        }
        defer {
            EVP_KDF_CTX_free(context)
            OSSL_PARAM_BLD_free(builder)
        }
        let output = SecretBytes(count: length)
        let derived = digest.name.withCString { name in
            secret.withUnsafeBytes { key in
                sharedInfo.withUnsafeBytes { info -> Int32 in
                    guard OSSL_PARAM_BLD_push_utf8_string(builder, OpenSSL.parameterName("digest"), name, 0) == 1,
                        OSSL_PARAM_BLD_push_octet_string(builder, OpenSSL.parameterName("key"), key.baseAddress, key.count) == 1,
                        OSSL_PARAM_BLD_push_octet_string(builder, OpenSSL.parameterName("info"), info.baseAddress, info.count) == 1,
                        let parameters = OSSL_PARAM_BLD_to_param(builder)
                    else { return 0 }
                    defer { OSSL_PARAM_free(parameters) }
                    return output.withUnsafeMutableBytes {
                        EVP_KDF_derive(context, $0.bindMemory(to: UInt8.self).baseAddress, length, parameters)
                    }
                }
            }
        }
        guard derived == 1 else { throw ObjectError("OpenSSL could not derive the key (\(OpenSSL.lastError()))") }
        return output
    }

    /// An X9.62 (DER) ECDSA signature as RFC 4754's two numbers, each as wide as the curve.
    private func rawSignature(_ der: [UInt8]) -> [UInt8]? {
        guard let signature = OpenSSL.decode(der, { d2i_ECDSA_SIG(nil, $0, $1) }, free: { ECDSA_SIG_free($0) }) else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let width = (bits + 7) / 8
        var raw = [UInt8](repeating: 0, count: 2 * width)
        let written = raw.withUnsafeMutableBufferPointer { buffer -> Bool in
            BN_bn2binpad(ECDSA_SIG_get0_r(signature), buffer.baseAddress, Int32(width)) == Int32(width)
                && BN_bn2binpad(ECDSA_SIG_get0_s(signature), buffer.baseAddress! + width, Int32(width)) == Int32(width)
        }
        return written ? raw : nil
    }

    /// RFC 4754's two numbers as an X9.62 (DER) signature; `nil` when they are not two numbers as
    /// wide as the curve.
    private func derSignature(_ raw: [UInt8]) -> [UInt8]? {
        let width = (bits + 7) / 8
        guard raw.count == 2 * width, let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let numbers = raw.withUnsafeBufferPointer { bytes in
            (BN_bin2bn(bytes.baseAddress, Int32(width), nil), BN_bin2bn(bytes.baseAddress! + width, Int32(width), nil))
        }
        guard let r = numbers.0, let s = numbers.1, ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(numbers.0)
            BN_free(numbers.1)
            return nil
        }
        return OpenSSL.encode { i2d_ECDSA_SIG(signature, $0) }
    }

    /// The RSA block size in bytes (`SecKeyGetBlockSize`): the modulus's length.
    package var blockSize: Int { (bits + 7) / 8 }

    /// Raw RSA's input as a whole block: a big-endian number, zeros in front (Apple's
    /// `PerformWithBigEndianToCCUnit`); any other operation's input as it is.
    private func rawBlock(_ operation: KeyOperation, _ input: [UInt8]) throws(ObjectError) -> [UInt8] {
        guard case .rsaRaw = operation else { return input }
        guard input.count <= blockSize else {
            throw ObjectError("\(operation.name) takes at most \(blockSize) bytes with this key, not \(input.count)")
        }
        return [UInt8](repeating: 0, count: blockSize - input.count) + input
    }

    /// Refuses an operation this key cannot do, or an input the operation does not take.
    private func check(_ operation: KeyOperation, _ input: [UInt8], needsPrivate: Bool, kind: KeyOperation.Kind) throws(ObjectError) {
        guard operation.algorithm == algorithm, operation.kind == kind else {
            throw ObjectError("\(operation.name) is not an operation for \(isPrivate ? "a private" : "a public") \(algorithm.name) key")
        }
        guard !needsPrivate || isPrivate else { throw ObjectError("\(operation.name) needs the private key; this is a public one") }
        if kind == .signature, !operation.hashesMessage, let length = operation.digest?.length, input.count != length {
            throw ObjectError("\(operation.name) signs a \(length)-byte digest, not \(input.count) bytes")
        }
    }

    /// Runs `body` on this key as an OpenSSL key.
    func withKey<Result>(_ body: (OpaquePointer) throws(ObjectError) -> Result) throws(ObjectError) -> Result {
        guard OpenSSL.start(), let key = Self.rebuild(external: external, keyType: algorithm.keyType, isPrivate: isPrivate, bits: bits)
        else { throw ObjectError("the key cannot be read back") }
        defer {
            EVP_PKEY_free(key)
            ERR_clear_error()
        }
        return try body(key)
    }

    /// A signing or verifying context for `key` set up for `operation`, passed to `body`: a digest
    /// context when the operation hashes the message, a key context otherwise.
    private func prepare<Result>(_ operation: KeyOperation, _ key: OpaquePointer, sign: Bool, _ body: (OpaquePointer) -> Result)
        throws(ObjectError) -> Result
    {
        let digest = operation.digest.map { EVP_get_digestbyname($0.name) } ?? nil
        if operation.hashesMessage {
            guard let message = EVP_MD_CTX_new() else { throw ObjectError("OpenSSL could not allocate") }
            defer { EVP_MD_CTX_free(message) }
            var context: OpaquePointer?
            let started =
                sign
                ? EVP_DigestSignInit(message, &context, digest, nil, key) : EVP_DigestVerifyInit(message, &context, digest, nil, key)
            guard started == 1, let context, pad(operation, context) else { throw ObjectError("OpenSSL could not start \(operation.name)") }
            return body(message)
        }
        guard let context = EVP_PKEY_CTX_new(key, nil) else { throw ObjectError("OpenSSL could not allocate") }
        defer { EVP_PKEY_CTX_free(context) }
        guard (sign ? EVP_PKEY_sign_init(context) : EVP_PKEY_verify_init(context)) == 1,
            digest.map({ EVP_PKEY_CTX_set_signature_md(context, $0) == 1 }) ?? true, pad(operation, context)
        else { throw ObjectError("OpenSSL could not start \(operation.name)") }
        return body(context)
    }

    /// Signs with `write`, which is called for the length and then for the bytes.
    private func run(
        _ operation: KeyOperation, _ key: OpaquePointer, sign: Bool,
        _ write: (OpaquePointer, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<Int>) -> Int32
    ) throws(ObjectError) -> [UInt8] {
        let bytes = try prepare(operation, key, sign: sign) { context in output { write(context, $0, $1) } }
        guard let bytes else { throw ObjectError("OpenSSL could not compute \(operation.name) (\(OpenSSL.lastError()))") }
        return bytes
    }

    /// Encrypts or decrypts with `write`, which is called for the length and then for the bytes.
    func crypt(
        _ operation: KeyOperation, _ key: OpaquePointer, encrypt: Bool,
        _ write: (OpaquePointer, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<Int>) -> Int32
    ) throws(ObjectError) -> [UInt8] {
        guard let context = EVP_PKEY_CTX_new(key, nil) else { throw ObjectError("OpenSSL could not allocate") }
        defer { EVP_PKEY_CTX_free(context) }
        guard (encrypt ? EVP_PKEY_encrypt_init(context) : EVP_PKEY_decrypt_init(context)) == 1, pad(operation, context) else {
            throw ObjectError("OpenSSL could not start \(operation.name)")
        }
        guard let bytes = output({ write(context, $0, $1) }) else {
            // Decryption says one thing whatever went wrong: which padding check failed is what a
            // Bleichenbacher attacker asks a server to tell (PKCS#1 v1.5 above all; prefer OAEP).
            guard encrypt else {
                ERR_clear_error()
                throw ObjectError("\(operation.name) failed: the ciphertext does not decrypt with this key")
            }
            throw ObjectError("\(operation.name) failed (\(OpenSSL.lastError(otherwise: "the input does not fit the key")))")
        }
        return bytes
    }

    /// The bytes a two-call OpenSSL function writes: once for the length, once for the bytes.
    private func output(_ write: (UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<Int>) -> Int32) -> [UInt8]? {
        var length = 0
        guard write(nil, &length) == 1, length > 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: length)
        defer { OpenSSL.zero(&bytes) }
        guard bytes.withUnsafeMutableBufferPointer({ write($0.baseAddress, &length) }) == 1 else { return nil }
        return Array(bytes.prefix(length))
    }

    /// Sets an RSA operation's padding (and OAEP's digests, PSS's salt); nothing for ECDSA.
    private func pad(_ operation: KeyOperation, _ context: OpaquePointer) -> Bool {
        switch operation {
        case .ecdsa, .ecdh, .ecies: return true
        case .rsaPKCS1: return EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1
        case .rsaPKCS1Encryption: return EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1
        case .rsaPSS:
            // Apple's PSS salts with as many bytes as the digest has ("…:SHA256:SHA256:32").
            return EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PSS_PADDING) == 1
                && EVP_PKEY_CTX_set_rsa_pss_saltlen(context, RSA_PSS_SALTLEN_DIGEST) == 1
        case .rsaRaw: return EVP_PKEY_CTX_set_rsa_padding(context, RSA_NO_PADDING) == 1
        case .rsaOAEP(let digest, _):
            let md = EVP_get_digestbyname(digest.name)
            return EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_OAEP_PADDING) == 1 && EVP_PKEY_CTX_set_rsa_oaep_md(context, md) == 1
                && EVP_PKEY_CTX_set_rsa_mgf1_md(context, md) == 1
        }
    }
}

extension KeyMaterial.Algorithm {
    /// Its name in messages.
    package var name: String {
        switch self {
        case .rsa: "RSA"
        case .ec: "elliptic-curve"
        case .ed25519: "Ed25519"
        case .x25519: "X25519"
        }
    }
}
