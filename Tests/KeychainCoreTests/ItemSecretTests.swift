import Foundation
import Testing

@testable import KeychainCore

/// `ItemSecret`: an item's data and its data fields, sealed as the data alone or as an envelope.
@Suite struct ItemSecretTests {
    static func bytes(_ text: String) -> SecretBytes { SecretBytes(copying: Array(text.utf8)) }

    static func envelope(_ parts: [(String, [UInt8])]) -> SecretBytes {
        var out: [UInt8] = []
        for (code, value) in parts {
            out += Array(code.utf8)
            withUnsafeBytes(of: UInt32(value.count).littleEndian) { out += $0 }
            out += value
        }
        return SecretBytes(copying: out)
    }

    @Test func dataAloneIsSealedAsItsBytesAndAnEnvelopeRoundTrips() throws {
        let bare = ItemSecret(data: Self.bytes("hunter2"))
        #expect(bare.isBare && bare.sealedForm().string == "hunter2")
        let full = ItemSecret(data: Self.bytes("pw"), fields: ["bini": Self.bytes("old"), "binn": Self.bytes("note")])
        let opened = try #require(ItemSecret.opening(envelope: full.sealedForm(), itemClass: .internetPassword))
        #expect(opened.equals(full) && opened.data?.string == "pw" && opened.fields["binn"]?.string == "note")
        let none = ItemSecret(data: nil)
        #expect(!none.isBare && none.sealedForm().count == 0)
        let reopened = try #require(ItemSecret.opening(envelope: none.sealedForm(), itemClass: .genericPassword))
        #expect(reopened.data == nil && reopened.fields.isEmpty)
        // An empty data is data, not its absence.
        let empty = try #require(ItemSecret.opening(envelope: Self.envelope([("data", [])]), itemClass: .genericPassword))
        #expect(empty.data?.count == 0)
    }

    /// An envelope opens only under its authenticated purpose, but its parser still meets every
    /// shape an attacker could hand it: none crashes, none reads past the end, none is accepted.
    @Test func malformedEnvelopesAreRefused() {
        let hostile: [(String, SecretBytes)] = [
            ("a truncated header", SecretBytes(copying: Array("binn\u{1}\u{0}".utf8))),
            ("a length past the end", Self.envelope([("binn", [1, 2, 3])]).truncated(by: 1)),
            ("the largest length", SecretBytes(copying: Array("binn".utf8) + [0xFF, 0xFF, 0xFF, 0xFF, 1])),
            ("an unknown code", Self.envelope([("acct", [1])])),
            ("a field of another class", Self.envelope([("binn", [1])])),
            ("a field given twice", Self.envelope([("binn", [1]), ("binn", [2])])),
            ("fields out of order", Self.envelope([("binn", [1]), ("bini", [2])])),
            ("the data after a field", Self.envelope([("bin0", [1]), ("data", [2])])),
            ("a code that is not UTF-8", Self.envelope([("\u{FF}", [1])])),
            ("control characters", Self.envelope([("\u{0}\u{1}\u{2}\u{3}", [1])])),
        ]
        for (what, sealed) in hostile {
            let itemClass: ItemClass = what == "a field of another class" ? .genericPassword : .internetPassword
            #expect(ItemSecret.opening(envelope: sealed, itemClass: itemClass) == nil, "\(what) was accepted")
        }
        // 100,000 parts of a field that repeats: refused at the second, after one allocation.
        var many: [(String, [UInt8])] = []
        for _ in 0..<100_000 { many.append(("bin0", [])) }
        #expect(ItemSecret.opening(envelope: Self.envelope(many), itemClass: .internetPassword) == nil)
    }

    @Test func fieldsAreSealedWithTheDataReturnedWithItAndMergedByUpdate() throws {
        let keychain = try TemporaryKeychain()
        let app = try Fixtures.caller("app.plist")
        let add = TemporaryKeychain.request([("srvr", "example.com"), ("binn", "notes"), ("bini", "history")], class: "inet")
        _ = try keychain.keychain.add(add, secret: Self.bytes("pw"), caller: app)
        let attributes = try keychain.keychain.find(TemporaryKeychain.request([("srvr", "example.com")], class: "inet"), caller: app)
        #expect(attributes.items.first?.dataFields.isEmpty == true && attributes.items.first?.item.attributes["binn"] == nil)
        let data = TemporaryKeychain.request([("srvr", "example.com")], class: "inet", returns: ["attributes", "data"])
        var found = try #require(try keychain.keychain.find(data, caller: app).items.first)
        #expect(
            found.secret?.string == "pw" && found.dataFields["binn"]?.string == "notes" && found.dataFields["bini"]?.string == "history")
        // A field changed alone keeps the data and the other field; new data keeps the fields.
        _ = try keychain.keychain.update(
            TemporaryKeychain.request([("srvr", "example.com")], class: "inet"), changes: [("bini", "newer")], secret: nil, caller: app)
        _ = try keychain.keychain.update(
            TemporaryKeychain.request([("srvr", "example.com")], class: "inet"), changes: [], secret: Self.bytes("pw2"), caller: app)
        found = try #require(try keychain.reopen().find(data, caller: app).items.first)
        #expect(found.secret?.string == "pw2" && found.dataFields["binn"]?.string == "notes" && found.dataFields["bini"]?.string == "newer")
        // Matching by a field is refused, as Apple's query cannot match what has no column.
        let byField = TemporaryKeychain.request([("binn", "notes")], class: "inet")
        #expect(status { _ = try keychain.keychain.find(byField, caller: app) } == -50)
        #expect(status { _ = try keychain.keychain.delete(byField, caller: app) } == -50)
        // Nothing of the fields is readable in the file.
        let file = String(decoding: try Data(contentsOf: URL(fileURLWithPath: keychain.path)), as: UTF8.self)
        #expect(!file.contains("notes") && !file.contains("newer"))
    }

    @Test func anItemWithoutDataReturnsNoneAndTakesDataLater() throws {
        let keychain = try TemporaryKeychain()
        let app = try Fixtures.caller("app.plist")
        _ = try keychain.keychain.add(TemporaryKeychain.request([("svce", "empty")]), secret: nil, caller: app)
        let data = TemporaryKeychain.request([("svce", "empty")], returns: ["data"])
        #expect(try keychain.keychain.find(data, caller: app).items.first?.secret == nil)
        #expect(try keychain.keychain.verify().damaged.isEmpty)
        _ = try keychain.keychain.update(
            TemporaryKeychain.request([("svce", "empty")]), changes: [], secret: Self.bytes("now"), caller: app)
        #expect(try keychain.keychain.find(data, caller: app).items.first?.secret?.string == "now")
    }

    /// The sealed secrets of an envelope row and a bare row, swapped: each is bound to its own
    /// row and purpose, so neither opens (errSecDecode), as data or as an envelope.
    @Test func aSealedSecretMovedBetweenAnEnvelopeRowAndABareRowOpensAsNeither() throws {
        let keychain = try TemporaryKeychain()
        let app = try Fixtures.caller("app.plist")
        _ = try keychain.keychain.add(
            TemporaryKeychain.request([("srvr", "a"), ("binn", "n")], class: "inet"), secret: Self.bytes("pw"), caller: app)
        _ = try keychain.keychain.add(TemporaryKeychain.request([("srvr", "b")], class: "inet"), secret: Self.bytes("pw"), caller: app)
        try tamper(
            keychain.path,
            """
            CREATE TEMP TABLE saved AS SELECT rowid AS r, item_key, secret FROM inet;
            UPDATE inet SET item_key = (SELECT item_key FROM saved WHERE r != inet.rowid),
                            secret = (SELECT secret FROM saved WHERE r != inet.rowid);
            """)
        for server in ["a", "b"] {
            let query = TemporaryKeychain.request([("srvr", server)], class: "inet", returns: ["data"])
            #expect(status { _ = try keychain.reopen().find(query, caller: app) } == -26275, "\(server)")
        }
    }
}

/// The App Clip mark: set by the keychain on an App Clip's adds, never returned, and what
/// removal and promotion go by.
@Suite struct AppClipMarkTests {
    @Test func aClipsItemsAreMarkedAndGoWithTheClip() throws {
        let keychain = try TemporaryKeychain()
        let clip = try Fixtures.caller("app-clip.plist")
        let clipGroup = try #require(clip.groups.applicationIdentifier)
        _ = try keychain.keychain.add(TemporaryKeychain.request([("svce", "clip")]), secret: ItemSecretTests.bytes("s"), caller: clip)
        let found = try keychain.keychain.find(TemporaryKeychain.request([("svce", "clip")]), caller: clip)
        #expect(found.items.first?.item.attributes[Schema.appClipItem] == .bool(true))
        #expect(try keychain.keychain.removeAppClip("SKMME9E2Y8.com.example.other") == 0)
        #expect(try keychain.keychain.removeAppClip(clipGroup) == 1)
        #expect(status { _ = try keychain.keychain.find(TemporaryKeychain.request([("svce", "clip")]), caller: clip) } == -25300)
    }

    @Test func promotionMovesTheItemKeepingItsReferenceAndSecret() throws {
        let keychain = try TemporaryKeychain()
        let clip = try Fixtures.caller("app-clip.plist")
        let app = try Fixtures.caller("app.plist")
        let added = try keychain.keychain.add(
            TemporaryKeychain.request([("svce", "clip")]), secret: ItemSecretTests.bytes("s"), caller: clip)
        let promotion = try keychain.keychain.promoteAppClip(clip.groups.applicationIdentifier!, to: "SKMME9E2Y8.com.example.app")
        #expect(promotion.promoted == 1 && promotion.replaced == 0 && promotion.lost == 0)
        let moved = try #require(
            try keychain.reopen().find(TemporaryKeychain.request([("svce", "clip")], returns: ["attributes", "data"]), caller: app).items
                .first)
        #expect(moved.item.uuid == added.item.uuid && moved.secret?.string == "s")
        #expect(moved.item.attributes[Schema.appClipItem] == nil && moved.item.accessGroup == "SKMME9E2Y8.com.example.app")
    }
}

extension SecretBytes {
    /// These bytes without the last `count`.
    fileprivate func truncated(by count: Int) -> SecretBytes {
        withUnsafeBytes { SecretBytes(copying: Array($0.dropLast(count))) }
    }
}
