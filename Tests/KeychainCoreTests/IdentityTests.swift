import Foundation
import Testing

@testable import KeychainCore

/// Identities in-process (docs/FIDELITY.md): the join and its routing, explode_identity's duplicate
/// tolerance, and the class-wide delete and update run as one transaction.
@Suite struct IdentityTests {
    static func reference(_ names: String...) throws -> ItemReference {
        try ItemReference(files: try names.map { (path: $0, contents: SecretBytes(copying: try Fixtures.certificateFile($0))) })
    }

    static func count(_ keychain: Keychain, _ itemClass: String, as caller: Caller) -> Int {
        (try? keychain.find(ItemRequest(itemClass: itemClass, limit: .value(.all)), caller: caller).items.count) ?? 0
    }

    @Test func theJoinRoutesAttributesAndOverlaysTheCertificate() throws {
        let temporary = try TemporaryKeychain()
        let app = try Fixtures.caller("app.plist")
        let keychain = temporary.keychain
        _ = try keychain.add(ItemRequest(itemClass: "idnt"), reference: try Self.reference("leaf-ec-identity.pem"), caller: app)
        // A certificate already stored is no failure; both halves stored is errSecDuplicateItem.
        #expect(
            status {
                _ = try keychain.add(ItemRequest(itemClass: "idnt"), reference: try Self.reference("leaf-ec-identity.pem"), caller: app)
            } == -25299)
        let found = try keychain.find(
            TemporaryKeychain.request([("slnr", "base64:AIut8A0="), ("bsiz", "256")], class: "idnt"), caller: app)
        let identity = try #require(found.items.first?.item)
        #expect(identity.itemClass == .identity && identity.attributes["labl"] == .string("ci signing"))
        #expect(identity.attributes["kcls"] == .number(1) && identity.persistentRef.bytes.prefix(4).elementsEqual("idnt".utf8))
        #expect(status { _ = try keychain.find(TemporaryKeychain.request([("bsiz", "384")], class: "idnt"), caller: app) } == -25300)
        #expect(
            status { _ = try keychain.find(TemporaryKeychain.request([("subj", "base64:AA==")], class: "idnt"), caller: app) } == -25303)
    }

    @Test func aFailingKeyHalfLeavesTheCertificatesAsTheyWere() throws {
        let temporary = try TemporaryKeychain()
        let app = try Fixtures.caller("app.plist")
        let keychain = temporary.keychain
        _ = try keychain.add(ItemRequest(itemClass: "cert"), reference: try Self.reference("leaf-rsa.pem"), caller: app)
        _ = try keychain.add(ItemRequest(itemClass: "keys"), reference: try Self.reference("leaf-ec.key"), caller: app)
        // The certificate half matches (labl); the key half, whose label is empty, does not.
        let label = TemporaryKeychain.request([("labl", "Développeur RSA")], class: "idnt")
        #expect(status { _ = try keychain.delete(label, caller: app) } == -25300)
        #expect(status { _ = try keychain.update(label, changes: [("labl", "renamed")], secret: nil, caller: app) } == -25300)
        #expect(Self.count(keychain, "cert", as: app) == 1)
        let certificate = try keychain.find(ItemRequest(itemClass: "cert"), caller: app).items[0].item
        #expect(certificate.attributes["labl"] == .string("Développeur RSA"))
        // With no attributes both classes are emptied, the unrelated key too.
        #expect(try keychain.delete(ItemRequest(itemClass: "idnt"), caller: app).count == 2)
        #expect(Self.count(keychain, "cert", as: app) == 0 && Self.count(keychain, "keys", as: app) == 0)
    }
}
