import Foundation
import Testing

/// `si-42-identity.m` and the identity checks of `secitemfunctionality.m`: a certificate and its
/// private key, added apart or as one identity, found, relabelled, moved and deleted. Apple's test
/// certificate is replaced by the fixture's RSA certificate and key (`Fixtures/Certificates`); a
/// `kSecValueRef` query becomes the attributes that name the same item.
extension AppleRegressionTests {
    static let rsaIdentity = [
        "--ref-file", Fixtures.certificates + "/leaf-rsa.pem", "--ref-file",
        Fixtures.certificates + "/leaf-rsa.key",
    ]

    @Test func si42Identity() throws {
        let sandbox = try Sandbox()
        let file = "si-42-identity.m"
        let certificates = Fixtures.certificates
        Self.expect(sandbox, ["add", "--class", "cert", "--ref-file", certificates + "/leaf-rsa.pem"], "\(file):486")
        Self.expect(sandbox, ["add", "--class", "keys", "--ref-file", certificates + "/leaf-rsa.key"], "\(file):497")
        let certificate = Self.expect(sandbox, ["find", "--class", "cert", "--format", "json"], "the certificate's attributes")
        let hash = try #require(Self.object(certificate)["pkhh"] as? String)
        let byLabel = ["--attr", "klbl=base64:" + hash]
        let byHash = ["--attr", "pkhh=base64:" + hash]
        Self.expect(sandbox, ["find", "--class", "keys"] + byLabel + ["--return", "ref"], "\(file):517")
        Self.expect(sandbox, ["find", "--class", "cert"] + byHash + ["--return", "ref"], "\(file):527")
        let identity = Self.expect(sandbox, ["find", "--class", "idnt"] + byLabel + ["--return", "ref"], "\(file):550")
        #expect(identity.stdout.contains("BEGIN CERTIFICATE") && identity.stdout.contains("PRIVATE KEY") == false, "\(file):551")
        Self.expect(sandbox, ["delete", "--class", "cert"] + byHash, "\(file):564")
        Self.expect(sandbox, ["find", "--class", "cert"] + byHash, status: 44, "\(file):565")
        Self.expect(sandbox, ["delete", "--class", "keys"] + byLabel, "\(file):571")
        Self.expect(sandbox, ["find", "--class", "keys"] + byLabel, status: 44, "\(file):572")
        Self.expect(sandbox, ["add", "--class", "cert", "--ref-file", certificates + "/root.pem"], "\(file):580")

        let added = Self.expect(sandbox, ["add", "--class", "idnt"] + Self.rsaIdentity + ["--return", "persistent-ref"], "\(file):588")
        let reference = added.stdout.trimmingCharacters(in: .newlines)
        #expect(!reference.isEmpty, "\(file):589: a persistent reference")
        let again = Self.expect(
            sandbox, ["add", "--class", "idnt"] + Self.rsaIdentity + ["--return", "persistent-ref"], status: 45, "\(file):593")
        #expect(again.stdout.isEmpty, "\(file):594: no persistent reference this time")
        Self.expect(sandbox, ["find", "--persistent-ref", reference, "--return", "ref"], "\(file):602")
        for (itemClass, attribute) in [("idnt", byLabel), ("keys", byLabel), ("cert", byHash)] {
            let found = Self.expect(sandbox, ["find", "--class", itemClass] + attribute + ["--return", "persistent-ref"], "\(file):617")
            #expect(!found.stdout.isEmpty, "\(file):618: a persistent reference for the \(itemClass)")
        }
        // Deleting by the identity's object reference: here its persistent reference, which names
        // the same certificate and key (a query on idnt is sent to both halves, where klbl is no
        // certificate attribute).
        Self.expect(sandbox, ["delete", "--persistent-ref", reference], "\(file):626")
        Self.expect(sandbox, ["find", "--persistent-ref", reference], status: 44, "\(file):627")
        let back = Self.expect(sandbox, ["add", "--class", "idnt"] + Self.rsaIdentity + ["--return", "persistent-ref"], "\(file):631")
        let backReference = back.stdout.trimmingCharacters(in: .newlines)
        Self.expect(sandbox, ["delete", "--persistent-ref", backReference], "\(file):637")
        Self.expect(sandbox, ["find", "--persistent-ref", backReference], status: 44, "\(file):639")

        Self.expect(sandbox, ["add", "--class", "idnt", "-l", "zomg"] + Self.rsaIdentity, "\(file):651")
        Self.expect(sandbox, ["find", "--class", "idnt", "-l", "zomg"], "\(file):657")
        Self.expect(sandbox, ["find", "--class", "cert", "-l", "zomg", "--return", "ref"], "\(file):665")
        Self.expect(sandbox, ["find", "--class", "keys", "-l", "zomg", "--return", "ref"], "\(file):673")
        Self.expect(sandbox, ["update", "--class", "keys", "-l", "zomg", "--set-label", "zzzomg"], "\(file):680")
        Self.expect(
            sandbox, ["find", "--class", "idnt", "-l", "zomg", "--return", "ref"], "\(file):687: the certificate's label names the identity"
        )
        Self.expect(sandbox, ["update", "--class", "cert", "-l", "zomg", "--set-label", "zzzomg"], "\(file):693")
        Self.expect(sandbox, ["find", "--class", "idnt", "-l", "zomg", "--return", "ref"], status: 44, "\(file):703")
        let zomg = Self.expect(sandbox, ["find", "--class", "idnt", "-l", "zzzomg", "--return", "persistent-ref"], "\(file):706")
        let issuer = try #require(Self.object(certificate)["issr"] as? String)
        let raw = Data(try Fixtures.rawIssuer(ofPEM: certificates + "/leaf-rsa.pem")).base64EncodedString()
        for (value, line) in [(issuer, 724), (raw, 729)] {
            let found = Self.expect(
                sandbox, ["find", "--class", "idnt", "--attr", "issr=base64:" + value, "--return", "persistent-ref"], "\(file):\(line)")
            #expect(found.stdout == zomg.stdout, "\(file):\(line + 1): the same identity")
        }
        Self.expect(sandbox, ["delete", "--class", "idnt", "-l", "zzzomg"], "\(file):736")
        Self.expect(sandbox, ["delete", "--class", "cert", "--all"], "\(file):739: the other certificate, the only one left")
    }

    /// `secitemfunctionality.m`, `CheckItemUpdateAccessGroupIdentity` and
    /// `CheckFindIdentityByReference`: an identity moved between groups by its label, and found by
    /// its label with the reference its add returned.
    @Test func secitemfunctionalityIdentities() throws {
        let sandbox = try Sandbox()
        let file = "secitemfunctionality.m"
        let (group1, group2) = ("SKMME9E2Y8.com.example.app", "SKMME9E2Y8.com.example.shared")
        let label = ["-l", "item-delete-me"]
        Self.expect(sandbox, ["find", "--class", "idnt", "-g", group1] + label, status: 44, "\(file):312")
        let added = Self.expect(
            sandbox,
            ["add", "--class", "idnt", "-g", group1, "--accessible", "ck", "--return", "persistent-ref"] + label + Self.rsaIdentity,
            "\(file):332")
        Self.expect(sandbox, ["find", "--class", "idnt", "-g", group1] + label, "\(file):339")
        Self.expect(sandbox, ["find", "--class", "idnt", "-g", group2] + label, status: 44, "\(file):340")
        Self.expect(sandbox, ["update", "--class", "idnt", "-g", group1, "--set-group", group2] + label, "\(file):356")
        Self.expect(sandbox, ["find", "--class", "idnt", "-g", group1] + label, status: 44, "\(file):364")
        Self.expect(sandbox, ["find", "--class", "idnt", "-g", group2] + label, "\(file):365")
        let moved = Self.expect(sandbox, ["find", "--class", "idnt", "-g", group2, "--return", "persistent-ref"] + label, "\(file):379")
        #expect(moved.stdout == added.stdout, "the reference survives the move")
        Self.expect(sandbox, ["delete", "--class", "idnt", "-g", group2], "\(file):408")
        Self.expect(sandbox, ["find", "--class", "idnt", "-g", group2] + label, status: 44, "\(file):413")

        let reference = ["-l", "CheckItemReference", "-g", group1]
        let pref = Self.expect(
            sandbox, ["add", "--class", "idnt", "--accessible", "ck", "--return", "persistent-ref"] + reference + Self.rsaIdentity,
            "\(file):452")
        #expect(!pref.stdout.isEmpty, "\(file):456: a persistent reference")
        let byLabel = Self.expect(sandbox, ["find", "--class", "idnt", "--return", "persistent-ref"] + reference, "\(file):491")
        #expect(byLabel.stdout == pref.stdout, "\(file):499: the same reference")
    }
}
