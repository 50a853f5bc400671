import Foundation
import Security
import SecurityTesting
import Testing

// Certificates through `import Security`, as app code stores and finds them: made with
// SecCertificateCreateWithData, added and found by kSecValueRef, returned by kSecReturnRef. Each
// expectation cites the Apple source or test it comes from (apple-oss-distributions/Security).

private let app = "SKMME9E2Y8.com.example.app"

/// The certificate in a DER fixture.
private func certificate(_ name: String) throws -> SecCertificate {
    try #require(SecCertificateCreateWithData(nil, try fixture(name) as CFData))
}

@Suite struct SecCertificateTests {
    let keychain: SecurityTesting.Lease

    init() async throws { keychain = try await SecurityTesting.Lease(inMemory: .accessGroups([app])) }

    /// SecCertificate.c `SecCertificateCreateWithData`: DER in, the same bytes out
    /// (`SecCertificateCopyData`); anything that is not exactly one DER certificate is no
    /// certificate, never a crash.
    @Test func aCertificateIsMadeFromItsDERAlone() throws {
        let bytes = try fixture("leaf-ec.der")
        let made = try #require(SecCertificateCreateWithData(nil, bytes as CFData))
        #expect(SecCertificateCopyData(made) as Data == bytes)
        #expect(SecCertificateCreateWithData(nil, bytes as CFData) == made)
        let hostile: [(String, Data)] = [
            ("PEM", try fixture("leaf-ec.pem")), ("empty", Data()), ("truncated", bytes.dropLast()),
            ("a trailing byte", bytes + [0]), ("a key", try fixture("leaf-ec-pkcs8.der")),
            ("a length past the end", Data([0x30, 0x84, 0x7F, 0xFF, 0xFF, 0xFF]) + bytes),
            ("nested a million deep", Data(repeating: 0x30, count: 1_000_000)), ("sixteen megabytes of zeros", Data(count: 16 << 20)),
        ]
        for (what, data) in hostile { #expect(SecCertificateCreateWithData(nil, data as CFData) == nil, "\(what)") }
    }

    /// SecCertificate.c `SecCertificateCopySubjectSummary` and `SecCertificateCopyCommonName` (the
    /// last common name; errSecInternal without one), `…CopySerialNumberData` (the INTEGER's
    /// content, its leading zero kept) and `…CopyNormalizedIssuerSequence`.
    @Test func aCertificateSaysWhoItNames() throws {
        let leaf = try certificate("leaf-ec.der")
        #expect(SecCertificateCopySubjectSummary(leaf) as String? == "ci signing")
        var commonName: CFString?
        #expect(SecCertificateCopyCommonName(leaf, &commonName) == errSecSuccess)
        #expect(commonName as String? == "ci signing")
        #expect(SecCertificateCopySerialNumberData(leaf, nil) as Data? == Data([0x00, 0x8B, 0xAD, 0xF0, 0x0D]))
        let issuer = try #require(SecCertificateCopyNormalizedIssuerSequence(leaf) as Data?)
        #expect(issuer.first == 0x30)
        #expect(String(decoding: issuer, as: UTF8.self).contains("FIXTURE INTERMEDIATE"))
        #expect(SecCertificateCopyNormalizedSubjectSequence(leaf) != nil)

        let noName = try #require(SecCertificateCreateWithData(nil, try der(ofPEM: "leaf-nocn.pem") as CFData))
        #expect(SecCertificateCopyCommonName(noName, &commonName) == errSecInternal)
        #expect(SecCertificateCopySubjectSummary(noName) as String? == "ci@example.com")
    }

    /// SecCertificate.h: `SecCertificateCopyKey` (the subject's public key, verifying what its
    /// private key signed), the validity dates and the
    /// e-mail addresses, as pinning and client-certificate code reads them.
    @Test func aCertificateGivesItsKeyDatesAndAddresses() throws {
        let ec = try certificate("leaf-ec.der")
        let ecKey = try #require(SecCertificateCopyKey(ec))
        #expect(CFGetTypeID(ecKey) == SecKeyGetTypeID())
        let point = try fixture("leaf-ec-public.der").suffix(65)
        let attributes = [kSecAttrKeyType as String: kSecAttrKeyTypeEC, kSecAttrKeyClass as String: kSecAttrKeyClassPublic] as CFDictionary
        #expect(SecKeyCreateWithData(Data(point) as CFData, attributes, nil) == ecKey)
        let message = try fixture("signed-message.txt")
        #expect(
            SecKeyVerifySignature(
                ecKey, .ecdsaSignatureMessageX962SHA256, message as CFData, try fixture("signed-message.ec-sha256.sig") as CFData, nil))

        let rsa = try #require(SecCertificateCreateWithData(nil, try der(ofPEM: "leaf-rsa.pem") as CFData))
        let rsaKey = try #require(SecCertificateCopyKey(rsa))
        #expect(SecKeyGetBlockSize(rsaKey) == 256)
        #expect(
            SecKeyVerifySignature(
                rsaKey, .rsaSignatureMessagePKCS1v15SHA256, message as CFData, try fixture("signed-message.rsa-pkcs1-sha256.sig") as CFData,
                nil))

        // The calls Apple deprecated for it, iOS's and macOS's: the same key.
        #expect(SecCertificateCopyPublicKey(rsa) == rsaKey)
        var copied: SecKey?
        #expect(SecCertificateCopyPublicKey(ec, &copied) == errSecSuccess && copied == ecKey)
        // An Ed25519 subject key is none SecKey provides: nil, and errSecUnsupportedFormat.
        let made = try runChild(
            "/usr/bin/openssl",
            [
                "req", "-new", "-x509", "-key", certificateFolder.appendingPathComponent("ed25519.key").path, "-subj", "/CN=ed25519",
                "-days", "1", "-outform", "DER",
            ], files: [:])
        let ed25519 = try #require(SecCertificateCreateWithData(nil, made.output as CFData))
        #expect(SecCertificateCopyKey(ed25519) == nil && SecCertificateCopyPublicKey(ed25519) == nil)
        #expect(SecCertificateCopyPublicKey(ed25519, &copied) == errSecUnsupportedFormat && copied == nil)

        // generate.sh makes every certificate valid for 36,500 days from the day it ran.
        let start = try #require(SecCertificateCopyNotValidBeforeDate(ec) as Date?)
        let end = try #require(SecCertificateCopyNotValidAfterDate(ec) as Date?)
        #expect(start < Date() && abs(end.timeIntervalSince(start) - 36_500 * 86_400) <= 86_400, "\(start) \(end)")

        var addresses: CFArray?
        let noName = try #require(SecCertificateCreateWithData(nil, try der(ofPEM: "leaf-nocn.pem") as CFData))
        #expect(SecCertificateCopyEmailAddresses(noName, &addresses) == errSecSuccess)
        #expect(addresses as? [String] == ["ci@example.com"])
        // The root names no address (openssl x509 -email prints none for it).
        let root = try #require(SecCertificateCreateWithData(nil, try der(ofPEM: "root.pem") as CFData))
        #expect(SecCertificateCopyEmailAddresses(root, &addresses) == errSecSuccess && (addresses as? [String])?.isEmpty == true)
    }

    /// SecItem.m `SecItemAttributesPrepare` and `infer_cert_label`: a certificate added by reference
    /// alone (no kSecClass) is a certificate item whose attributes are derived from it, labelled
    /// with its subject summary; a second add is errSecDuplicateItem (si-05-add.c); a query by the
    /// same reference finds it, and a delete by it removes it.
    @Test func aCertificateIsAddedFoundAndDeletedByReference() throws {
        let leaf = try certificate("leaf-ec.der")
        #expect(SecItemAdd([kSecValueRef as String: leaf] as CFDictionary, nil) == errSecSuccess)
        #expect(SecItemAdd([kSecValueRef as String: leaf] as CFDictionary, nil) == errSecDuplicateItem)

        let (status, found) = copyMatching([kSecValueRef as String: leaf, kSecReturnAttributes as String: true])
        #expect(status == errSecSuccess)
        let attributes = try #require(found as? [String: Any])
        #expect(attributes[kSecClass as String] as? String == kSecClassCertificate as String)
        #expect(attributes[kSecAttrLabel as String] as? String == "ci signing")
        #expect(attributes[kSecAttrSerialNumber as String] as? Data == SecCertificateCopySerialNumberData(leaf, nil) as Data?)
        #expect(
            (attributes[kSecAttrIssuer as String] as? Data).map { Data([0x30, UInt8($0.count)]) + $0 }
                == SecCertificateCopyNormalizedIssuerSequence(leaf) as Data?)
        #expect(attributes[kSecAttrCertificateType as String] as? Int == 3)
        #expect(attributes[kSecAttrCertificateEncoding as String] as? Int == 3)
        #expect(attributes[kSecAttrAccessGroup as String] as? String == app)

        let relabel = [kSecAttrLabel as String: "signing, renamed"] as CFDictionary
        #expect(SecItemUpdate([kSecValueRef as String: leaf] as CFDictionary, relabel) == errSecSuccess)
        #expect(copyMatching([kSecValueRef as String: leaf, kSecAttrLabel as String: "signing, renamed"]).0 == errSecSuccess)

        #expect(SecItemDelete([kSecValueRef as String: leaf] as CFDictionary) == errSecSuccess)
        #expect(copyMatching([kSecValueRef as String: leaf]).0 == errSecItemNotFound)
    }

    /// SecItem.m `SecItemResultProcess`: kSecReturnRef alone returns the SecCertificate, with other
    /// return keys it is `v_Ref` beside them, and any other limit gives an array of them.
    @Test func aCertificateComesBackAsItsObject() throws {
        let leaf = try certificate("leaf-ec.der")
        let root = try #require(SecCertificateCreateWithData(nil, try der(ofPEM: "root.pem") as CFData))
        for added in [leaf, root] { #expect(SecItemAdd([kSecValueRef as String: added] as CFDictionary, nil) == errSecSuccess) }

        let byLabel: [String: Any] = [kSecClass as String: kSecClassCertificate, kSecAttrLabel as String: "ci signing"]
        var query = byLabel
        query[kSecReturnRef as String] = true
        #expect(copyMatching(query).1 as? SecCertificate == leaf)

        query[kSecReturnAttributes as String] = true
        query[kSecReturnPersistentRef as String] = true
        let both = try #require(copyMatching(query).1 as? [String: Any])
        #expect(both[kSecValueRef as String] as? SecCertificate == leaf)
        #expect(both[kSecValuePersistentRef as String] is Data)
        #expect(both[kSecValueData as String] == nil)

        let all: [String: Any] = [
            kSecClass as String: kSecClassCertificate, kSecReturnRef as String: true, kSecMatchLimit as String: kSecMatchLimitAll,
        ]
        let refs = try #require(copyMatching(all).1 as? [Any])
        #expect(Set(refs.compactMap { $0 as? SecCertificate }) == [leaf, root])

        var added: CFTypeRef?
        #expect(SecItemDelete([kSecValueRef as String: root] as CFDictionary) == errSecSuccess)
        #expect(SecItemAdd([kSecValueRef as String: root, kSecReturnRef as String: true] as CFDictionary, &added) == errSecSuccess)
        #expect(added as? SecCertificate == root)
    }

    /// SecItem.m `SecItemAttributesPrepare`: what the caller gives wins over what the reference
    /// says (a label, even its data); a class the certificate's attributes do not belong to is
    /// errSecNoSuchAttr, as securityd answers an attribute the class lacks.
    @Test func theCallersAttributesWinOverTheReferences() throws {
        let leaf = try certificate("leaf-ec.der")
        #expect(SecItemAdd([kSecValueRef as String: leaf, kSecAttrLabel as String: "mine"] as CFDictionary, nil) == errSecSuccess)
        #expect(copyMatching([kSecValueRef as String: leaf, kSecAttrLabel as String: "mine"]).0 == errSecSuccess)
        #expect(copyMatching([kSecValueRef as String: leaf, kSecAttrLabel as String: "ci signing"]).0 == errSecItemNotFound)
        let add: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecValueRef as String: leaf]
        #expect(SecItemAdd(add as CFDictionary, nil) == errSecNoSuchAttr)
    }

    /// A reference names an item; it opens nothing the caller's groups do not: another app's
    /// certificate is not found, returned or deleted by it (SecItemServer.c filters by groups).
    @Test func aReferenceDoesNotReachAnotherAppsCertificate() throws {
        let leaf = try certificate("leaf-ec.der")
        #expect(SecItemAdd([kSecValueRef as String: leaf] as CFDictionary, nil) == errSecSuccess)
        try SecurityTesting.actAs(.accessGroups(["SKMME9E2Y8.com.example.other"]))
        #expect(copyMatching([kSecValueRef as String: leaf, kSecReturnRef as String: true]).0 == errSecItemNotFound)
        #expect(SecItemDelete([kSecValueRef as String: leaf] as CFDictionary) == errSecItemNotFound)
        try SecurityTesting.actAs(.accessGroups([app]))
        #expect(copyMatching([kSecValueRef as String: leaf]).0 == errSecSuccess)
    }

    /// What is not a certificate makes no SecCertificate: a reference of another type is errSecParam
    /// (`errSecValueRefUnsupported` is errSecParam, SecBasePriv.h); a certificate item whose data was
    /// added raw and is no certificate returns no object.
    @Test func whatIsNotACertificateMakesNoObject() throws {
        #expect(SecItemAdd([kSecValueRef as String: "a string"] as CFDictionary, nil) == errSecParam)
        #expect(SecItemDelete([kSecValueRef as String: Data([0x30, 0x00])] as CFDictionary) == errSecParam)

        let raw: [String: Any] = [kSecClass as String: kSecClassCertificate, kSecValueData as String: Data("not a certificate".utf8)]
        #expect(SecItemAdd(raw as CFDictionary, nil) == errSecSuccess)
        let (status, result) = copyMatching([kSecClass as String: kSecClassCertificate, kSecReturnRef as String: true])
        #expect(status == errSecSuccess)
        #expect(result == nil)

    }
}
