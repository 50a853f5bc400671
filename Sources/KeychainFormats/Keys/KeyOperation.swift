/// What a SecKey algorithm asks of a key (`SecKeyAdaptors.m`): the signatures, encryptions and
/// key exchanges keychainctl's SecKey provides. A signature either hashes the message itself or
/// signs a digest the caller made, which must be as long as its digest (of any length for the
/// algorithms that name none).
package enum KeyOperation: Sendable {
    /// ECDSA (`…ECDSASignature…`): the signature DER-encoded as X9.62 says, or with `raw` the
    /// two numbers side by side, each as wide as the curve, as RFC 4754 says. Without a digest,
    /// the input is a digest of any length (`…DigestX962`, `…RFC4754`).
    case ecdsa(Digest?, hashesMessage: Bool, raw: Bool)
    /// RSA PKCS#1 v1.5 signatures (`…RSASignature…PKCS1v15…`). Without a digest
    /// (`…DigestPKCS1v15Raw`), the input is padded as it is, with no DigestInfo around it.
    case rsaPKCS1(Digest?, hashesMessage: Bool)
    /// Raw RSA (`kSecKeyAlgorithmRSASignatureRaw`, `…RSAEncryptionRaw`): the input is a number
    /// below the modulus, big-endian, and the key's operation is applied to it with no padding.
    case rsaRaw(Kind)
    /// RSA PSS signatures salted with the digest's length (`…RSASignature…PSS…`).
    case rsaPSS(Digest, hashesMessage: Bool)
    /// RSA OAEP encryption, the same digest for OAEP and MGF1 (`…RSAEncryptionOAEP…`); with
    /// `sessionKey`, OAEP wraps a new AES key and AES-GCM encrypts the data (`…OAEP…AESGCM`).
    case rsaOAEP(Digest, sessionKey: Bool)
    /// RSA PKCS#1 v1.5 encryption (`kSecKeyAlgorithmRSAEncryptionPKCS1`).
    case rsaPKCS1Encryption
    /// ECIES with ANSI X9.63's derivation and AES-GCM (`…ECIESEncryption…X963…AESGCM`), its IV all
    /// zero or, with `variableIV`, derived with the key.
    case ecies(Digest, variableIV: Bool)
    /// Elliptic-curve Diffie-Hellman (`…ECDHKeyExchange…`): the shared secret itself, or what the
    /// ANSI X9.63 key derivation makes of it with `kdf`. The cofactor variant is the same on the
    /// NIST curves, whose cofactor is 1.
    case ecdh(kdf: Digest?)

    /// What an operation does.
    package enum Kind: Sendable { case signature, encryption, keyExchange }

    /// SHA-1 or a SHA-2 digest, named by its length.
    package struct Digest: Sendable {
        /// Its length in bytes.
        package let length: Int

        /// SHA-1, SHA-224, SHA-256, SHA-384 and SHA-512.
        static let all = [20, 28, 32, 48, 64].map(Digest.init(length:))
        package static let sha256 = Digest(length: 32)

        /// Its name in Apple's identifiers, which OpenSSL takes too: SHA1, SHA224, …, SHA512.
        package var name: String { length == 20 ? "SHA1" : "SHA\(length * 8)" }

        /// The digest `name` names; `nil` for any other.
        init?(name: String) {
            guard let found = Self.all.first(where: { $0.name == name }) else { return nil }
            self = found
        }

        private init(length: Int) { self.length = length }
    }

    /// The kind of key it takes.
    package var algorithm: KeyMaterial.Algorithm {
        switch self {
        case .ecdsa, .ecdh, .ecies: .ec
        case .rsaPKCS1, .rsaPSS, .rsaOAEP, .rsaPKCS1Encryption, .rsaRaw: .rsa
        }
    }

    package var kind: Kind {
        switch self {
        case .ecdsa, .rsaPKCS1, .rsaPSS: .signature
        case .rsaOAEP, .rsaPKCS1Encryption, .ecies: .encryption
        case .ecdh: .keyExchange
        case .rsaRaw(let kind): kind
        }
    }

    /// Its digest, if it has one.
    package var digest: Digest? {
        switch self {
        case .ecdsa(let digest, _, _), .rsaPKCS1(let digest, _): digest
        case .rsaPSS(let digest, _), .rsaOAEP(let digest, _), .ecies(let digest, _): digest
        case .ecdh(let kdf): kdf
        case .rsaPKCS1Encryption, .rsaRaw: nil
        }
    }

    /// Whether a signature hashes the message itself.
    package var hashesMessage: Bool {
        switch self {
        case .ecdsa(_, let message, _), .rsaPKCS1(_, let message), .rsaPSS(_, let message): message
        case .rsaOAEP, .rsaPKCS1Encryption, .ecdh, .ecies, .rsaRaw: false
        }
    }

    /// Its name in messages.
    package var name: String {
        let input = hashesMessage ? "message" : "digest"
        let digestName = digest?.name ?? "any length"
        switch self {
        case .ecdsa(_, _, let raw): return "ECDSA (\(raw ? "RFC 4754" : "X9.62"), \(input), \(digestName))"
        case .rsaPKCS1(_, _): return "RSA PKCS#1 v1.5 (\(input), \(digest?.name ?? "no DigestInfo"))"
        case .rsaPSS(let digest, _): return "RSA PSS (\(input), \(digest.name))"
        case .rsaOAEP(let digest, let sessionKey): return "RSA OAEP (\(digest.name)\(sessionKey ? ", AES-GCM" : ""))"
        case .rsaRaw(let kind): return "raw RSA \(kind == .signature ? "signature" : "encryption")"
        case .rsaPKCS1Encryption: return "RSA PKCS#1 v1.5 encryption"
        case .ecdh(let kdf): return "ECDH" + (kdf.map { " (X9.63 KDF, \($0.name))" } ?? "")
        case .ecies(let digest, let variableIV): return "ECIES (X9.63 KDF, \(digest.name), AES-GCM\(variableIV ? ", derived IV" : ""))"
        }
    }
}

extension KeyOperation {
    /// The operation an Apple algorithm identifier names (`SecKeyAdaptors.m`:
    /// `algid:sign:ECDSA:message-X962:SHA256`, `algid:sign:RSA:digest-PSS:SHA256:SHA256:32`,
    /// `algid:encrypt:RSA:OAEP:SHA256`, `algid:encrypt:RSA:OAEP:SHA256:AESGCM`, `algid:encrypt:RSA:PKCS1`,
    /// `algid:sign:RSA:raw`, `algid:sign:ECDSA:digest-X962`,
    /// `algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM-KDFIV`, `algid:keyexchange:ECDH:KDFX963:SHA256`);
    /// `nil` for one not provided.
    package init?(algorithmID: String) {
        let parts = algorithmID.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 3, parts[0] == "algid" else { return nil }
        if parts[1] == "keyexchange" {
            guard parts[2] == "ECDH" || parts[2] == "ECDHC" else { return nil }
            if parts.count == 3 {
                self = .ecdh(kdf: nil)
                return
            }
            guard parts.count == 5, parts[3] == "KDFX963", let digest = Digest(name: parts[4]) else { return nil }
            self = .ecdh(kdf: digest)
            return
        }
        if parts[1] == "encrypt", parts[2] == "ECIES" {
            // algid:encrypt:ECIES:ECDH(C):KDFX963:SHA256:AESGCM(-KDFIV)
            guard parts.count == 7, parts[3] == "ECDH" || parts[3] == "ECDHC", parts[4] == "KDFX963", let digest = Digest(name: parts[5]),
                parts[6] == "AESGCM" || parts[6] == "AESGCM-KDFIV"
            else { return nil }
            self = .ecies(digest, variableIV: parts[6] == "AESGCM-KDFIV")
            return
        }
        guard parts.count >= 4 else { return nil }
        let digest = parts.count > 4 ? Digest(name: parts[4]) : nil
        switch (parts[1], parts[2], parts[3], digest) {
        // A digest of any length: algid:sign:ECDSA:digest-X962, …:RFC4754, …:digest-RFC4754.
        case ("sign", "ECDSA", "digest-X962", nil) where parts.count == 4:
            self = .ecdsa(nil, hashesMessage: false, raw: false)
        case ("sign", "ECDSA", "RFC4754", nil) where parts.count == 4, ("sign", "ECDSA", "digest-RFC4754", nil) where parts.count == 4:
            self = .ecdsa(nil, hashesMessage: false, raw: true)
        case ("sign", "ECDSA", let form, let digest?) where parts.count == 5:
            if let message = Self.hashesMessage(form, "X962") {
                self = .ecdsa(digest, hashesMessage: message, raw: false)
            } else if let message = Self.hashesMessage(form, "RFC4754") {
                self = .ecdsa(digest, hashesMessage: message, raw: true)
            } else {
                return nil
            }
        case ("sign", "RSA", "digest-PKCS1v15", nil) where parts.count == 4:
            self = .rsaPKCS1(nil, hashesMessage: false)
        case ("sign", "RSA", "raw", nil) where parts.count == 4:
            self = .rsaRaw(.signature)
        case ("encrypt", "RSA", "raw", nil) where parts.count == 4:
            self = .rsaRaw(.encryption)
        case ("sign", "RSA", let form, let digest?) where parts.count == 5:
            guard let message = Self.hashesMessage(form, "PKCS1v15") else { return nil }
            self = .rsaPKCS1(digest, hashesMessage: message)
        case ("sign", "RSA", let form, let digest?) where parts.count == 7:
            // PSS names its MGF1 digest and salt length too, which are the digest's; Apple's
            // identifiers for SHA-224 say 24 (SecKeyAdaptors.m), though the salt is its 28 bytes.
            let saltLabel = digest.length == 28 ? "24" : String(digest.length)
            guard parts[5] == digest.name, parts[6] == saltLabel, let message = Self.hashesMessage(form, "PSS") else {
                return nil
            }
            self = .rsaPSS(digest, hashesMessage: message)
        case ("encrypt", "RSA", "OAEP", let digest?) where parts.count == 5:
            self = .rsaOAEP(digest, sessionKey: false)
        case ("encrypt", "RSA", "OAEP", let digest?) where parts.count == 6 && parts[5] == "AESGCM":
            self = .rsaOAEP(digest, sessionKey: true)
        case ("encrypt", "RSA", "PKCS1", nil) where parts.count == 4:
            self = .rsaPKCS1Encryption
        default:
            return nil
        }
    }

    /// Whether a signature form (`message-X962`, `digest-PSS`) hashes the message; `nil` for
    /// another form.
    private static func hashesMessage(_ form: String, _ scheme: String) -> Bool? {
        switch form {
        case "message-" + scheme: true
        case "digest-" + scheme: false
        default: nil
        }
    }
}
