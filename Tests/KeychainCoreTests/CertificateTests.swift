import Testing

@testable import KeychainCore

/// Certificates and keys read as Apple's SecCertificate and SecKey read them, with the attributes
/// SecItemAdd derives (docs/FIDELITY.md). Expected values were computed with openssl.
@Suite struct CertificateTests {
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() }

    static func certificate(_ name: String) throws -> Certificate {
        let blocks = try ObjectFile.blocks(of: SecretBytes(copying: try Fixtures.certificateFile(name)))
        return try Certificate(der: blocks[0].der.withUnsafeBytes { Array($0) })
    }

    static func key(_ name: String) throws -> KeyMaterial {
        let block = try ObjectFile.blocks(of: SecretBytes(copying: try Fixtures.certificateFile(name)))[0]
        return try KeyMaterial(der: block.der, label: block.label)
    }

    /// The root's PrintableString name, written `us`, `keychainctl  fixtures` and
    /// `  Fixture   Root CA `, normalised (upper case, blanks collapsed and trimmed).
    static let normalizedRoot =
        "310b3009060355040613025553311d301b060355040a13144b4559434841494e43544c204649585455524553311830160603550403130f4649585455524520524f4f54204341"

    @Test func certificateAttributesAreDerivedAsApple() throws {
        let leaf = try Self.certificate("leaf-rsa.pem")
        #expect(leaf.version == 3)
        #expect(Self.hex(leaf.normalizedIssuer) == Self.normalizedRoot)
        #expect(Self.hex(leaf.serialNumber) == "2a")
        #expect(leaf.subjectKeyID == nil)
        #expect(Self.hex(leaf.publicKeyHash) == "e58b155490fbaf9af1919586cc89d72ff458e55d")
        #expect(leaf.summary == "Développeur RSA")
        // Values that are not PrintableString (here a T61String) are not normalised: the subject keeps its case.
        #expect(String(decoding: leaf.normalizedSubject, as: UTF8.self).contains("veloppeur RSA"))
        let attributes = leaf.attributes
        #expect(attributes["cenc"] == .number(3))
        #expect(attributes["ctyp"] == .number(3))
        #expect(attributes["skid"] == nil)
        #expect(attributes["labl"] == .string("Développeur RSA"))
    }

    /// Apple's parser takes a negative serial (its DER content as it is) and refuses one over 37
    /// bytes (`SecCertificate.c:1830`).
    @Test func aNegativeSerialIsKeptAndAFortyByteOneRefused() throws {
        #expect(Self.hex(try Self.certificate("serial-negative.pem").serialNumber) == "fb")
        let error = #expect(throws: ObjectError.self) { try Self.certificate("serial-40-bytes.pem") }
        #expect(error?.reason.contains("40 bytes") == true)
    }

    @Test func aSerialWithItsHighBitSetKeepsItsLeadingZero() throws {
        let leaf = try Self.certificate("leaf-ec.pem")
        #expect(Self.hex(leaf.serialNumber) == "008badf00d")
        #expect(leaf.subjectKeyID.map(Self.hex) == "db80462f7a5411a92a89ef40e933020aef781018")
        #expect(Self.hex(leaf.publicKeyHash) == "db80462f7a5411a92a89ef40e933020aef781018")
        #expect(leaf.summary == "ci signing")
    }

    @Test func theSelfSignedRootsIssuerAndSubjectAreBothNormalised() throws {
        let root = try Self.certificate("root.pem")
        #expect(Self.hex(root.normalizedIssuer) == Self.normalizedRoot)
        #expect(root.normalizedSubject == root.normalizedIssuer)
        // The label is the common name as written, not normalised.
        #expect(root.summary == "  Fixture   Root CA ")
    }

    @Test func withoutACommonNameTheLabelIsTheFirstEmailAddress() throws {
        #expect(try Self.certificate("leaf-nocn.pem").summary == "ci@example.com")
    }

    @Test func pemAndDERGiveTheSameCertificate() throws {
        let pem = try Self.certificate("leaf-ec.pem")
        let der = try Self.certificate("leaf-ec.der")
        #expect(pem.der == der.der)
        #expect(pem.attributes == der.attributes)
    }

    @Test func normalisationFollowsApple() {
        #expect(DistinguishedName.collapse(Array(" \tab  c d\t ".utf8)) == Array("AB C D".utf8))
        #expect(DistinguishedName.collapse(Array("   ".utf8)).isEmpty)
        // Only a-z change case; other bytes (UTF-8 of é, digits, punctuation) pass through.
        #expect(DistinguishedName.collapse(Array("é-1.x".utf8)) == Array("é-1.X".utf8))
        // A name that is not a SEQUENCE, has an empty RDN, or has trailing bytes is refused.
        #expect(DistinguishedName.normalizedContent(of: [0x31, 0x00]) == nil)
        #expect(DistinguishedName.normalizedContent(of: [0x30, 0x02, 0x31, 0x00]) == nil)
        #expect(DistinguishedName.normalizedContent(of: [0x30, 0x00, 0x00]) == nil)
        #expect(DistinguishedName.normalizedContent(of: [0x30, 0x00]) == [])
        // The empty Name's content is the empty Name, normalised again to itself (fuzz-values).
        #expect(DistinguishedName.normalizedContent(ofContent: []) == [])
        for name in [[0x30, 0x00], [0x30, 0x02, 0x31, 0x00]] as [[UInt8]] {
            if let normalized = DistinguishedName.normalizedContent(of: name) {
                #expect(DistinguishedName.normalizedContent(ofContent: normalized) == normalized)
            }
        }
    }

    @Test(arguments: [
        ("leaf-ec.key", 1, "73", 256), ("leaf-ec-sec1.key", 1, "73", 256), ("leaf-ec-pkcs8.der", 1, "73", 256),
        ("leaf-ec-public.pem", 0, "73", 256), ("leaf-ec-public.der", 0, "73", 256),
        ("intermediate.key", 1, "73", 384), ("p521.key", 1, "73", 521),
        ("leaf-rsa.key", 1, "42", 2048), ("leaf-rsa-pkcs1.key", 1, "42", 2048), ("leaf-rsa-public.pem", 0, "42", 2048),
        ("leaf-rsa-pkcs1-public.pem", 0, "42", 2048), ("rsa4096.key", 1, "42", 4096),
    ])
    func keysOfEveryFormatAreRead(name: String, keyClass: Int64, type: String, bits: Int64) throws {
        let attributes = try Self.key(name).attributes
        #expect(attributes["kcls"] == .number(keyClass))
        #expect(attributes["type"] == .string(type))
        #expect(attributes["bsiz"] == .number(bits))
        #expect(attributes["esiz"] == .number(bits))
    }

    /// A private key's application label is its certificate's public key hash: the identity join.
    @Test func aKeysLabelIsItsCertificatesPublicKeyHash() throws {
        for (key, certificate) in [
            ("leaf-ec.key", "leaf-ec.pem"), ("leaf-rsa-pkcs1.key", "leaf-rsa.pem"), ("leaf-ec-public.der", "leaf-ec.pem"),
        ] {
            #expect(try Self.key(key).attributes["klbl"] == .data(try Self.certificate(certificate).publicKeyHash))
        }
    }

    /// The capability flags Apple's `SecKey.m` (and its RSA and EC overrides) derives from a key, flag by flag.
    @Test func capabilityFlagsFollowApplesTable() throws {
        let expected: [(String, [String: Bool])] = [
            ("leaf-ec.key", ["encr": false, "decr": true, "sign": true, "vrfy": false, "wrap": false, "unwp": true, "drve": true]),
            ("leaf-ec-public.pem", ["encr": true, "decr": false, "sign": false, "vrfy": true, "wrap": true, "unwp": false, "drve": false]),
            ("leaf-rsa.key", ["encr": false, "decr": true, "sign": true, "vrfy": false, "wrap": false, "unwp": true, "drve": false]),
            ("leaf-rsa-public.pem", ["encr": true, "decr": true, "sign": false, "vrfy": true, "wrap": true, "unwp": false, "drve": false]),
        ]
        for (name, flags) in expected {
            let attributes = try Self.key(name).attributes
            for (code, value) in flags { #expect(attributes[code] == .bool(value), "\(name) \(code)") }
            for code in ["perm", "priv", "modi", "extr"] { #expect(attributes[code] == .bool(true), "\(name) \(code)") }
            for code in ["sens", "asen", "next", "snrc", "vyrc"] { #expect(attributes[code] == .bool(false), "\(name) \(code)") }
        }
    }

    /// Ed25519 (105) and X25519 (106) as `SecKeyCurve25519.m` describes them: 256 bits, the raw
    /// 32-byte keys as data, `klbl` the SHA-1 of the raw public key, the generic capability flags
    /// with derive off for a public key; and the PEM rebuilt from the stored bytes is openssl's.
    @Test(arguments: [
        ("ed25519", "105", "24136d10455757a5696ae3b788d88690f118a9e5"), ("x25519", "106", "b2311be1580d89518f31e2fda4a684e869d0f4f0"),
    ])
    func curve25519KeysFollowApple(name: String, type: String, label: String) throws {
        let privateKey = try Self.key(name + ".key")
        let publicKey = try Self.key(name + "-public.pem")
        for (key, isPrivate) in [(privateKey, true), (publicKey, false)] {
            let attributes = key.attributes
            #expect(attributes["type"] == .string(type) && attributes["bsiz"] == .number(256) && attributes["esiz"] == .number(256))
            #expect(attributes["klbl"].map { if case .data(let bytes) = $0 { Self.hex(bytes) } else { "" } } == label)
            #expect(attributes["kcls"] == .number(isPrivate ? 1 : 0) && key.external.count == 32)
            let flags = [
                "sign": isPrivate, "decr": isPrivate, "unwp": isPrivate, "drve": isPrivate, "vrfy": !isPrivate, "encr": !isPrivate,
                "wrap": !isPrivate,
            ]
            for (code, value) in flags { #expect(attributes[code] == .bool(value), "\(name) \(isPrivate) \(code)") }
        }
        let pem = String(decoding: try Fixtures.certificateFile(name + "-public.pem"), as: UTF8.self)
        #expect(KeyMaterial.publicKeyPEM(external: privateKey.external, keyType: type, isPrivate: true, bits: 256) == pem)
        #expect(KeyMaterial.publicKeyPEM(external: publicKey.external, keyType: type, isPrivate: false, bits: 256) == pem)
        let exported = try #require(KeyMaterial.privateKeyPEM(external: privateKey.external, keyType: type, bits: 256))
        #expect(exported.withUnsafeBytes { Array($0) } == (try Fixtures.certificateFile(name + ".key")))
    }

    /// v_Data: `04‖X‖Y‖K` for an EC private key, the point for its public half, PKCS#1 for RSA;
    /// and the public key PEM rebuilt from it is the one openssl wrote.
    @Test func externalRepresentationsRoundTrip() throws {
        let ecPrivate = try Self.key("leaf-ec.key")
        let ecPublic = try Self.key("leaf-ec-public.pem")
        #expect(ecPrivate.external.count == 65 + 32)
        #expect(ecPublic.external.withUnsafeBytes { Array($0) } == ecPrivate.publicBytes)
        let p521 = try Self.key("p521.key")
        #expect(p521.external.count == 1 + 2 * 66 + 66)
        let expectedPEM = String(decoding: try Fixtures.certificateFile("leaf-ec-public.pem"), as: UTF8.self)
        #expect(KeyMaterial.publicKeyPEM(external: ecPrivate.external, keyType: "73", isPrivate: true, bits: 256) == expectedPEM)
        #expect(KeyMaterial.publicKeyPEM(external: ecPublic.external, keyType: "73", isPrivate: false, bits: 256) == expectedPEM)
        let rsa = try Self.key("leaf-rsa.key")
        let rsaPEM = String(decoding: try Fixtures.certificateFile("leaf-rsa-public.pem"), as: UTF8.self)
        #expect(KeyMaterial.publicKeyPEM(external: rsa.external, keyType: "42", isPrivate: true, bits: 2048) == rsaPEM)
        // The private key comes back as the PKCS#8 openssl wrote.
        let pkcs8 = try #require(KeyMaterial.privateKeyPEM(external: ecPrivate.external, keyType: "73", bits: 256))
        #expect(pkcs8.withUnsafeBytes { Array($0) } == (try Fixtures.certificateFile("leaf-ec.key")))
        // Bytes of the wrong length for the curve are no key.
        #expect(KeyMaterial.publicKeyPEM(external: SecretBytes(copying: [0x04, 1, 2]), keyType: "73", isPrivate: false, bits: 256) == nil)
    }

    @Test(arguments: [
        ("ed448.key", "Ed448"), ("secp256k1.key", "secp256k1"), ("leaf-ec-encrypted.key", "encrypted"),
        ("root.pem", "not a key"),
    ])
    func unsupportedKeysAreRefusedByName(name: String, reason: String) throws {
        let block = try ObjectFile.blocks(of: SecretBytes(copying: try Fixtures.certificateFile(name)))
        #expect {
            _ = try KeyMaterial(der: block[0].der, label: block[0].label)
        } throws: { ($0 as? ObjectError)?.reason.contains(reason) == true }
    }

    @Test func garbageTruncatedAndTrailingBytesAreRefused() throws {
        let der = try Fixtures.certificateFile("leaf-ec.der")
        for bad in [Array(der.prefix(der.count / 2)), der + [0], [UInt8](repeating: 0x30, count: 64), [], Array("hello".utf8)] {
            #expect(throws: ObjectError.self) { _ = try Certificate(der: bad) }
            #expect(throws: ObjectError.self) { _ = try KeyMaterial(der: SecretBytes(copying: bad), label: nil) }
        }
        // A PEM armour with a broken body, and one with none.
        #expect(throws: ObjectError.self) {
            _ = try ObjectFile.blocks(of: SecretBytes(copying: Array("-----BEGIN CERTIFICATE-----\n!!!\n-----END CERTIFICATE-----\n".utf8)))
        }
        #expect(throws: ObjectError.self) { _ = try ObjectFile.blocks(of: SecretBytes(copying: Array("-----BEGIN x".utf8))) }
    }

    @Test func onePEMFileMayHoldACertificateAndItsKey() throws {
        let blocks = try ObjectFile.blocks(of: SecretBytes(copying: try Fixtures.certificateFile("leaf-ec-identity.pem")))
        #expect(blocks.map(\.label) == ["CERTIFICATE", "PRIVATE KEY"])
    }
}
