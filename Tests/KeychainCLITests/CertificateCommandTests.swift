import Foundation
import Testing

/// Certificates, keys and identities through the binary: adds by reference derive Apple's
/// attributes, identities are joined, and hostile files write nothing.
@Suite struct CertificateCommandTests {

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
        let added = sandbox.run(["add", "--class", "cert", "--ref-file", Fixtures.certificates + "/leaf-ec.pem"])
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
        let der = try Data(contentsOf: URL(fileURLWithPath: Fixtures.certificates + "/leaf-ec.der"))
        let byHash = sandbox.run(["find", "--class", "cert", "--attr", "pkhh=base64:24BGL3pUEakqie9A6TMCCu94EBg=", "-w"])
        #expect(byHash.status == 0 && byHash.stdoutData == der, "\(byHash.stderr)")

        // The same certificate in DER is the same item: a duplicate.
        let again = sandbox.run(["add", "--class", "cert", "--ref-file", Fixtures.certificates + "/leaf-ec.der"])
        #expect(again.status == 45, "\(again.stderr)")
    }

    @Test func theCallersAttributesOverrideDerivedOnes() throws {
        let sandbox = try Sandbox()
        let added = sandbox.run(["add", "--class", "cert", "-l", "my label", "--ref-file", Fixtures.certificates + "/leaf-nocn.pem"])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(try Self.item(sandbox, ["--class", "cert"])["labl"] as? String == "my label")
        let key = sandbox.run(["add", "--class", "keys", "--attr", "sign=false", "--ref-file", Fixtures.certificates + "/leaf-ec.key"])
        #expect(key.status == 0, "\(key.stderr)")
        let item = try Self.item(sandbox, ["--class", "keys"])
        #expect(item["sign"] as? Bool == false && item["decr"] as? Bool == true)
    }

    @Test func keysInEveryEncodingDeriveTheSameApplicationLabel() throws {
        // SEC1, PKCS#8 PEM and PKCS#8 DER are one private key: the second and third are duplicates.
        let sandbox = try Sandbox()
        #expect(sandbox.run(["add", "--class", "keys", "--ref-file", Fixtures.certificates + "/leaf-ec-sec1.key"]).status == 0)
        #expect(sandbox.run(["add", "--class", "keys", "--ref-file", Fixtures.certificates + "/leaf-ec.key"]).status == 45)
        #expect(sandbox.run(["add", "--class", "keys", "--ref-file", Fixtures.certificates + "/leaf-ec-pkcs8.der"]).status == 45)
        let ec = try Self.item(sandbox, ["--class", "keys"])
        #expect(ec["klbl"] as? String == "24BGL3pUEakqie9A6TMCCu94EBg=" && ec["type"] as? String == "73" && ec["kcls"] as? Int == 1)
        #expect(ec["bsiz"] as? Int == 256 && ec["sign"] as? Bool == true && ec["vrfy"] as? Bool == false)

        // Its public half is another item (kcls 0, verify but not sign) with the same label.
        #expect(sandbox.run(["add", "--class", "keys", "--ref-file", Fixtures.certificates + "/leaf-ec-public.pem"]).status == 0)
        let pub = try Self.item(sandbox, ["--class", "keys", "--attr", "kcls=0"])
        #expect(pub["klbl"] as? String == ec["klbl"] as? String && pub["vrfy"] as? Bool == true && pub["sign"] as? Bool == false)

        // Ed25519 and X25519 (Apple's types 105 and 106), stored as their 32 raw bytes.
        #expect(sandbox.run(["add", "--class", "keys", "--ref-file", Fixtures.certificates + "/ed25519.key"]).status == 0)
        #expect(sandbox.run(["add", "--class", "keys", "--ref-file", Fixtures.certificates + "/x25519-public.pem"]).status == 0)
        let edwards = try Self.item(sandbox, ["--class", "keys", "--attr", "type=105"])
        #expect(edwards["klbl"] as? String == "JBNtEEVXV6VpauO3iNiGkPEYqeU=" && edwards["drve"] as? Bool == true)
        let montgomery = sandbox.run(["find", "--class", "keys", "--attr", "type=106", "--return", "ref"])
        #expect(montgomery.stdout == (try String(contentsOfFile: Fixtures.certificates + "/x25519-public.pem", encoding: .utf8)))
        // RSA: PKCS#1 and SubjectPublicKeyInfo, 2048 and 4096 bits.
        #expect(sandbox.run(["add", "--class", "keys", "--ref-file", Fixtures.certificates + "/leaf-rsa-pkcs1.key"]).status == 0)
        #expect(sandbox.run(["add", "--class", "keys", "--ref-file", Fixtures.certificates + "/rsa4096.key"]).status == 0)
        #expect(sandbox.run(["add", "--class", "keys", "--ref-file", Fixtures.certificates + "/p521.key"]).status == 0)
        let rsa = try Self.item(sandbox, ["--class", "keys", "--attr", "bsiz=4096"])
        #expect(rsa["type"] as? String == "42" && rsa["encr"] as? Bool == false && rsa["decr"] as? Bool == true)
        #expect(try Self.item(sandbox, ["--class", "keys", "--attr", "bsiz=521"])["type"] as? String == "73")
    }

    @Test func anIdentityAddsItsTwoHalvesWithApplesDuplicateTolerance() throws {
        let sandbox = try Sandbox()
        // The certificate alone first: adding the identity then adds the key and succeeds.
        #expect(sandbox.run(["add", "--class", "cert", "--ref-file", Fixtures.certificates + "/leaf-ec.pem"]).status == 0)
        let identity = sandbox.run(["add", "--class", "idnt", "--ref-file", Fixtures.certificates + "/leaf-ec-identity.pem"])
        #expect(identity.status == 0, "\(identity.stderr)")
        #expect(Self.count(sandbox, "cert") == 1 && Self.count(sandbox, "keys") == 1)
        // Both halves present: errSecDuplicateItem.
        let both = sandbox.run([
            "add", "--class", "idnt", "--ref-file", Fixtures.certificates + "/leaf-ec.pem", "--ref-file",
            Fixtures.certificates + "/leaf-ec.key",
        ])
        #expect(both.status == 45 && both.stderr.contains("both"), "\(both.stderr)")

        // The key alone first, in a second keychain: the identity adds the certificate.
        let other = try Sandbox()
        #expect(other.run(["add", "--class", "keys", "--ref-file", Fixtures.certificates + "/leaf-rsa.key"]).status == 0)
        let rsa = other.run([
            "add", "--class", "idnt", "--ref-file", Fixtures.certificates + "/leaf-rsa.pem", "--ref-file",
            Fixtures.certificates + "/leaf-rsa.key",
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
            let run = sandbox.run(["add", "--class", "idnt"] + files.flatMap { ["--ref-file", Fixtures.certificates + "/" + $0] })
            #expect(run.status == 206 && run.stderr.contains(words), "\(files): \(run.stderr)")
        }
        #expect(Self.count(sandbox, "cert") == 0 && Self.count(sandbox, "keys") == 0)
    }

    @Test func hostileAndUnsupportedFilesAreRefusedNamingTheFileAndWriteNothing() throws {
        let sandbox = try Sandbox()
        let der = try Data(contentsOf: URL(fileURLWithPath: Fixtures.certificates + "/leaf-ec.der"))
        let pem = try String(contentsOfFile: Fixtures.certificates + "/leaf-ec.pem", encoding: .utf8)
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
            ("ed448.key", "Ed448"), ("secp256k1.key", "secp256k1"), ("leaf-ec-encrypted.key", "encrypted"),
        ]
        for (name, words) in unsupported {
            let run = sandbox.run(["add", "--class", "keys", "--ref-file", Fixtures.certificates + "/" + name])
            #expect(run.status == 206 && run.stderr.contains(words), "\(name): \(run.stderr)")
        }
        let serial = sandbox.run(["add", "--class", "cert", "--ref-file", Fixtures.certificates + "/serial-40-bytes.pem"])
        #expect(serial.status == 206 && serial.stderr.contains("40 bytes"), "\(serial.stderr)")
        // A certificate given for a key, and a reference with data besides it.
        #expect(sandbox.run(["add", "--class", "keys", "--ref-file", Fixtures.certificates + "/leaf-ec.pem"]).status == 206)
        #expect(sandbox.run(["add", "--class", "genp", "-s", "x", "--ref-file", Fixtures.certificates + "/leaf-ec.pem"]).status == 206)
        let both = sandbox.run([
            "add", "--class", "cert", "--ref-file", Fixtures.certificates + "/leaf-ec.pem", "--data-file",
            Fixtures.certificates + "/leaf-ec.der",
        ])
        #expect(both.status == 64, "\(both.stderr)")
        #expect(Self.count(sandbox, "cert") == 0 && Self.count(sandbox, "keys") == 0 && Self.count(sandbox, "genp") == 0)
    }

    /// A keychain holding the EC identity, the RSA certificate alone, an unrelated RSA key and the
    /// root certificate.
    static func identities() throws -> Sandbox {
        let sandbox = try Sandbox()
        for (itemClass, files) in [
            ("idnt", ["leaf-ec-identity.pem"]), ("cert", ["leaf-rsa.pem"]), ("keys", ["rsa4096.key"]), ("cert", ["root.pem"]),
        ] {
            let added = sandbox.run(["add", "--class", itemClass] + files.flatMap { ["--ref-file", Fixtures.certificates + "/" + $0] })
            #expect(added.status == 0, "\(files): \(added.stderr)")
        }
        return sandbox
    }

    @Test func anIdentityIsTheJoinOfACertificateAndItsPrivateKey() throws {
        let sandbox = try Self.identities()
        let found = sandbox.run(["find", "--class", "idnt", "--limit", "all", "--return", "attributes,persistent-ref", "--format", "json"])
        #expect(found.status == 0, "\(found.stderr)")
        let items = try #require(try found.json() as? [[String: Any]])
        #expect(items.count == 1, "only the EC certificate has its private key here")
        let identity = try #require(items.first)
        // The key's attributes overlaid with the certificate's: the label is the certificate's.
        #expect(identity["class"] as? String == "idnt" && identity["labl"] as? String == "ci signing")
        #expect(identity["kcls"] as? Int == 1 && identity["sign"] as? Bool == true && identity["slnr"] as? String == "AIut8A0=")
        // The persistent reference is "idnt" and the certificate's UUID.
        let identityRef = try #require((identity["v_PersistentRef"] as? String).flatMap { Data(base64Encoded: $0) })
        let certificateRef = sandbox.run(["find", "--class", "cert", "-l", "ci signing", "--return", "persistent-ref"]).stdout
        let certificateBytes = try #require(Data(base64Encoded: certificateRef.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(identityRef.prefix(4) == Data("idnt".utf8) && identityRef.dropFirst(4) == certificateBytes.dropFirst(4))

        // labl, issr, slnr and skid are asked of the certificate; everything else of the key.
        #expect(sandbox.run(["find", "--class", "idnt", "--attr", "slnr=base64:AIut8A0="]).status == 0)
        #expect(sandbox.run(["find", "--class", "idnt", "-l", "ci signing", "--attr", "bsiz=256"]).status == 0)
        let wrongKey = sandbox.run(["find", "--class", "idnt", "--attr", "bsiz=384"])
        #expect(wrongKey.status == 44 && wrongKey.stderr.contains("private key half"), "\(wrongKey.stderr)")
        let wrongCertificate = sandbox.run(["find", "--class", "idnt", "-l", "Développeur RSA"])
        #expect(wrongCertificate.status == 44 && wrongCertificate.stderr.contains("no private key's klbl"), "\(wrongCertificate.stderr)")
        // subj and pkhh are columns of neither half of the join.
        let subject = sandbox.run(["find", "--class", "idnt", "--attr", "pkhh=base64:AA=="])
        #expect(subject.status == 41 && subject.stderr.contains("the rest to the key"), "\(subject.stderr)")
    }

    @Test func theJoinAppliesTheCallersGroupsToBothHalves() throws {
        let sandbox = try Sandbox()
        // The certificate in the app's group, its key in a group only the widget reads.
        #expect(sandbox.run(["add", "--class", "cert", "--ref-file", Fixtures.certificates + "/leaf-ec.pem"]).status == 0)
        let key = sandbox.run([
            "add", "--class", "keys", "-g", "SKMME9E2Y8.com.example.shared", "--ref-file", Fixtures.certificates + "/leaf-ec.key",
        ])
        #expect(key.status == 0, "\(key.stderr)")
        #expect(sandbox.run(["find", "--class", "idnt"]).status == 0)
        let other = sandbox.run(["find", "--class", "idnt"], profile: "other-team.plist")
        #expect(other.status == 44 && other.stdout.isEmpty, "an app of another team saw the identity: \(other.status) \(other.stderr)")
        // Apple's quirk: the join asks priv = 1, which a stored public key also has, so the
        // certificate and its public key alone make an "identity" (kcls 0).
        let lone = try Sandbox()
        #expect(lone.run(["add", "--class", "cert", "--ref-file", Fixtures.certificates + "/leaf-ec.pem"]).status == 0)
        #expect(lone.run(["add", "--class", "keys", "--ref-file", Fixtures.certificates + "/leaf-ec-public.pem"]).status == 0)
        #expect(try Self.item(lone, ["--class", "idnt"])["kcls"] as? Int == 0)
    }

    @Test func referencesArePEMAndPrivateKeysStayInsideUnlessExportIsAllowed() throws {
        let sandbox = try Self.identities()
        let certificate = sandbox.run(["find", "--class", "cert", "-l", "ci signing", "--return", "ref"])
        let pem = try String(contentsOfFile: Fixtures.certificates + "/leaf-ec.pem", encoding: .utf8)
        #expect(certificate.status == 0 && certificate.stdout == pem, "\(certificate.stderr)")
        let publicKey = try String(contentsOfFile: Fixtures.certificates + "/leaf-ec-public.pem", encoding: .utf8)
        let keyRef = sandbox.run(["find", "--class", "keys", "--attr", "bsiz=256", "--return", "ref"])
        #expect(keyRef.status == 0 && keyRef.stdout == publicKey, "\(keyRef.stderr)")
        let identityRef = sandbox.run(["find", "--class", "idnt", "--return", "ref"])
        #expect(identityRef.stdout == pem + publicKey, "\(identityRef.stderr)")
        // JSON carries the PEM as v_Ref.
        let json = try Self.item(sandbox, ["--class", "cert", "-l", "ci signing", "--return", "attributes,ref"])
        #expect(json["v_Ref"] as? String == pem)
        // A password has no reference: Apple returns nothing for it.
        #expect(sandbox.add(["-s", "svc"], secret: "SECRET-p").status == 0)
        let password = sandbox.run(["find", "-s", "svc", "--return", "ref"])
        #expect(password.status == 0 && password.stdout.isEmpty, "\(password.stdout)")

        // A private key's bytes: refused as data, as -w and in an identity, whatever the limit
        // (206); a key that is not extractable matches nothing here, since this one is (44).
        for (arguments, status) in [
            (["--class", "keys", "--attr", "bsiz=256", "-w"], 206), (["--class", "keys", "--limit", "all", "--return", "data"], 206),
            (["--class", "idnt", "--return", "data"], 206),
            (["--class", "keys", "--attr", "bsiz=256", "--return", "ref", "--allow-private-key-export", "--attr", "extr=false"], 44),
        ] as [([String], Int32)] {
            let run = sandbox.run(["find"] + arguments)
            #expect(run.status == status && run.signal == nil && run.stdout.isEmpty, "\(arguments): \(run.status) \(run.stdout)")
        }
        let refused = sandbox.run(["find", "--class", "keys", "--attr", "bsiz=256", "-w"])
        #expect(refused.status == 206 && refused.stderr.contains("--allow-private-key-export"), "\(refused.stderr)")
        // Allowed: the external representation, and the private key as PKCS#8 PEM.
        let sec1 = try String(contentsOfFile: Fixtures.certificates + "/leaf-ec.key", encoding: .utf8)
        let exported = sandbox.run(["find", "--class", "keys", "--attr", "bsiz=256", "--return", "ref", "--allow-private-key-export"])
        #expect(exported.status == 0 && exported.stdout == sec1, "\(exported.stderr)")
        let data = sandbox.run(["find", "--class", "keys", "--attr", "bsiz=256", "-w", "--allow-private-key-export"])
        #expect(data.status == 0 && data.stdoutData.count == 97 && data.stdoutData.first == 4, "04 || X || Y || K for P-256")

        // export --with-secrets is held to the same rule; attributes alone are always exported.
        #expect(sandbox.run(["export", "--format", "jsonl"]).status == 0)
        let backup = sandbox.run(["export", "--with-secrets", "--format", "jsonl"])
        #expect(backup.status == 206 && backup.stdout.isEmpty && backup.stderr.contains("--allow-private-key-export"), "\(backup.stderr)")
        let allowed = sandbox.run(["export", "--with-secrets", "--allow-private-key-export", "--format", "jsonl"])
        #expect(allowed.status == 0 && allowed.stdout.split(separator: "\n").count == 6, "\(allowed.stderr)")
        // What it wrote imports into a new keychain, keys and all.
        let restored = try Sandbox()
        let imported = restored.run(["import", "--input-format", "jsonl"], stdin: allowed.stdoutData)
        #expect(imported.status == 0 && Self.count(restored, "keys") == 2, "\(imported.stderr)")
        #expect(restored.run(["find", "--class", "idnt", "--return", "ref"]).stdout == identityRef.stdout)

        // Not extractable: never, flag or not.
        #expect(sandbox.run(["update", "--class", "keys", "--attr", "bsiz=256", "--set-attr", "extr=false"]).status == 0)
        let kept = sandbox.run(["find", "--class", "keys", "--attr", "bsiz=256", "-w", "--allow-private-key-export"])
        #expect(kept.status == 206 && kept.stderr.contains("not extractable") && kept.stdout.isEmpty, "\(kept.stderr)")
    }

    @Test func deletingIdentitiesDeletesCertificatesThenKeysByTheSameQuery() throws {
        // Apple: not a join. An empty query deletes every certificate and every key, unrelated ones too.
        let sandbox = try Self.identities()
        let dry = sandbox.run(["delete", "--class", "idnt", "--dry-run", "--format", "json"])
        #expect(dry.status == 0 && ((try? dry.json() as? [Any])?.count ?? 0) == 5, "\(dry.stdout)")
        #expect(Self.count(sandbox, "cert") == 3)
        // Selecting by class alone needs --all on the command line (no terminal to confirm on).
        let unmeant = sandbox.run(["delete", "--class", "idnt"])
        #expect(unmeant.status == 64 && unmeant.stderr.contains("--all"), "\(unmeant.stderr)")
        #expect(Self.count(sandbox, "cert") == 3)
        let all = sandbox.run(["delete", "--class", "idnt", "--all"])
        #expect(all.status == 0, "\(all.stderr)")
        #expect(Self.count(sandbox, "cert") == 0 && Self.count(sandbox, "keys") == 0)

        // No certificate matches: errSecItemNotFound, and no key is touched.
        let other = try Self.identities()
        #expect(other.run(["delete", "--class", "idnt", "--attr", "bsiz=4096"]).status == 41, "bsiz is no certificate attribute")
        #expect(other.run(["delete", "--class", "idnt", "-l", "nothing"]).status == 44)
        #expect(Self.count(other, "keys") == 2)
        // Certificates match but no key does: Apple deletes the certificates and answers -25300;
        // keychainctl answers -25300 and deletes nothing.
        let half = other.run(["delete", "--class", "idnt", "-l", "ci signing"])
        #expect(half.status == 44 && half.stderr.contains("nothing was changed"), "\(half.stderr)")
        #expect(Self.count(other, "cert") == 3 && Self.count(other, "keys") == 2)
        // A certificate-only attribute: the key half is errSecNoSuchAttr, nothing deleted.
        let attribute = other.run(["delete", "--class", "idnt", "--attr", "slnr=base64:AIut8A0="])
        #expect(attribute.status == 41, "\(attribute.stderr)")
        #expect(Self.count(other, "cert") == 3)
    }

    @Test func updatingIdentitiesUpdatesBothHalvesOrNeither() throws {
        let sandbox = try Self.identities()
        // Moving every certificate and key to another group, as Apple's own test moves an identity.
        let moved = sandbox.run(["update", "--class", "idnt", "--all", "--set-group", "SKMME9E2Y8.com.example.shared"])
        #expect(moved.status == 0, "\(moved.stderr)")
        let identity = try Self.item(sandbox, ["--class", "idnt", "-g", "SKMME9E2Y8.com.example.shared"])
        #expect(identity["labl"] as? String == "ci signing")
        // A change the key half refuses changes no certificate either.
        let refused = sandbox.run(["update", "--class", "idnt", "--all", "--set-attr", "pkhh=base64:AA=="])
        #expect(refused.status == 41 && refused.stderr.contains("nothing was changed"), "\(refused.stderr)")
        #expect(try Self.item(sandbox, ["--class", "cert", "-l", "ci signing"])["pkhh"] as? String == "24BGL3pUEakqie9A6TMCCu94EBg=")
        // An identity's update has no secret.
        let secret = sandbox.run(["update", "--class", "idnt", "--all", "--set-data-stdin"], stdin: Data("x".utf8))
        #expect(secret.status == 206, "\(secret.stderr)")
    }

    @Test func aPKCS12ImportAddsTheIdentityAndItsChainAndAgainIsSuccess() throws {
        let sandbox = try Sandbox()
        let first = Fixtures.importP12(sandbox, "identity-modern.p12")
        #expect(first.status == 0 && first.stdout == "1 identity and 2 certificates added; 0 already stored\n", "\(first.stderr)")
        #expect(Self.count(sandbox, "idnt") == 1 && Self.count(sandbox, "cert") == 3 && Self.count(sandbox, "keys") == 1)
        let signing = sandbox.run(["find", "--class", "idnt", "--return", "ref"])
        let pem = try String(contentsOfFile: Fixtures.certificates + "/leaf-ec.pem", encoding: .utf8)
        #expect(signing.stdout.hasPrefix(pem), "\(signing.stderr)")
        // Apple treats an item already stored as success: a re-run changes nothing.
        let again = Fixtures.importP12(sandbox, "identity-modern.p12", ["--format", "json"])
        #expect(again.status == 0, "\(again.stderr)")
        let report = try #require(try again.json() as? [String: Any])
        #expect((report["identities"] as? [String: Any])?["present"] as? Int == 1)
        #expect((report["certificates"] as? [String: Any])?["present"] as? Int == 2)
        // Legacy encryption, and two identities in one file.
        #expect(Fixtures.importP12(sandbox, "identity-legacy.p12").status == 0)
        let multiple = Fixtures.importP12(sandbox, "identity-multiple.p12")
        #expect(multiple.stdout.hasPrefix("0 identities and 0 certificates added; 3 already stored"), "\(multiple.stdout)")
        #expect(Self.count(sandbox, "idnt") == 2)
    }

    @Test func aPKCS12ImportTakesTheGroupAccessibilityAndLabelGiven() throws {
        let sandbox = try Sandbox()
        let run = Fixtures.importP12(
            sandbox, "identity-legacy.p12", ["--group", "SKMME9E2Y8.com.example.shared", "--accessible", "after-first-unlock", "--dry-run"])
        #expect(run.status == 0 && run.stdout.contains("dry run"), "\(run.stderr)")
        #expect(Self.count(sandbox, "cert") == 0, "a dry run wrote")
        #expect(
            Fixtures.importP12(
                sandbox, "identity-legacy.p12", ["--group", "SKMME9E2Y8.com.example.shared", "--accessible", "after-first-unlock"]
            ).status == 0)
        let identity = try Self.item(sandbox, ["--class", "idnt"])
        #expect(identity["agrp"] as? String == "SKMME9E2Y8.com.example.shared" && identity["pdmn"] as? String == "ck")
        // A group the app may not write: errSecMissingEntitlement, nothing added.
        let other = try Sandbox()
        #expect(Fixtures.importP12(other, "identity-legacy.p12", ["--group", "OTHERTEAM.com.example"]).status == 30)
        #expect(Self.count(other, "cert") == 0 && Self.count(other, "keys") == 0)
    }

    @Test func badPKCS12FilesWriteNothingWithTheirDocumentedStatus() throws {
        let sandbox = try Sandbox()
        let cases: [(String, String?, Int32, String)] = [
            ("identity-modern.p12", "wrong", 51, "passphrase is wrong"),
            ("identity-legacy-nomac.p12", "wrong", 51, "passphrase is wrong"),
            ("identity-modern.p12", nil, 51, "passphrase is wrong"),
            ("identity-ed25519.p12", "fixture", 93, "Ed25519"),
            ("hostile-iterations.p12", "fixture", 93, "iterations"),
            ("certificates-only.p12", "fixture", 206, "no identity"),
            ("key-only.p12", "fixture", 206, "1 private key"),
            ("leaf-ec.der", "fixture", 93, "not a PKCS#12"),
        ]
        for (name, passphrase, status, words) in cases {
            let run = Fixtures.importP12(sandbox, name, passphrase: passphrase, ["--input-format", "pkcs12"])
            #expect(run.status == status && run.stderr.contains(words) && run.stdout.isEmpty, "\(name): \(run.status) \(run.stderr)")
        }
        #expect(Self.count(sandbox, "cert") == 0 && Self.count(sandbox, "keys") == 0)
        #expect(sandbox.run(["import", "--input-format", "pkcs12"], stdin: Data("x".utf8)).status == 64)
        #expect(sandbox.run(["import", "x.json", "--p12-passphrase-fd", "0"]).status == 64)
    }

    /// The case developers debug: an extension sees the certificate but not the key it was added
    /// with (the app's default group), so it has no identity.
    static func splitIdentity() throws -> Sandbox {
        let sandbox = try Sandbox()
        #expect(
            sandbox.run(["add", "--class", "cert", "-g", "group.com.example", "--ref-file", Fixtures.certificates + "/" + "leaf-ec.pem"])
                .status == 0)
        #expect(sandbox.run(["add", "--class", "keys", "--ref-file", Fixtures.certificates + "/" + "leaf-ec.key"]).status == 0)
        return sandbox
    }

    @Test func explainSaysWhichHalfOfAnIdentityACallerMisses() throws {
        let sandbox = try Self.splitIdentity()
        let widget = sandbox.run(["explain", "--class", "idnt", "--format", "json"], profile: "widget.plist")
        #expect(widget.status == 0, "\(widget.stderr)")
        let report = try #require(try widget.json() as? [String: Any])
        #expect((report["predicted"] as? [String: Any])?["status"] as? Int == -25300)
        let candidates = try #require(report["candidates"] as? [[String: Any]])
        let verdicts = candidates.map { ($0["item"] as? [String: Any])?["class"] as? String ?? "" + "" }
        #expect(verdicts == ["cert", "keys"], "\(verdicts)")
        let certificate = try #require(candidates.first)
        #expect(certificate["verdict"] as? String == "near-miss")
        #expect(((certificate["reasons"] as? [[String: Any]])?.first?["code"] as? String) == "no-identity-partner")
        #expect(candidates.last?["verdict"] as? String == "hidden")
        // The app sees both: the identity is found, and --strict agrees with find.
        let app = sandbox.run(["explain", "--class", "idnt", "--strict"])
        #expect(app.status == 0 && app.stdout.contains("VISIBLE") && !app.stdout.contains("NEAR MISS"), "\(app.stdout)")
        #expect(sandbox.run(["find", "--class", "idnt"], profile: "widget.plist").status == 44)
        #expect(sandbox.run(["explain", "--class", "idnt", "--strict"], profile: "widget.plist").status == 44)
        #expect(sandbox.run(["explain", "--class", "idnt", "--operation", "add"]).status == 206)
    }

    @Test func theMatrixShowsAnIdentityOnlyToTargetsThatReadBothHalves() throws {
        let sandbox = try Self.splitIdentity()
        let profiles = Sandbox.profiles
        let matrix = sandbox.run(
            [
                "matrix", "--class", "idnt", "--profile", "app=\(profiles)/app.plist", "--profile", "widget=\(profiles)/widget.plist",
            ], profile: nil)
        #expect(matrix.status == 0, "\(matrix.stderr)")
        let row = try #require(matrix.stdout.split(separator: "\n").first { $0.hasPrefix("labl=ci signing") })
        #expect(row.contains("agrp=group.com.example key agrp=SKMME9E2Y8.com.example.app"), "\(row)")
        #expect(row.contains("RW") && row.contains("—G"), "\(row)")
    }

    @Test func anIdentitysPersistentReferenceFindsItAndDeletesItsKeyOnlyWhenNoCertificateStillHoldsIt() throws {
        let sandbox = try Sandbox()
        #expect(sandbox.run(["add", "--class", "idnt", "--ref-file", Fixtures.certificates + "/leaf-ec-identity.pem"]).status == 0)
        // A second certificate for the same key: two identities share one private key.
        #expect(sandbox.run(["add", "--class", "cert", "--ref-file", Fixtures.certificates + "/serial-negative.pem"]).status == 0)
        let reference = sandbox.run(["find", "--class", "idnt", "-l", "ci signing", "--return", "persistent-ref"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let found = try Self.item(sandbox, ["--persistent-ref", reference])
        #expect(found["class"] as? String == "idnt" && found["labl"] as? String == "ci signing")
        #expect(sandbox.run(["find", "--persistent-ref", reference, "-l", "x"]).status == 206)
        // Deleting it deletes its certificate; the key stays, held by the other certificate.
        #expect(sandbox.run(["delete", "--persistent-ref", reference]).status == 0)
        #expect(Self.count(sandbox, "cert") == 1 && Self.count(sandbox, "keys") == 1)
        #expect(sandbox.run(["find", "--persistent-ref", reference]).status == 44)
        // The last identity's deletion takes the key with it.
        let last = sandbox.run(["find", "--class", "idnt", "--return", "persistent-ref"]).stdout.trimmingCharacters(
            in: .whitespacesAndNewlines)
        #expect(sandbox.run(["delete", "--persistent-ref", last]).status == 0)
        #expect(Self.count(sandbox, "cert") == 0 && Self.count(sandbox, "keys") == 0)
        // Not an identity's reference.
        #expect(sandbox.run(["find", "--class", "idnt", "--persistent-ref", "aWRudA=="]).status == 206)
    }

    /// Data is not a reference: nothing is derived (`klbl` stays empty, as securityd never computes
    /// it), so a raw key never joins an identity, and it has no reference to print.
    @Test func aKeyAddedAsDataDerivesNothingAndJoinsNoIdentity() throws {
        let sandbox = try Sandbox()
        #expect(sandbox.run(["add", "--class", "cert", "--ref-file", Fixtures.certificates + "/leaf-ec.pem"]).status == 0)
        let raw = sandbox.run(["add", "--class", "keys", "--attr", "kcls=1", "--data-file", Fixtures.certificates + "/leaf-ec-pkcs8.der"])
        #expect(raw.status == 0, "\(raw.stderr)")
        let key = try Self.item(sandbox, ["--class", "keys"])
        #expect(key["klbl"] as? String == "" && (key["type"] as? String ?? "") == "" && key["bsiz"] as? Int == 0, "\(key)")
        #expect(sandbox.run(["find", "--class", "idnt"]).status == 44)
        let reference = sandbox.run(["find", "--class", "keys", "--return", "ref"])
        #expect(reference.status == 93 && reference.stderr.contains("--data-file"), "\(reference.stderr)")
    }
}
