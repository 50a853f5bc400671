import Foundation
import Security
import SecurityTesting
import Testing

// The algorithm constants as Apple spells them, and a signature they make checked by OpenSSL: an
// app that stores an algorithm's identifier, or compares it, sees Apple's string.

/// Every constant this library provides that `SecKeyAdaptors.m` (apple-oss-distributions/Security)
/// defines, with the identifier Apple gives it there. (The RFC 4754 digest and message forms, added
/// with iOS 17, are not in that file's public copy.)
private let applesIdentifiers: [(SecKeyAlgorithm, String)] = [
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

    init() throws { keychain = try SecurityTesting.Lease(inMemory: .accessGroups(["SKMME9E2Y8.com.example.app"])) }

    /// Each constant is Apple's string, and an algorithm made from Apple's string is the same
    /// algorithm (the PSS SHA-224 pair say 24 where the salt is 28 bytes: Apple's spelling).
    @Test func everyConstantIsApplesIdentifier() throws {
        #expect(applesIdentifiers.count >= 58)
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
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("openssl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("input").path
        try file.write(to: URL(fileURLWithPath: path))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments.map { $0 == "FILE" ? path : $0 }
        let output = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = output
        try process.run()
        // No child waits for ever: killed after 60 s (the test then fails on its status).
        let watchdog = DispatchWorkItem { process.terminate() }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: watchdog)
        defer { watchdog.cancel() }
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, printed)
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
}
