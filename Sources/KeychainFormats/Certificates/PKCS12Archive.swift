import CCrypto
import KeychainFoundation

/// A PKCS#12 file read as `SecPKCS12Import` reads it (`SecImportExport.c:251-338`):
/// its MAC checked with the passphrase, its safes and bags decrypted (modern PBES2 and the legacy
/// 3DES and RC2 schemes that exports from older Keychain Access and Windows still use), and each
/// private key paired with the certificate holding its public key. Only RSA and EC keys are taken,
/// as Apple takes them. A wrong passphrase is errSecAuthFailed; anything malformed, unsupported or
/// too costly to derive is errSecDecode.
package struct PKCS12Archive: Sendable {
    /// A certificate and its private key.
    package struct Identity: Sendable {
        package let certificate: Certificate
        package let key: KeyMaterial
    }

    /// Each private key with the certificate whose public key hash is its application label.
    package private(set) var identities: [Identity] = []
    /// Every other certificate (a chain, or ones for no key here), in file order.
    package private(set) var certificates: [Certificate] = []
    /// Private keys no certificate in the file holds (Apple leaves them out).
    package private(set) var unpairedKeys = 0

    /// The most PBKDF iterations one file may ask for, all derivations together: a hostile file
    /// with a count of 2³¹ would otherwise keep the process busy for hours. Real exports ask for
    /// 2,048 to 100,000 per derivation, a few derivations per file.
    package static let iterationBudget = 4_000_000
    /// How deep safe-contents bags may nest.
    package static let maximumNesting = 4

    /// Reads `der` with `passphrase` (empty when none was given, as Apple substitutes).
    package init(der: SecretBytes, passphrase: SecretBytes) throws(KeychainError) {
        var reader = Reader(passphrase: passphrase)
        try reader.read(der)
        var keys = reader.keys
        for certificate in reader.certificates {
            if let index = keys.firstIndex(where: { $0.applicationLabel == certificate.publicKeyHash }) {
                identities.append(Identity(certificate: certificate, key: keys.remove(at: index)))
            } else {
                certificates.append(certificate)
            }
        }
        unpairedKeys = keys.count
    }
}

/// The walk over one file's objects, with the passphrase as a C string and what was found so far.
private struct Reader {
    let passphrase: SecretBytes
    let passphraseLength: Int32
    var certificates: [Certificate] = []
    var keys: [KeyMaterial] = []
    var iterationsLeft = PKCS12Archive.iterationBudget

    init(passphrase given: SecretBytes) {
        // NUL-terminated, in guarded memory: OpenSSL takes a C string.
        let terminated = SecretBytes(count: 0)
        given.withUnsafeBytes { terminated.append($0) }
        withUnsafeBytes(of: UInt8(0)) { terminated.append($0) }
        passphrase = terminated
        // OpenSSL counts a passphrase in an Int32: a longer one (no PKCS#12 has one) is cut there
        // and then opens nothing, which is errSecAuthFailed, not a crash of the calling program.
        passphraseLength = Int32(clamping: given.count)
    }

    static func malformed(_ reason: String) -> KeychainError {
        KeychainError(.decode, hint: "the file is not a PKCS#12 keychainctl can read: \(reason).")
    }

    static let wrongPassphrase = KeychainError(
        .authFailed,
        hint: "the PKCS#12 passphrase is wrong: the file's integrity check (MAC) or its encrypted contents do not open with it.")

    func withPassphrase<R>(_ body: (UnsafePointer<CChar>) -> R) -> R {
        passphrase.withUnsafeBytes { body($0.baseAddress!.assumingMemoryBound(to: CChar.self)) }
    }

    mutating func read(_ der: SecretBytes) throws(KeychainError) {
        guard OpenSSL.start() else { throw Self.malformed("OpenSSL could not start") }
        ERR_clear_error()
        guard passphrase.withUnsafeBytes({ !$0.dropLast().contains(0) }) else {
            throw KeychainError(.param, hint: "the PKCS#12 passphrase holds a NUL byte, which no PKCS#12 passphrase can.")
        }
        // The file's bytes (plaintext key bags among them) in an ordinary array for OpenSSL,
        // zeroed once it has parsed them.
        var bytes = der.withUnsafeBytes { Array($0) }
        let decoded = OpenSSL.decode(bytes, { d2i_PKCS12(nil, $0, $1) }, free: { PKCS12_free($0) })
        OpenSSL.zero(&bytes)
        guard let p12 = decoded else {
            throw Self.malformed(OpenSSL.lastError())
        }
        defer { PKCS12_free(p12) }
        if PKCS12_mac_present(p12) == 1 { try verifyMAC(p12) }
        guard let safes = PKCS12_unpack_authsafes(p12) else { throw Self.malformed(OpenSSL.lastError()) }
        defer { keychainctl_free_safes(safes) }
        for index in 0..<keychainctl_stack_count(UnsafeRawPointer(safes)) {
            guard let raw = keychainctl_stack_at(UnsafeRawPointer(safes), index) else { continue }
            let p7 = raw.assumingMemoryBound(to: PKCS7.self)
            let bags: OpaquePointer
            switch OBJ_obj2nid(p7.pointee.type) {
            case NID_pkcs7_data:
                guard let plain = PKCS12_unpack_p7data(p7) else { throw Self.malformed(OpenSSL.lastError()) }
                bags = plain
            case NID_pkcs7_encrypted:
                bags = try decryptSafe(p7)
            default:
                throw Self.malformed("an authenticated safe is neither data nor encrypted data")
            }
            defer { keychainctl_free_bags(bags) }
            try readBags(bags, depth: 0)
        }
    }

    /// The MAC, with the passphrase: a mismatch is a wrong passphrase; an empty passphrase is
    /// also tried as none (the two derive different keys, and exporters write either).
    mutating func verifyMAC(_ p12: OpaquePointer) throws(KeychainError) {
        var iterations: UnsafePointer<ASN1_INTEGER>?
        PKCS12_get0_mac(nil, nil, nil, &iterations, p12)
        try spend(iterations.map { ASN1_INTEGER_get($0) } ?? 1)
        if withPassphrase({ PKCS12_verify_mac(p12, $0, passphraseLength) }) == 1 { return }
        // A mismatch raises no error (OpenSSL 3 just answers 0); an error means no MAC was computed.
        let computed = ERR_peek_last_error() == 0
        ERR_clear_error()
        if passphraseLength == 0, PKCS12_verify_mac(p12, nil, 0) == 1 { return }
        ERR_clear_error()
        guard computed else { throw Self.malformed("its integrity check (MAC) cannot be computed") }
        throw Self.wrongPassphrase
    }

    /// Counts a derivation's iterations against the file's budget.
    mutating func spend(_ iterations: Int) throws(KeychainError) {
        guard iterations > 0, iterations <= iterationsLeft else {
            throw Self.malformed(
                "it asks for more key-derivation iterations than keychainctl spends on one file (\(PKCS12Archive.iterationBudget))")
        }
        iterationsLeft -= iterations
    }

    /// The iteration count of a password-based algorithm (PKCS#12 PBE or PBES2 with PBKDF2).
    static func iterations(of algorithm: UnsafePointer<X509_ALGOR>) -> Int? {
        guard OBJ_obj2nid(algorithm.pointee.algorithm) == NID_pbes2 else { return pbeParameters(of: algorithm)?.iterations }
        guard let parameters = sequenceParameters(of: algorithm),
            let pbes2 = OpenSSL.decode(parameters, { OpaquePointer(d2i_PBE2PARAM(nil, $0, $1)) }, free: { PBE2PARAM_free(.init($0)) })
        else { return nil }
        let scheme = UnsafeMutablePointer<PBE2PARAM>(pbes2)
        defer { PBE2PARAM_free(scheme) }
        guard let function = scheme.pointee.keyfunc, OBJ_obj2nid(function.pointee.algorithm) == NID_id_pbkdf2,
            let inner = function.pointee.parameter, inner.pointee.type == V_ASN1_SEQUENCE,
            let bytes = OpenSSL.bytes(of: inner.pointee.value.sequence),
            let raw = OpenSSL.decode(bytes, { OpaquePointer(d2i_PBKDF2PARAM(nil, $0, $1)) }, free: { PBKDF2PARAM_free(.init($0)) })
        else { return nil }
        let kdf = UnsafeMutablePointer<PBKDF2PARAM>(raw)
        defer { PBKDF2PARAM_free(kdf) }
        return kdf.pointee.iter.map { ASN1_INTEGER_get($0) }
    }

    /// An algorithm's parameters when they are a SEQUENCE: its DER content.
    static func sequenceParameters(of algorithm: UnsafePointer<X509_ALGOR>) -> [UInt8]? {
        var type: Int32 = 0
        var value: UnsafeRawPointer?
        X509_ALGOR_get0(nil, &type, &value, algorithm)
        guard type == V_ASN1_SEQUENCE, let sequence = value?.assumingMemoryBound(to: ASN1_STRING.self) else { return nil }
        return OpenSSL.bytes(of: sequence)
    }

    /// A PKCS#12 PBE algorithm's salt and iteration count (its PBEPARAM).
    static func pbeParameters(of algorithm: UnsafePointer<X509_ALGOR>) -> (salt: [UInt8], iterations: Int)? {
        guard let parameters = sequenceParameters(of: algorithm),
            let raw = OpenSSL.decode(parameters, { OpaquePointer(d2i_PBEPARAM(nil, $0, $1)) }, free: { PBEPARAM_free(.init($0)) })
        else { return nil }
        let pbe = UnsafeMutablePointer<PBEPARAM>(raw)
        defer { PBEPARAM_free(pbe) }
        guard let salt = pbe.pointee.salt.flatMap({ OpenSSL.bytes(of: $0) }),
            let iterations = pbe.pointee.iter.map({ ASN1_INTEGER_get($0) })
        else { return nil }
        return (salt, iterations)
    }

    /// An encrypted safe's bags: OpenSSL decrypts every scheme its default provider has; RC2
    /// (`legacy` exports) is done here with its low-level cipher.
    mutating func decryptSafe(_ p7: UnsafeMutablePointer<PKCS7>) throws(KeychainError) -> OpaquePointer {
        var algorithm: UnsafePointer<X509_ALGOR>?
        var data: UnsafePointer<ASN1_OCTET_STRING>?
        guard keychainctl_encrypted_content(p7, &algorithm, &data) == 1, let algorithm, let data else {
            throw Self.malformed("an encrypted safe has no content")
        }
        try spend(Self.iterations(of: algorithm) ?? 0)
        if let bags = withPassphrase({ PKCS12_unpack_p7encdata(p7, $0, passphraseLength) }) { return bags }
        return try legacyDecode(algorithm, data, { keychainctl_d2i_safebags($0, $1) }, free: { keychainctl_free_bags($0) })
    }

    /// What OpenSSL could not decrypt, decrypted here (RC2) and decoded with `d2i`: a wrong
    /// passphrase when neither works. The plaintext may hold keys, and its copy is zeroed.
    func legacyDecode(
        _ algorithm: UnsafePointer<X509_ALGOR>, _ data: UnsafePointer<ASN1_OCTET_STRING>,
        _ d2i: (UnsafeMutablePointer<UnsafePointer<UInt8>?>, Int) -> OpaquePointer?, free: (OpaquePointer) -> Void
    ) throws(KeychainError) -> OpaquePointer {
        ERR_clear_error()
        guard let plain = try legacyDecrypt(algorithm, data) else { throw Self.wrongPassphrase }
        var bytes = plain.withUnsafeBytes { Array($0) }
        defer { OpenSSL.zero(&bytes) }
        guard let object = OpenSSL.decode(bytes, d2i, free: free) else { throw Self.wrongPassphrase }
        return object
    }

    /// RC2-CBC with a PKCS#12 key and IV (RFC 7292 appendix B): `nil` for any other algorithm,
    /// or when the padding shows the passphrase was wrong.
    func legacyDecrypt(_ algorithm: UnsafePointer<X509_ALGOR>, _ data: UnsafePointer<ASN1_OCTET_STRING>) throws(KeychainError)
        -> SecretBytes?
    {
        let keyLength: Int32
        switch OBJ_obj2nid(algorithm.pointee.algorithm) {
        case NID_pbe_WithSHA1And40BitRC2_CBC: keyLength = 5
        case NID_pbe_WithSHA1And128BitRC2_CBC: keyLength = 16
        // Schemes OpenSSL decrypts: its failure was the passphrase.
        case NID_pbes2, NID_pbe_WithSHA1And3_Key_TripleDES_CBC, NID_pbe_WithSHA1And2_Key_TripleDES_CBC: return nil
        default: throw Self.malformed("it is encrypted with an algorithm keychainctl does not know (\(OpenSSL.lastError()))")
        }
        guard let pbe = Self.pbeParameters(of: algorithm) else { throw Self.malformed("its RC2 parameters are missing or malformed") }
        let key = SecretBytes(count: Int(keyLength))
        let iv = SecretBytes(count: 8)
        let derived = withPassphrase { pass in
            key.withUnsafeMutableBytes { keyBytes in
                iv.withUnsafeMutableBytes { ivBytes in
                    var salt = pbe.salt
                    let saltLength = Int32(salt.count)
                    return PKCS12_key_gen_utf8(
                        pass, passphraseLength, &salt, saltLength, PKCS12_KEY_ID, Int32(pbe.iterations), keyLength,
                        keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self), EVP_sha1()) == 1
                        && PKCS12_key_gen_utf8(
                            pass, passphraseLength, &salt, saltLength, PKCS12_IV_ID, Int32(pbe.iterations), 8,
                            ivBytes.baseAddress!.assumingMemoryBound(to: UInt8.self), EVP_sha1()) == 1
                }
            }
        }
        let length = Int(ASN1_STRING_length(data))
        guard derived, length > 0, length % 8 == 0, let input = ASN1_STRING_get0_data(data) else { return nil }
        let plain = SecretBytes(count: length)
        plain.withUnsafeMutableBytes { output in
            key.withUnsafeBytes { keyBytes in
                iv.withUnsafeMutableBytes { ivBytes in
                    var schedule = RC2_KEY()
                    RC2_set_key(&schedule, keyLength, keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self), keyLength * 8)
                    RC2_cbc_encrypt(
                        input, output.baseAddress!.assumingMemoryBound(to: UInt8.self), length, &schedule,
                        ivBytes.baseAddress!.assumingMemoryBound(to: UInt8.self), RC2_DECRYPT)
                    withUnsafeMutableBytes(of: &schedule) { OpenSSL.cleanse($0) }
                }
            }
        }
        // PKCS#7 padding: 1 to 8 bytes each holding the count.
        let unpadded = plain.withUnsafeBytes { bytes -> Int? in
            guard let pad = bytes.last, (1...8).contains(pad), bytes.suffix(Int(pad)).allSatisfy({ $0 == pad }) else { return nil }
            return bytes.count - Int(pad)
        }
        guard let unpadded else { return nil }
        let result = SecretBytes(count: 0)
        plain.withUnsafeBytes { result.append(UnsafeRawBufferPointer(rebasing: $0.prefix(unpadded))) }
        return result
    }

    /// Takes the certificates and private keys of `bags` (and of safe-contents bags inside them).
    mutating func readBags(_ bags: OpaquePointer, depth: Int) throws(KeychainError) {
        guard depth <= PKCS12Archive.maximumNesting else {
            throw Self.malformed("its bags nest deeper than \(PKCS12Archive.maximumNesting)")
        }
        for index in 0..<keychainctl_stack_count(UnsafeRawPointer(bags)) {
            guard let raw = keychainctl_stack_at(UnsafeRawPointer(bags), index) else { continue }
            let bag = OpaquePointer(raw)
            switch PKCS12_SAFEBAG_get_nid(bag) {
            case NID_certBag:
                guard PKCS12_SAFEBAG_get_bag_nid(bag) == NID_x509Certificate else { continue }
                guard let x509 = PKCS12_SAFEBAG_get1_cert(bag) else { throw Self.malformed(OpenSSL.lastError()) }
                defer { X509_free(x509) }
                guard let der = OpenSSL.encode({ i2d_X509(x509, $0) }) else { throw Self.malformed("a certificate cannot be encoded") }
                do throws(ObjectError) {
                    certificates.append(try Certificate(der: der))
                } catch {
                    throw Self.malformed("a certificate in it: \(error.reason)")
                }
            case NID_keyBag:
                guard let info = PKCS12_SAFEBAG_get0_p8inf(bag) else { throw Self.malformed(OpenSSL.lastError()) }
                try take(info)
            case NID_pkcs8ShroudedKeyBag:
                try takeShrouded(bag)
            case NID_safeContentsBag:
                guard let inner = PKCS12_SAFEBAG_get0_safes(bag) else { continue }
                try readBags(inner, depth: depth + 1)
            default:
                continue  // CRLs and secrets: nothing Apple imports
            }
        }
    }

    /// A shrouded (encrypted) private key.
    mutating func takeShrouded(_ bag: OpaquePointer) throws(KeychainError) {
        guard let signature = PKCS12_SAFEBAG_get0_pkcs8(bag) else { throw Self.malformed("a shrouded key bag is empty") }
        var algorithm: UnsafePointer<X509_ALGOR>?
        var data: UnsafePointer<ASN1_OCTET_STRING>?
        X509_SIG_get0(signature, &algorithm, &data)
        guard let algorithm, let data else { throw Self.malformed("a shrouded key bag is empty") }
        try spend(Self.iterations(of: algorithm) ?? 0)
        if let info = withPassphrase({ PKCS12_decrypt_skey(bag, $0, passphraseLength) }) {
            defer { PKCS8_PRIV_KEY_INFO_free(info) }
            return try take(info)
        }
        let info = try legacyDecode(algorithm, data, { d2i_PKCS8_PRIV_KEY_INFO(nil, $0, $1) }, free: { PKCS8_PRIV_KEY_INFO_free($0) })
        defer { PKCS8_PRIV_KEY_INFO_free(info) }
        try take(info)
    }

    /// A decrypted private key: RSA or EC, as Apple's import takes (anything else is errSecDecode).
    mutating func take(_ info: OpaquePointer) throws(KeychainError) {
        guard let key = EVP_PKCS82PKEY(info) else { throw Self.malformed(OpenSSL.lastError()) }
        defer { EVP_PKEY_free(key) }
        do throws(ObjectError) {
            let material = try KeyMaterial(key, isPrivate: true)
            guard material.algorithm.isImportable else {
                throw ObjectError("an Ed25519 or X25519 key, which Apple's PKCS#12 import refuses (it takes RSA and EC keys)")
            }
            if !keys.contains(where: { $0.applicationLabel == material.applicationLabel }) { keys.append(material) }
        } catch {
            throw Self.malformed("its private key: \(error.reason)")
        }
    }
}
