import Foundation
import Security
import SecurityTesting
import Testing

// The algorithm constants as Apple spells them, and a signature they make checked by OpenSSL: an
// app that stores an algorithm's identifier, or compares it, sees Apple's string.

/// Every constant of SecKey.h that `SecKeyAdaptors.m` (apple-oss-distributions/Security) defines,
/// with the identifier Apple gives it there. (The RFC 4754 digest and message forms, added with
/// iOS 17, are not in that file's public copy.)
private let applesIdentifiers: [(SecKeyAlgorithm, String)] = [
    (.rsaSignatureRaw, "algid:sign:RSA:raw"),
    (.rsaSignatureDigestPKCS1v15Raw, "algid:sign:RSA:digest-PKCS1v15"),
    (.rsaEncryptionRaw, "algid:encrypt:RSA:raw"),
    (.rsaEncryptionOAEPSHA1AESGCM, "algid:encrypt:RSA:OAEP:SHA1:AESGCM"),
    (.rsaEncryptionOAEPSHA224AESGCM, "algid:encrypt:RSA:OAEP:SHA224:AESGCM"),
    (.rsaEncryptionOAEPSHA256AESGCM, "algid:encrypt:RSA:OAEP:SHA256:AESGCM"),
    (.rsaEncryptionOAEPSHA384AESGCM, "algid:encrypt:RSA:OAEP:SHA384:AESGCM"),
    (.rsaEncryptionOAEPSHA512AESGCM, "algid:encrypt:RSA:OAEP:SHA512:AESGCM"),
    (.ecdsaSignatureDigestX962, "algid:sign:ECDSA:digest-X962"),
    (.ecdsaSignatureRFC4754, "algid:sign:ECDSA:RFC4754"),
    (.rsaSignatureDigestPKCS1v15SHA1, "algid:sign:RSA:digest-PKCS1v15:SHA1"),
    (.rsaSignatureDigestPKCS1v15SHA224, "algid:sign:RSA:digest-PKCS1v15:SHA224"),
    (.rsaSignatureDigestPKCS1v15SHA256, "algid:sign:RSA:digest-PKCS1v15:SHA256"),
    (.rsaSignatureDigestPKCS1v15SHA384, "algid:sign:RSA:digest-PKCS1v15:SHA384"),
    (.rsaSignatureDigestPKCS1v15SHA512, "algid:sign:RSA:digest-PKCS1v15:SHA512"),
    (.rsaSignatureDigestPSSSHA1, "algid:sign:RSA:digest-PSS:SHA1:SHA1:20"),
    (.rsaSignatureDigestPSSSHA224, "algid:sign:RSA:digest-PSS:SHA224:SHA224:24"),
    (.rsaSignatureDigestPSSSHA256, "algid:sign:RSA:digest-PSS:SHA256:SHA256:32"),
    (.rsaSignatureDigestPSSSHA384, "algid:sign:RSA:digest-PSS:SHA384:SHA384:48"),
    (.rsaSignatureDigestPSSSHA512, "algid:sign:RSA:digest-PSS:SHA512:SHA512:64"),
    (.rsaSignatureMessagePKCS1v15SHA1, "algid:sign:RSA:message-PKCS1v15:SHA1"),
    (.rsaSignatureMessagePKCS1v15SHA224, "algid:sign:RSA:message-PKCS1v15:SHA224"),
    (.rsaSignatureMessagePKCS1v15SHA256, "algid:sign:RSA:message-PKCS1v15:SHA256"),
    (.rsaSignatureMessagePKCS1v15SHA384, "algid:sign:RSA:message-PKCS1v15:SHA384"),
    (.rsaSignatureMessagePKCS1v15SHA512, "algid:sign:RSA:message-PKCS1v15:SHA512"),
    (.rsaSignatureMessagePSSSHA1, "algid:sign:RSA:message-PSS:SHA1:SHA1:20"),
    (.rsaSignatureMessagePSSSHA224, "algid:sign:RSA:message-PSS:SHA224:SHA224:24"),
    (.rsaSignatureMessagePSSSHA256, "algid:sign:RSA:message-PSS:SHA256:SHA256:32"),
    (.rsaSignatureMessagePSSSHA384, "algid:sign:RSA:message-PSS:SHA384:SHA384:48"),
    (.rsaSignatureMessagePSSSHA512, "algid:sign:RSA:message-PSS:SHA512:SHA512:64"),
    (.ecdsaSignatureDigestX962SHA1, "algid:sign:ECDSA:digest-X962:SHA1"),
    (.ecdsaSignatureDigestX962SHA224, "algid:sign:ECDSA:digest-X962:SHA224"),
    (.ecdsaSignatureDigestX962SHA256, "algid:sign:ECDSA:digest-X962:SHA256"),
    (.ecdsaSignatureDigestX962SHA384, "algid:sign:ECDSA:digest-X962:SHA384"),
    (.ecdsaSignatureDigestX962SHA512, "algid:sign:ECDSA:digest-X962:SHA512"),
    (.ecdsaSignatureMessageX962SHA1, "algid:sign:ECDSA:message-X962:SHA1"),
    (.ecdsaSignatureMessageX962SHA224, "algid:sign:ECDSA:message-X962:SHA224"),
    (.ecdsaSignatureMessageX962SHA256, "algid:sign:ECDSA:message-X962:SHA256"),
    (.ecdsaSignatureMessageX962SHA384, "algid:sign:ECDSA:message-X962:SHA384"),
    (.ecdsaSignatureMessageX962SHA512, "algid:sign:ECDSA:message-X962:SHA512"),
    (.rsaEncryptionPKCS1, "algid:encrypt:RSA:PKCS1"),
    (.rsaEncryptionOAEPSHA1, "algid:encrypt:RSA:OAEP:SHA1"),
    (.rsaEncryptionOAEPSHA224, "algid:encrypt:RSA:OAEP:SHA224"),
    (.rsaEncryptionOAEPSHA256, "algid:encrypt:RSA:OAEP:SHA256"),
    (.rsaEncryptionOAEPSHA384, "algid:encrypt:RSA:OAEP:SHA384"),
    (.rsaEncryptionOAEPSHA512, "algid:encrypt:RSA:OAEP:SHA512"),
    (.eciesEncryptionStandardX963SHA1AESGCM, "algid:encrypt:ECIES:ECDH:KDFX963:SHA1:AESGCM"),
    (.eciesEncryptionStandardX963SHA224AESGCM, "algid:encrypt:ECIES:ECDH:KDFX963:SHA224:AESGCM"),
    (.eciesEncryptionStandardX963SHA256AESGCM, "algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM"),
    (.eciesEncryptionStandardX963SHA384AESGCM, "algid:encrypt:ECIES:ECDH:KDFX963:SHA384:AESGCM"),
    (.eciesEncryptionStandardX963SHA512AESGCM, "algid:encrypt:ECIES:ECDH:KDFX963:SHA512:AESGCM"),
    (.eciesEncryptionCofactorX963SHA1AESGCM, "algid:encrypt:ECIES:ECDHC:KDFX963:SHA1:AESGCM"),
    (.eciesEncryptionCofactorX963SHA224AESGCM, "algid:encrypt:ECIES:ECDHC:KDFX963:SHA224:AESGCM"),
    (.eciesEncryptionCofactorX963SHA256AESGCM, "algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM"),
    (.eciesEncryptionCofactorX963SHA384AESGCM, "algid:encrypt:ECIES:ECDHC:KDFX963:SHA384:AESGCM"),
    (.eciesEncryptionCofactorX963SHA512AESGCM, "algid:encrypt:ECIES:ECDHC:KDFX963:SHA512:AESGCM"),
    (.ecdhKeyExchangeStandard, "algid:keyexchange:ECDH"),
    (.ecdhKeyExchangeStandardX963SHA1, "algid:keyexchange:ECDH:KDFX963:SHA1"),
    (.ecdhKeyExchangeStandardX963SHA224, "algid:keyexchange:ECDH:KDFX963:SHA224"),
    (.ecdhKeyExchangeStandardX963SHA256, "algid:keyexchange:ECDH:KDFX963:SHA256"),
    (.ecdhKeyExchangeStandardX963SHA384, "algid:keyexchange:ECDH:KDFX963:SHA384"),
    (.ecdhKeyExchangeStandardX963SHA512, "algid:keyexchange:ECDH:KDFX963:SHA512"),
    (.ecdhKeyExchangeCofactor, "algid:keyexchange:ECDHC"),
    (.ecdhKeyExchangeCofactorX963SHA1, "algid:keyexchange:ECDHC:KDFX963:SHA1"),
    (.ecdhKeyExchangeCofactorX963SHA224, "algid:keyexchange:ECDHC:KDFX963:SHA224"),
    (.ecdhKeyExchangeCofactorX963SHA256, "algid:keyexchange:ECDHC:KDFX963:SHA256"),
    (.ecdhKeyExchangeCofactorX963SHA384, "algid:keyexchange:ECDHC:KDFX963:SHA384"),
    (.ecdhKeyExchangeCofactorX963SHA512, "algid:keyexchange:ECDHC:KDFX963:SHA512"),
]

@Suite struct SecKeyAlgorithmTests {
    let keychain: SecurityTesting.Lease

    init() async throws { keychain = try await SecurityTesting.Lease(inMemory: .accessGroups(["SKMME9E2Y8.com.example.app"])) }

    /// Each constant is Apple's string, and an algorithm made from Apple's string is the same
    /// algorithm (the PSS SHA-224 pair say 24 where the salt is 28 bytes: Apple's spelling).
    @Test func everyConstantIsApplesIdentifier() throws {
        #expect(applesIdentifiers.count >= 68)
        for (algorithm, identifier) in applesIdentifiers {
            #expect(algorithm.rawValue as String == identifier, "\(identifier)")
            #expect(SecKeyAlgorithm(rawValue: identifier as CFString) == algorithm)
        }
    }

    /// The fixture RSA key, as SecKeyCreateWithData reads it.
    static func rsaKey() throws -> SecKey {
        let attributes =
            [kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeyClass as String: kSecAttrKeyClassPrivate] as CFDictionary
        return try #require(SecKeyCreateWithData(try der(ofPEM: "leaf-rsa-pkcs1.key") as CFData, attributes, nil))
    }

    /// Runs the `openssl` command with `arguments` (`FILE` in them stands for a temporary file
    /// holding `file`): its status and what it printed, stdout then stderr.
    static func openssl(_ arguments: [String], file: Data) throws -> (status: Int32, output: Data) {
        try runChild("/usr/bin/openssl", arguments, files: ["FILE": file])
    }

    /// A PSS signature made through Apple's identifier verifies with OpenSSL's command (salt of the
    /// digest's length), SHA-224 (whose identifier says 24) to SHA-512.
    @Test(arguments: [("SHA224", "24", 28), ("SHA256", "32", 32), ("SHA384", "48", 48), ("SHA512", "64", 64)])
    func aPSSSignatureVerifiesWithOpenSSL(digest: String, label: String, salt: Int) throws {
        let rsa = try Self.rsaKey()
        let message = try fixture("signed-message.txt")
        let algorithm = SecKeyAlgorithm(rawValue: "algid:sign:RSA:message-PSS:\(digest):\(digest):\(label)" as CFString)
        #expect(SecKeyIsAlgorithmSupported(rsa, .sign, algorithm))
        let signature = try #require(SecKeyCreateSignature(rsa, algorithm, message as CFData, nil) as Data?)
        let verified = try Self.openssl(
            [
                "dgst", "-\(digest.lowercased())", "-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_pss_saltlen:\(salt)", "-verify",
                certificateFolder.appendingPathComponent("leaf-rsa-public.pem").path, "-signature", "FILE",
                certificateFolder.appendingPathComponent("signed-message.txt").path,
            ], file: signature)
        #expect(verified.status == 0 && String(decoding: verified.output, as: UTF8.self).contains("Verified OK"))
    }

    /// What the library encrypts with RSA OAEP to the fixture's public key, OpenSSL's command
    /// decrypts with its private key, for SHA-1 and SHA-256 (MGF1 with the same digest, as Apple's).
    @Test(arguments: [(SecKeyAlgorithm.rsaEncryptionOAEPSHA1, "sha1"), (.rsaEncryptionOAEPSHA256, "sha256")])
    func anOAEPCiphertextOpensWithOpenSSL(algorithm: SecKeyAlgorithm, digest: String) throws {
        let publicKey = try #require(SecKeyCopyPublicKey(try Self.rsaKey()))
        let plaintext = Data("sealed for OpenSSL".utf8)
        let sealed = try #require(SecKeyCreateEncryptedData(publicKey, algorithm, plaintext as CFData, nil) as Data?)
        let opened = try Self.openssl(
            [
                "pkeyutl", "-decrypt", "-inkey", certificateFolder.appendingPathComponent("leaf-rsa-pkcs1.key").path, "-in", "FILE",
                "-pkeyopt", "rsa_padding_mode:oaep", "-pkeyopt", "rsa_oaep_md:\(digest)", "-pkeyopt", "rsa_mgf1_md:\(digest)",
            ], file: sealed)
        #expect(opened.status == 0 && opened.output == plaintext, "\(String(decoding: opened.output, as: UTF8.self))")
    }

    /// The same PKCS#1 v1.5 signature three ways: raw RSA over the padded block, PKCS#1 without
    /// DigestInfo over DigestInfo and digest, and PKCS#1 with SHA-256 over the digest (the padding
    /// is deterministic, so the three must be equal); OpenSSL recovers DigestInfo and digest.
    @Test func rawAndDigestInfoFreeSignaturesAreTheSamePKCS1Block() throws {
        let rsa = try Self.rsaKey()
        let blockSize = SecKeyGetBlockSize(rsa)
        let digest = Data((0..<32).map { UInt8($0) })
        // DigestInfo for SHA-256 (RFC 8017, section 9.2, note 1), then the digest.
        let digestInfo =
            Data([0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00, 0x04, 0x20])
            + digest
        let block = Data([0, 1]) + Data(repeating: 0xff, count: blockSize - digestInfo.count - 3) + Data([0]) + digestInfo
        let raw = try #require(SecKeyCreateSignature(rsa, .rsaSignatureRaw, block as CFData, nil) as Data?)
        let withoutDigestInfo = try #require(SecKeyCreateSignature(rsa, .rsaSignatureDigestPKCS1v15Raw, digestInfo as CFData, nil) as Data?)
        let sha256 = try #require(SecKeyCreateSignature(rsa, .rsaSignatureDigestPKCS1v15SHA256, digest as CFData, nil) as Data?)
        #expect(raw.count == blockSize && raw == withoutDigestInfo && raw == sha256)
        let publicKey = try #require(SecKeyCopyPublicKey(rsa))
        #expect(SecKeyVerifySignature(publicKey, .rsaSignatureRaw, block.dropFirst() as CFData, raw as CFData, nil))
        #expect(SecKeyVerifySignature(publicKey, .rsaSignatureDigestPKCS1v15Raw, digestInfo as CFData, raw as CFData, nil))
        var error: Unmanaged<CFError>?
        #expect(!SecKeyVerifySignature(publicKey, .rsaSignatureRaw, Data(block.dropFirst().reversed()) as CFData, raw as CFData, &error))
        #expect(error.map { CFErrorGetCode($0.takeRetainedValue()) } == Int(errSecVerifyFailed))
        let recovered = try Self.openssl(
            [
                "pkeyutl", "-verifyrecover", "-pubin", "-inkey", certificateFolder.appendingPathComponent("leaf-rsa-public.pem").path,
                "-in", "FILE",
            ],
            file: withoutDigestInfo)
        #expect(recovered.status == 0 && recovered.output == digestInfo)
        // A block longer than the modulus is refused, not cut.
        #expect(SecKeyCreateSignature(rsa, .rsaSignatureRaw, Data(count: blockSize + 1) as CFData, nil) == nil)
    }

    /// Raw RSA encryption is the public key's operation on the number the input spells: OpenSSL
    /// decrypts it with no padding to the same block, zeros in front.
    @Test func rawEncryptionIsTheBareRSAOperation() throws {
        let rsa = try Self.rsaKey()
        let publicKey = try #require(SecKeyCopyPublicKey(rsa))
        let number = Data("a number below the modulus".utf8)
        let sealed = try #require(SecKeyCreateEncryptedData(publicKey, .rsaEncryptionRaw, number as CFData, nil) as Data?)
        let block = Data(count: SecKeyGetBlockSize(rsa) - number.count) + number
        #expect(SecKeyCreateDecryptedData(rsa, .rsaEncryptionRaw, sealed as CFData, nil) as Data? == block)
        let opened = try Self.openssl(
            [
                "pkeyutl", "-decrypt", "-inkey", certificateFolder.appendingPathComponent("leaf-rsa-pkcs1.key").path, "-in", "FILE",
                "-pkeyopt", "rsa_padding_mode:none",
            ], file: sealed)
        #expect(opened.status == 0 && opened.output == block)
    }

    /// ECDSA over a digest of any length (`…DigestX962`, `…RFC4754`): OpenSSL verifies the X9.62
    /// signature of a 20-byte and of a 57-byte digest, and RFC 4754's is the same pair of numbers.
    @Test(arguments: [20, 57])
    func ecdsaSignsADigestOfAnyLength(length: Int) throws {
        let attributes = [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClass as String: kSecAttrKeyClassPrivate]
        let external = try fixture("leaf-ec-external.bin")
        let ec = try #require(SecKeyCreateWithData(external as CFData, attributes as CFDictionary, nil))
        let digest = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 * 7) })
        let x962 = try #require(SecKeyCreateSignature(ec, .ecdsaSignatureDigestX962, digest as CFData, nil) as Data?)
        let verified = try runChild(
            "/usr/bin/openssl",
            [
                "pkeyutl", "-verify", "-pubin", "-inkey", certificateFolder.appendingPathComponent("leaf-ec-public.pem").path, "-in",
                "DIGEST", "-sigfile", "SIGNATURE",
            ],
            files: ["DIGEST": digest, "SIGNATURE": x962])
        #expect(verified.status == 0, "\(String(decoding: verified.output, as: UTF8.self))")
        let publicKey = try #require(SecKeyCopyPublicKey(ec))
        for algorithm in [SecKeyAlgorithm.ecdsaSignatureRFC4754, .ecdsaSignatureDigestRFC4754] {
            let raw = try #require(SecKeyCreateSignature(ec, algorithm, digest as CFData, nil) as Data?)
            #expect(raw.count == 64 && SecKeyVerifySignature(publicKey, algorithm, digest as CFData, raw as CFData, nil))
            // ECDSA reads only as many leading bytes as the curve is wide: the first one counts.
            var changed = digest
            changed[0] ^= 1
            #expect(!SecKeyVerifySignature(publicKey, algorithm, changed as CFData, raw as CFData, nil))
        }
    }

    /// What the library seals, an implementation written apart from it opens (Python's
    /// cryptography, on OpenSSL): ECIES on P-256 and P-384 (zero and derived IV), and RSA OAEP
    /// wrapping an AES-GCM key (2048-bit: a 16-byte key; 4096-bit: a 32-byte one).
    @Test(arguments: [
        ("ecies", "SHA256", 256), ("ecies-kdfiv", "SHA256", 256), ("ecies", "SHA384", 384), ("ecies-kdfiv", "SHA512", 384),
        ("rsa-aesgcm", "SHA256", 2048), ("rsa-aesgcm", "SHA1", 2048), ("rsa-aesgcm", "SHA512", 4096),
    ])
    func sealedDataOpensElsewhere(mode: String, digest: String, bits: Int) throws {
        let isRSA = mode == "rsa-aesgcm"
        let identifier =
            isRSA
            ? "algid:encrypt:RSA:OAEP:\(digest):AESGCM"
            : "algid:encrypt:ECIES:ECDH:KDFX963:\(digest):AESGCM\(mode == "ecies" ? "" : "-KDFIV")"
        let algorithm = SecKeyAlgorithm(rawValue: identifier as CFString)
        let parameters: [String: Any] = [
            kSecAttrKeyType as String: isRSA ? kSecAttrKeyTypeRSA : kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: bits,
        ]
        let privateKey = try #require(SecKeyCreateRandomKey(parameters as CFDictionary, nil))
        let publicKey = try #require(SecKeyCopyPublicKey(privateKey))
        let plaintext = Data("sealed for another implementation".utf8)
        #expect(SecKeyIsAlgorithmSupported(publicKey, .encrypt, algorithm))
        let sealed = try #require(SecKeyCreateEncryptedData(publicKey, algorithm, plaintext as CFData, nil) as Data?)
        #expect(SecKeyCreateDecryptedData(privateKey, algorithm, sealed as CFData, nil) as Data? == plaintext)
        let external = try #require(SecKeyCopyExternalRepresentation(privateKey, nil) as Data?)
        let opened = try runChild(
            "/usr/bin/python3", [certificateFolder.appendingPathComponent("open-sealed.py").path, mode, digest, "KEY", "SEALED"],
            files: ["KEY": external, "SEALED": sealed])
        #expect(opened.status == 0 && opened.output == plaintext, "\(String(decoding: opened.output, as: UTF8.self))")
        // A changed byte anywhere (the wrapped key, the ciphertext, the tag) opens nothing.
        for index in [0, sealed.count - 20, sealed.count - 1] {
            var altered = sealed
            altered[index] ^= 1
            var error: Unmanaged<CFError>?
            #expect(SecKeyCreateDecryptedData(privateKey, algorithm, altered as CFData, &error) == nil)
            #expect(error.map { CFErrorGetCode($0.takeRetainedValue()) } == Int(errSecParam))
        }
    }
}
