import CCrypto
import KeychainFoundation
import TextEscaping

/// A key as `SecKeyCreateWithData` holds it, and the attributes `SecItemAdd` derives from it
/// (`SecKeyCopyAttributeDictionary`, `SecKey.m:109-157`, with the RSA and EC overrides;
/// `SecKeyCurve25519.m:154-411` for Ed25519 and X25519). Read by OpenSSL from PKCS#8, SEC1,
/// PKCS#1 or SubjectPublicKeyInfo; RSA of 1024 to 4096 bits, the NIST curves P-256, P-384 and
/// P-521, Ed25519 and X25519: the types Apple's SecKey stores.
package struct KeyMaterial: Sendable {
    package enum Algorithm: Sendable, Equatable, CaseIterable {
        case rsa
        case ec
        case ed25519
        case x25519

        /// kSecAttrKeyType (`SecItemConstants.c:239-256`).
        package var keyType: String {
            switch self {
            case .rsa: "42"
            case .ec: "73"
            case .ed25519: "105"
            case .x25519: "106"
            }
        }

        /// The algorithm a kSecAttrKeyType names; `nil` for one this keychain does not hold.
        package init?(keyType: String) {
            guard let found = Self.allCases.first(where: { $0.keyType == keyType }) else { return nil }
            self = found
        }

        /// Whether `SecPKCS12Import` takes such a private key (RSA and EC only: `SecImportExport.c:106-118`).
        package var isImportable: Bool { self == .rsa || self == .ec }
    }

    package let algorithm: Algorithm
    package let isPrivate: Bool
    /// Modulus or curve size in bits (`bsiz`, `esiz`).
    package let bits: Int
    /// The public key as Apple encodes it: PKCS#1 RSAPublicKey, the X9.63 point `04‖X‖Y`, or the
    /// 32 raw bytes of a Curve25519 key.
    package let publicBytes: [UInt8]
    /// Apple's external representation (`v_Data`): PKCS#1 RSAPrivateKey, `04‖X‖Y‖K` or the 32-byte
    /// Curve25519 secret for a private key, the public bytes for a public one.
    package let external: SecretBytes
    /// `klbl`: the SHA-1 of `publicBytes`, which a certificate's `pkhh` equals when it holds this key.
    package let applicationLabel: [UInt8]

    /// The curves Apple's SecECKey takes, by OpenSSL's group name.
    static let curves: [String: Int] = ["prime256v1": 256, "secp384r1": 384, "secp521r1": 521]

    /// Reads a DER key whose PEM label (if it had one) was `label`.
    package init(der: SecretBytes, label: String?) throws(ObjectError) {
        guard OpenSSL.start() else { throw ObjectError("OpenSSL could not start") }
        ERR_clear_error()
        var bytes = der.withUnsafeBytes { Array($0) }
        defer { OpenSSL.zero(&bytes) }
        var isPrivate = true
        var key: OpaquePointer?
        switch label {
        case "PUBLIC KEY":
            key = OpenSSL.decode(bytes, { d2i_PUBKEY(nil, $0, $1) }, free: { EVP_PKEY_free($0) })
            isPrivate = false
        case "RSA PUBLIC KEY":
            key = OpenSSL.decode(bytes, { d2i_PublicKey(EVP_PKEY_RSA, nil, $0, $1) }, free: { EVP_PKEY_free($0) })
            isPrivate = false
        case "ENCRYPTED PRIVATE KEY":
            throw ObjectError("its private key is encrypted; decrypt it first (openssl pkey -in FILE -out PLAIN)")
        case "PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY":
            key = OpenSSL.decode(bytes, { d2i_AutoPrivateKey(nil, $0, $1) }, free: { EVP_PKEY_free($0) })
        case nil:
            key = OpenSSL.decode(bytes, { d2i_AutoPrivateKey(nil, $0, $1) }, free: { EVP_PKEY_free($0) })
            if key == nil {
                ERR_clear_error()
                isPrivate = false
                key =
                    OpenSSL.decode(bytes, { d2i_PUBKEY(nil, $0, $1) }, free: { EVP_PKEY_free($0) })
                    ?? OpenSSL.decode(bytes, { d2i_PublicKey(EVP_PKEY_RSA, nil, $0, $1) }, free: { EVP_PKEY_free($0) })
            }
        default:
            throw ObjectError("a PEM block labelled '\((label ?? "").terminalSafe)' is not a key")
        }
        guard let key else {
            throw ObjectError(
                "it is not a key in PKCS#8, SEC1, PKCS#1 or SubjectPublicKeyInfo (\(OpenSSL.lastError()))", unrecognised: true)
        }
        defer { EVP_PKEY_free(key) }
        try self.init(key, isPrivate: isPrivate)
    }

    /// The parts of an OpenSSL key (private when `isPrivate`). A private key must match the public
    /// half it carries (OpenSSL's pairwise check: the EC point recomputed from the scalar, RSA's
    /// n = pq and d·e ≡ 1): identities pair by that public half, so a forged one would join a
    /// genuine certificate to a foreign key.
    package init(_ key: OpaquePointer, isPrivate: Bool) throws(ObjectError) {
        if isPrivate {
            let context = EVP_PKEY_CTX_new_from_pkey(nil, key, nil)
            defer { EVP_PKEY_CTX_free(context) }
            // -2: no pairwise check for this type (Ed25519 and X25519 derive their public half).
            let checked = context.map { EVP_PKEY_pairwise_check($0) } ?? 0
            guard checked == 1 || checked == -2 else {
                ERR_clear_error()
                throw ObjectError("its private key does not match the public key it carries")
            }
        }
        self.isPrivate = isPrivate
        switch EVP_PKEY_get_base_id(key) {
        case EVP_PKEY_RSA:
            algorithm = .rsa
            bits = Int(EVP_PKEY_get_bits(key))
            guard (1024...4096).contains(bits) else {
                throw ObjectError("an RSA key of \(bits) bits is not one Apple's SecKey stores (1024 to 4096)")
            }
            guard let point = OpenSSL.encode({ i2d_PublicKey(key, $0) }) else { throw ObjectError("its public key cannot be encoded") }
            publicBytes = point
            if isPrivate {
                guard var pkcs1 = OpenSSL.encode({ i2d_PrivateKey(key, $0) }) else {
                    throw ObjectError("its private key cannot be encoded")
                }
                external = SecretBytes(copying: pkcs1)
                OpenSSL.zero(&pkcs1)
            } else {
                external = SecretBytes(copying: point)
            }
        case EVP_PKEY_EC:
            algorithm = .ec
            var group = [CChar](repeating: 0, count: 64)
            var length = 0
            guard EVP_PKEY_get_group_name(key, &group, group.count, &length) == 1,
                let size = Self.curves[String(decoding: group.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)]
            else {
                let name = String(decoding: group.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
                throw ObjectError(
                    "the elliptic curve \(name.isEmpty ? "it uses" : name) is not P-256, P-384 or P-521, the curves Apple's SecKey stores")
            }
            bits = size
            _ = EVP_PKEY_set_utf8_string_param(key, OSSL_PKEY_PARAM_EC_POINT_CONVERSION_FORMAT, "uncompressed")
            guard let point = OpenSSL.encode({ i2d_PublicKey(key, $0) }), point.first == 0x04 else {
                throw ObjectError("its public point cannot be encoded")
            }
            publicBytes = point
            if isPrivate {
                var scalar: OpaquePointer?
                guard EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_PRIV_KEY, &scalar) == 1, let scalar else {
                    throw ObjectError("its private scalar cannot be read")
                }
                defer { BN_clear_free(scalar) }
                let width = (size + 7) / 8
                let secret = SecretBytes(count: point.count + width)
                let written = secret.withUnsafeMutableBytes { buffer -> Int32 in
                    let base = buffer.bindMemory(to: UInt8.self)
                    for (index, byte) in point.enumerated() { base[index] = byte }
                    return BN_bn2binpad(scalar, base.baseAddress! + point.count, Int32(width))
                }
                guard written == Int32(width) else { throw ObjectError("its private scalar is out of range") }
                external = secret
            } else {
                external = SecretBytes(copying: point)
            }
        case EVP_PKEY_ED25519, EVP_PKEY_X25519:
            algorithm = EVP_PKEY_get_base_id(key) == EVP_PKEY_ED25519 ? .ed25519 : .x25519
            bits = 256
            var point = [UInt8](repeating: 0, count: 32)
            var length = point.count
            guard EVP_PKEY_get_raw_public_key(key, &point, &length) == 1, length == 32 else {
                throw ObjectError("its public key cannot be read")
            }
            publicBytes = point
            if isPrivate {
                let secret = SecretBytes(count: 32)
                var secretLength = 32
                let read = secret.withUnsafeMutableBytes {
                    EVP_PKEY_get_raw_private_key(key, $0.bindMemory(to: UInt8.self).baseAddress, &secretLength)
                }
                guard read == 1, secretLength == 32 else { throw ObjectError("its private key cannot be read") }
                external = secret
            } else {
                external = SecretBytes(copying: point)
            }
        case EVP_PKEY_ED448, EVP_PKEY_X448:
            throw ObjectError("an Ed448 or X448 key is not one this keychain stores; RSA, P-256, P-384, P-521, Ed25519 and X25519 are")
        default:
            throw ObjectError("its key type is not RSA or elliptic-curve")
        }
        applicationLabel = publicBytes.withUnsafeBytes { OpenSSL.sha1($0) }
    }

    /// The attributes `SecItemAdd` derives from the key, as Apple's key attribute dictionary
    /// spells them: the codes stay literal here so the table reads like Apple's.
    package var attributes: [String: AttributeValue] {
        [
            "kcls": .number(isPrivate ? 1 : 0), "type": .string(algorithm.keyType),
            "bsiz": .number(Int64(bits)), "esiz": .number(Int64(bits)), "klbl": .data(applicationLabel),
            "perm": .bool(true), "priv": .bool(true), "modi": .bool(true),
            "sens": .bool(false), "asen": .bool(false), "extr": .bool(true), "next": .bool(false),
            "snrc": .bool(false), "vyrc": .bool(false),
            "encr": .bool(!isPrivate), "decr": .bool(isPrivate || algorithm == .rsa),
            "sign": .bool(isPrivate), "vrfy": .bool(!isPrivate),
            "wrap": .bool(!isPrivate), "unwp": .bool(isPrivate),
            // The generic dictionary says true; RSA keys and EC and Curve25519 public keys override it.
            "drve": .bool(isPrivate && algorithm != .rsa),
        ]
    }
}
