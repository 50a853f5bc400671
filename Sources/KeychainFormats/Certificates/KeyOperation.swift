/// What a SecKey algorithm asks of a key (`SecKeyAdaptors.m`): the signatures and encryptions
/// keychainctl's SecKey provides. A signature either hashes the message itself or signs a digest
/// the caller made, which must be as long as its digest.
package enum KeyOperation: Sendable {
    /// ECDSA, the signature DER-encoded as X9.62 says (`…ECDSASignature…X962…`).
    case ecdsa(Digest, hashesMessage: Bool)
    /// RSA PKCS#1 v1.5 signatures (`…RSASignature…PKCS1v15…`).
    case rsaPKCS1(Digest, hashesMessage: Bool)
    /// RSA PSS signatures salted with the digest's length (`…RSASignature…PSS…`).
    case rsaPSS(Digest, hashesMessage: Bool)
    /// RSA OAEP encryption, the same digest for OAEP and MGF1 (`…RSAEncryptionOAEP…`).
    case rsaOAEP(Digest)
    /// RSA PKCS#1 v1.5 encryption (`kSecKeyAlgorithmRSAEncryptionPKCS1`).
    case rsaPKCS1Encryption

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
        case .ecdsa: .ec
        case .rsaPKCS1, .rsaPSS, .rsaOAEP, .rsaPKCS1Encryption: .rsa
        }
    }

    /// Whether it signs (or verifies) rather than encrypts (or decrypts).
    package var isSignature: Bool {
        switch self {
        case .ecdsa, .rsaPKCS1, .rsaPSS: true
        case .rsaOAEP, .rsaPKCS1Encryption: false
        }
    }

    /// Its digest, if it has one.
    package var digest: Digest? {
        switch self {
        case .ecdsa(let digest, _), .rsaPKCS1(let digest, _), .rsaPSS(let digest, _), .rsaOAEP(let digest): digest
        case .rsaPKCS1Encryption: nil
        }
    }

    /// Whether a signature hashes the message itself.
    package var hashesMessage: Bool {
        switch self {
        case .ecdsa(_, let message), .rsaPKCS1(_, let message), .rsaPSS(_, let message): message
        case .rsaOAEP, .rsaPKCS1Encryption: false
        }
    }

    /// The length of the digest a digest signature signs.
    package var digestLength: Int? { digest?.length }

    /// Its name in messages.
    package var name: String {
        switch self {
        case .ecdsa(let digest, let message): "ECDSA (X9.62, \(message ? "message" : "digest"), \(digest.name))"
        case .rsaPKCS1(let digest, let message): "RSA PKCS#1 v1.5 (\(message ? "message" : "digest"), \(digest.name))"
        case .rsaPSS(let digest, let message): "RSA PSS (\(message ? "message" : "digest"), \(digest.name))"
        case .rsaOAEP(let digest): "RSA OAEP (\(digest.name))"
        case .rsaPKCS1Encryption: "RSA PKCS#1 v1.5 encryption"
        }
    }
}

extension KeyOperation {
    /// The operation an Apple algorithm identifier names (`SecKeyAdaptors.m`:
    /// `algid:sign:ECDSA:message-X962:SHA256`, `algid:sign:RSA:digest-PSS:SHA256:SHA256:32`,
    /// `algid:encrypt:RSA:OAEP:SHA256`, `algid:encrypt:RSA:PKCS1`); `nil` for one not provided.
    package init?(algorithmID: String) {
        let parts = algorithmID.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 4, parts[0] == "algid" else { return nil }
        let digest = parts.count > 4 ? Digest(name: parts[4]) : nil
        switch (parts[1], parts[2], parts[3], digest) {
        case ("sign", "ECDSA", let form, let digest?) where parts.count == 5 && form.hasSuffix("-X962"):
            guard let message = Self.hashesMessage(form, "X962") else { return nil }
            self = .ecdsa(digest, hashesMessage: message)
        case ("sign", "RSA", let form, let digest?) where parts.count == 5 && form.hasSuffix("-PKCS1v15"):
            guard let message = Self.hashesMessage(form, "PKCS1v15") else { return nil }
            self = .rsaPKCS1(digest, hashesMessage: message)
        case ("sign", "RSA", let form, let digest?) where form.hasSuffix("-PSS"):
            // PSS names its MGF1 digest and salt length too, which are the digest's.
            guard parts.count == 7, parts[5] == digest.name, parts[6] == String(digest.length),
                let message = Self.hashesMessage(form, "PSS")
            else { return nil }
            self = .rsaPSS(digest, hashesMessage: message)
        case ("encrypt", "RSA", "OAEP", let digest?) where parts.count == 5:
            self = .rsaOAEP(digest)
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
