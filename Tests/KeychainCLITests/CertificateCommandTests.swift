import Foundation
import Testing

/// Certificates, keys and identities through the binary: adds by reference derive Apple's
/// attributes, identities are joined, and hostile files write nothing.
@Suite struct CertificateCommandTests {
    static let fixtures = Sandbox.packageRoot + "/Fixtures/Certificates/"

    /// `find … --format json` as one object.
    static func item(_ sandbox: Sandbox, _ arguments: [String]) throws -> [String: Any] {
        let found = sandbox.run(["find"] + arguments + ["--format", "json"])
        #expect(found.status == 0, "\(found.stderr)")
        return try #require(try found.json() as? [String: Any])
    }

    /// How many items of `itemClass` the keychain holds.
    static func count(_ sandbox: Sandbox, _ itemClass: String) -> Int {
        let found = sandbox.run(["find", "--class", itemClass, "--limit", "all", "--format", "json"])
        return (try? found.json() as? [Any])?.count ?? 0
    }

    @Test func aCertificateAddedByReferenceHasApplesDerivedAttributes() throws {
        let sandbox = try Sandbox()
        let added = sandbox.run(["add", "--class", "cert", "--ref-file", Self.fixtures + "leaf-ec.pem"])
        #expect(added.status == 0, "\(added.stderr)")
        let item = try Self.item(sandbox, ["--class", "cert"])
        #expect(item["labl"] as? String == "ci signing")
        #expect(item["ctyp"] as? Int == 3 && item["cenc"] as? Int == 3)
        // The serial 0x8badf00d keeps the leading zero byte its DER INTEGER has.
        #expect(item["slnr"] as? String == "AIut8A0=")
        #expect(item["skid"] as? String == "24BGL3pUEakqie9A6TMCCu94EBg=" && item["pkhh"] as? String == "24BGL3pUEakqie9A6TMCCu94EBg=")
        // The issuer is the intermediate's name normalised: PrintableString upper-cased.
        let issuer = try #require((item["issr"] as? String).flatMap { Data(base64Encoded: $0) })
        #expect(String(decoding: issuer, as: UTF8.self).contains("KEYCHAINCTL FIXTURES"))
        // Found by a derived attribute, as an app finds it; the data is the DER, byte for byte.
        let der = try Data(contentsOf: URL(fileURLWithPath: Self.fixtures + "leaf-ec.der"))
        let byHash = sandbox.run(["find", "--class", "cert", "--attr", "pkhh=base64:24BGL3pUEakqie9A6TMCCu94EBg=", "-w"])
        #expect(byHash.status == 0 && byHash.stdoutData == der, "\(byHash.stderr)")

        // The same certificate in DER is the same item: a duplicate.
        let again = sandbox.run(["add", "--class", "cert", "--ref-file", Self.fixtures + "leaf-ec.der"])
        #expect(again.status == 45, "\(again.stderr)")
    }

    @Test func theCallersAttributesOverrideDerivedOnes() throws {
        let sandbox = try Sandbox()
        let added = sandbox.run(["add", "--class", "cert", "-l", "my label", "--ref-file", Self.fixtures + "leaf-nocn.pem"])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(try Self.item(sandbox, ["--class", "cert"])["labl"] as? String == "my label")
        let key = sandbox.run(["add", "--class", "keys", "--attr", "sign=false", "--ref-file", Self.fixtures + "leaf-ec.key"])
        #expect(key.status == 0, "\(key.stderr)")
        let item = try Self.item(sandbox, ["--class", "keys"])
        #expect(item["sign"] as? Bool == false && item["decr"] as? Bool == true)
    }

    @Test func keysInEveryEncodingDeriveTheSameApplicationLabel() throws {
        // SEC1, PKCS#8 PEM and PKCS#8 DER are one private key: the second and third are duplicates.
        let sandbox = try Sandbox()
        #expect(sandbox.run(["add", "--class", "keys", "--ref-file", Self.fixtures + "leaf-ec-sec1.key"]).status == 0)
        #expect(sandbox.run(["add", "--class", "keys", "--ref-file", Self.fixtures + "leaf-ec.key"]).status == 45)
        #expect(sandbox.run(["add", "--class", "keys", "--ref-file", Self.fixtures + "leaf-ec-pkcs8.der"]).status == 45)
        let ec = try Self.item(sandbox, ["--class", "keys"])
        #expect(ec["klbl"] as? String == "24BGL3pUEakqie9A6TMCCu94EBg=" && ec["type"] as? String == "73" && ec["kcls"] as? Int == 1)
        #expect(ec["bsiz"] as? Int == 256 && ec["sign"] as? Bool == true && ec["vrfy"] as? Bool == false)

        // Its public half is another item (kcls 0, verify but not sign) with the same label.
        #expect(sandbox.run(["add", "--class", "keys", "--ref-file", Self.fixtures + "leaf-ec-public.pem"]).status == 0)
        let pub = try Self.item(sandbox, ["--class", "keys", "--attr", "kcls=0"])
        #expect(pub["klbl"] as? String == ec["klbl"] as? String && pub["vrfy"] as? Bool == true && pub["sign"] as? Bool == false)

        // RSA: PKCS#1 and SubjectPublicKeyInfo, 2048 and 4096 bits.
        #expect(sandbox.run(["add", "--class", "keys", "--ref-file", Self.fixtures + "leaf-rsa-pkcs1.key"]).status == 0)
        #expect(sandbox.run(["add", "--class", "keys", "--ref-file", Self.fixtures + "rsa4096.key"]).status == 0)
        #expect(sandbox.run(["add", "--class", "keys", "--ref-file", Self.fixtures + "p521.key"]).status == 0)
        let rsa = try Self.item(sandbox, ["--class", "keys", "--attr", "bsiz=4096"])
        #expect(rsa["type"] as? String == "42" && rsa["encr"] as? Bool == false && rsa["decr"] as? Bool == true)
        #expect(try Self.item(sandbox, ["--class", "keys", "--attr", "bsiz=521"])["type"] as? String == "73")
    }

    @Test func anIdentityAddsItsTwoHalvesWithApplesDuplicateTolerance() throws {
        let sandbox = try Sandbox()
        // The certificate alone first: adding the identity then adds the key and succeeds.
        #expect(sandbox.run(["add", "--class", "cert", "--ref-file", Self.fixtures + "leaf-ec.pem"]).status == 0)
        let identity = sandbox.run(["add", "--class", "idnt", "--ref-file", Self.fixtures + "leaf-ec-identity.pem"])
        #expect(identity.status == 0, "\(identity.stderr)")
        #expect(Self.count(sandbox, "cert") == 1 && Self.count(sandbox, "keys") == 1)
        // Both halves present: errSecDuplicateItem.
        let both = sandbox.run([
            "add", "--class", "idnt", "--ref-file", Self.fixtures + "leaf-ec.pem", "--ref-file", Self.fixtures + "leaf-ec.key",
        ])
        #expect(both.status == 45 && both.stderr.contains("both"), "\(both.stderr)")

        // The key alone first, in a second keychain: the identity adds the certificate.
        let other = try Sandbox()
        #expect(other.run(["add", "--class", "keys", "--ref-file", Self.fixtures + "leaf-rsa.key"]).status == 0)
        let rsa = other.run([
            "add", "--class", "idnt", "--ref-file", Self.fixtures + "leaf-rsa.pem", "--ref-file", Self.fixtures + "leaf-rsa.key",
        ])
        #expect(rsa.status == 0, "\(rsa.stderr)")
        #expect(Self.count(other, "cert") == 1 && Self.count(other, "keys") == 1)
    }

    @Test func anIdentityWhoseHalvesDoNotMatchWritesNothing() throws {
        let sandbox = try Sandbox()
        let cases: [([String], String)] = [
            (["leaf-rsa.pem", "leaf-ec.key"], "not the certificate's"),
            (["leaf-ec.pem", "leaf-ec-public.pem"], "public key"),
            (["leaf-ec.pem"], "1 certificate and 0 keys"),
            (["leaf-ec.pem", "leaf-rsa.pem", "leaf-ec.key"], "2 certificates"),
        ]
        for (files, words) in cases {
            let run = sandbox.run(["add", "--class", "idnt"] + files.flatMap { ["--ref-file", Self.fixtures + $0] })
            #expect(run.status == 206 && run.stderr.contains(words), "\(files): \(run.stderr)")
        }
        #expect(Self.count(sandbox, "cert") == 0 && Self.count(sandbox, "keys") == 0)
    }

    @Test func hostileAndUnsupportedFilesAreRefusedNamingTheFileAndWriteNothing() throws {
        let sandbox = try Sandbox()
        let der = try Data(contentsOf: URL(fileURLWithPath: Self.fixtures + "leaf-ec.der"))
        let pem = try String(contentsOfFile: Self.fixtures + "leaf-ec.pem", encoding: .utf8)
        var nested = Data()
        for _ in 0..<5_000 { nested += [0x30, 0x80] }
        let hostile: [(String, Data)] = [
            ("truncated.der", der.prefix(300)),
            ("truncated.pem", Data(pem.prefix(400).utf8)),
            ("garbage.der", Data((0..<2_000).map { UInt8(truncatingIfNeeded: $0 &* 167) })),
            ("trailing.der", der + [0x00]),
            ("nested.der", nested),
            ("control.pem", Data("-----BEGIN CERTIFICATE-----\n\u{1b}[31m\u{0}\n-----END CERTIFICATE-----\n".utf8)),
            ("empty.pem", Data()),
        ]
        for (name, bytes) in hostile {
            let path = sandbox.folder + "/" + name
            try bytes.write(to: URL(fileURLWithPath: path))
            let run = sandbox.run(["add", "--class", "cert", "--ref-file", path], timeout: 30)
            #expect(run.status == 206 && run.stderr.contains(name), "\(name): \(run.status) \(run.stderr)")
            #expect(!run.stderr.contains("\u{1b}"), "\(name): a control character reached the terminal")
        }
        // A file past the 1 MiB limit is refused before it is parsed, as every oversized input is.
        let huge = sandbox.folder + "/huge.pem"
        try Data(repeating: UInt8(ascii: "A"), count: 2 << 20).write(to: URL(fileURLWithPath: huge))
        let tooLong = sandbox.run(["add", "--class", "cert", "--ref-file", huge])
        #expect(tooLong.status == 78 && tooLong.stderr.contains("1 MiB"), "\(tooLong.stderr)")
        let unsupported: [(String, String)] = [
            ("ed25519.key", "Ed25519"), ("secp256k1.key", "secp256k1"), ("leaf-ec-encrypted.key", "encrypted"),
        ]
        for (name, words) in unsupported {
            let run = sandbox.run(["add", "--class", "keys", "--ref-file", Self.fixtures + name])
            #expect(run.status == 206 && run.stderr.contains(words), "\(name): \(run.stderr)")
        }
        // A certificate given for a key, and a reference with data besides it.
        #expect(sandbox.run(["add", "--class", "keys", "--ref-file", Self.fixtures + "leaf-ec.pem"]).status == 206)
        #expect(sandbox.run(["add", "--class", "genp", "-s", "x", "--ref-file", Self.fixtures + "leaf-ec.pem"]).status == 206)
        let both = sandbox.run([
            "add", "--class", "cert", "--ref-file", Self.fixtures + "leaf-ec.pem", "--data-file", Self.fixtures + "leaf-ec.der",
        ])
        #expect(both.status == 64, "\(both.stderr)")
        #expect(Self.count(sandbox, "cert") == 0 && Self.count(sandbox, "keys") == 0 && Self.count(sandbox, "genp") == 0)
    }
}
