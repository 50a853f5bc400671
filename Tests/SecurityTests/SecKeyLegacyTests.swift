import Foundation
import Security
import SecurityTesting
import Testing

// The iOS-era SecKey calls as SwiftyRSA and older apps write them (SecKey.h's documentation): a
// buffer sized by SecKeyGetBlockSize, a length passed in and out, an OSStatus back.

@Suite struct SecKeyLegacyTests {
    let keychain: SecurityTesting.Lease

    init() async throws { keychain = try await SecurityTesting.Lease(inMemory: .accessGroups(["SKMME9E2Y8.com.example.app"])) }

    /// SwiftyRSA's `sign` and `verify`: a SHA-256 digest signed with `.PKCS1SHA256`, verified by
    /// the public key; a changed digest is errSSLCrypto (-9809), the iOS-era status; the signature
    /// is the one SecKeyCreateSignature makes with the digest algorithm.
    @Test func rawSignAndVerifyAsSwiftyRSAWritesThem() throws {
        let privateKey = try SecKeyAlgorithmTests.rsaKey()
        let publicKey = try #require(SecKeyCopyPublicKey(privateKey))
        let digest = [UInt8](repeating: 0x5a, count: 32)
        var signatureLength = SecKeyGetBlockSize(privateKey)
        var signature = [UInt8](repeating: 0, count: signatureLength)
        let status = SecKeyRawSign(privateKey, .PKCS1SHA256, digest, digest.count, &signature, &signatureLength)
        #expect(status == errSecSuccess && signatureLength == 256)
        let modern = SecKeyCreateSignature(privateKey, .rsaSignatureDigestPKCS1v15SHA256, Data(digest) as CFData, nil) as Data?
        #expect(modern == Data(signature.prefix(signatureLength)))
        #expect(SecKeyRawVerify(publicKey, .PKCS1SHA256, digest, digest.count, signature, signatureLength) == errSecSuccess)
        var changed = digest
        changed[0] ^= 1
        #expect(SecKeyRawVerify(publicKey, .PKCS1SHA256, changed, changed.count, signature, signatureLength) == -9809)
        // A buffer too small is errSecParam, and nothing past it is written.
        var short = 100
        var small = [UInt8](repeating: 0, count: 100)
        #expect(SecKeyRawSign(privateKey, .PKCS1SHA256, digest, digest.count, &small, &short) == errSecParam)
        // MD5 and MD2 are gone since iOS 5, and OAEP is no signature padding.
        for padding in [SecPadding.PKCS1MD5, .PKCS1MD2, .OAEP] {
            var length = signature.count
            #expect(SecKeyRawSign(privateKey, padding, digest, digest.count, &signature, &length) == errSecParam)
        }
    }

    /// SwiftyRSA's `encrypted`/`decrypted`: PKCS#1 and OAEP (SHA-1) round trips through
    /// SecKeyEncrypt and SecKeyDecrypt; OpenSSL's command opens the OAEP one with SHA-1; raw
    /// encryption (`[]`, kSecPaddingNone) comes back without its leading zeros.
    @Test func encryptAndDecryptWithEachPadding() throws {
        let privateKey = try SecKeyAlgorithmTests.rsaKey()
        let publicKey = try #require(SecKeyCopyPublicKey(privateKey))
        let message = [UInt8]("clear text".utf8)
        for padding in [SecPadding.PKCS1, .OAEP, []] {
            var sealedLength = SecKeyGetBlockSize(publicKey)
            var sealed = [UInt8](repeating: 0, count: sealedLength)
            #expect(SecKeyEncrypt(publicKey, padding, message, message.count, &sealed, &sealedLength) == errSecSuccess)
            var openedLength = SecKeyGetBlockSize(privateKey)
            var opened = [UInt8](repeating: 0, count: openedLength)
            #expect(SecKeyDecrypt(privateKey, padding, sealed, sealedLength, &opened, &openedLength) == errSecSuccess)
            #expect(Array(opened.prefix(openedLength)) == message, "\(padding)")
            if padding == .OAEP {
                let byOpenSSL = try SecKeyAlgorithmTests.openssl(
                    [
                        "pkeyutl", "-decrypt", "-inkey", certificateFolder.appendingPathComponent("leaf-rsa-pkcs1.key").path, "-in", "FILE",
                        "-pkeyopt", "rsa_padding_mode:oaep", "-pkeyopt", "rsa_oaep_md:sha1",
                    ], file: Data(sealed.prefix(sealedLength)))
                #expect(byOpenSSL.status == 0 && byOpenSSL.output == Data(message))
            }
        }
        // Signature paddings do not encrypt, and an EC key encrypts with none of them.
        var length = 256
        var buffer = [UInt8](repeating: 0, count: length)
        #expect(SecKeyEncrypt(publicKey, .PKCS1SHA256, message, message.count, &buffer, &length) == errSecParam)
    }

    /// SecKeyGeneratePair as the iOS docs show it: an EC pair stored under a tag
    /// (kSecPrivateKeyAttrs' kSecAttrIsPermanent), found again by class and tag, signing with
    /// `.PKCS1` (X9.62 over a digest) and `.sigRaw` (RFC 4754: 64 bytes on P-256).
    @Test func generatePairStoresThePrivateKeyAndSignsWithIt() throws {
        let tag = Data("com.example.legacy".utf8)
        let parameters: [String: Any] = [
            kSecAttrKeyType as String: kSecAttrKeyTypeEC, kSecAttrKeySizeInBits as String: 256,
            kSecPrivateKeyAttrs as String: [kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: tag],
        ]
        var publicKey: SecKey?
        var privateKey: SecKey?
        #expect(SecKeyGeneratePair(parameters as CFDictionary, &publicKey, &privateKey) == errSecSuccess)
        let signer = try #require(privateKey)
        let verifier = try #require(publicKey)
        var found: CFTypeRef?
        let query: [String: Any] = [
            kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag, kSecReturnRef as String: true,
        ]
        #expect(SecItemCopyMatching(query as CFDictionary, &found) == errSecSuccess)
        #expect(found.map { CFGetTypeID($0) } == SecKeyGetTypeID())
        let digest = [UInt8](repeating: 9, count: 32)
        for (padding, expectedLength) in [(SecPadding.PKCS1, nil), (.sigRaw, 64)] {
            var length = 128
            var signature = [UInt8](repeating: 0, count: length)
            #expect(SecKeyRawSign(signer, padding, digest, digest.count, &signature, &length) == errSecSuccess)
            if let expectedLength { #expect(length == expectedLength) }
            #expect(SecKeyRawVerify(verifier, padding, digest, digest.count, signature, length) == errSecSuccess)
        }
        // A size Apple does not make is the status SecKeyCreateRandomKey reports.
        let wrong: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeEC, kSecAttrKeySizeInBits as String: 100]
        #expect(SecKeyGeneratePair(wrong as CFDictionary, &publicKey, &privateKey) == errSecParam)
    }
}
