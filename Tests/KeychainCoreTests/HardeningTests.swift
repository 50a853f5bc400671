import Foundation
import KeychainTestSupport
import Testing
import TextEscaping

@testable import KeychainCore

/// The store and crypto layers in-process, tried with hostile values (docs/SECURITY.md).
@Suite struct HardeningTests {
    @Test func textWithANulIsBoundAndReadWhole() throws {
        let keychain = try TemporaryKeychain()
        let statement = try keychain.keychain.store.connection.prepare("SELECT ?, length(CAST(? AS BLOB))")
        try statement.bind([.text("VICTIM.app\u{0}x"), .text("VICTIM.app\u{0}x")])
        #expect(try statement.step())
        #expect(statement.text(0) == "VICTIM.app\u{0}x")
        #expect(statement.integer(1) == 12)
    }

    @Test func onlyThePrimaryKeyConstraintIsADuplicate() throws {
        let keychain = try TemporaryKeychain()
        let app = try Fixtures.caller("app.plist")
        try keychain.add([("svce", "one")], as: app)
        let store = keychain.keychain.store
        let row = try #require(try store.row(.genericPassword, rowid: 1))
        // The same UUID under another primary key: the uuid column's UNIQUE, not a duplicate item.
        var copy = row
        copy.digests["svce"] = Array(repeating: 7, count: 16)
        #expect(throws: StoreError.self) { _ = try store.insert(.genericPassword, copy) }
        // The same primary key under another UUID: a duplicate.
        var duplicate = row
        duplicate.uuid = Array(repeating: 9, count: 16)
        #expect(try store.insert(.genericPassword, duplicate) == .duplicate)
    }

    @Test func verifyFindsAndRepairRemovesExactlyTheDamagedRows() throws {
        let keychain = try TemporaryKeychain()
        let app = try Fixtures.caller("app.plist")
        for account in ["a", "b", "c"] { try keychain.add([("svce", "s"), ("acct", account)], as: app) }
        #expect(try keychain.keychain.verify().isClean)
        try keychain.keychain.store.connection.execute("UPDATE genp SET pdmn = 'ck' WHERE rowid = 2")
        let report = try keychain.reopen().verify()
        #expect(report.damaged.map(\.reason) == [.sealedDataAltered])
        #expect(report.rows[.genericPassword] == 3)
        let repaired = try keychain.reopen().repair()
        #expect(repaired.removed.count == 1)
        let after = try keychain.reopen()
        #expect(try after.verify().isClean)
        #expect(try after.find(TemporaryKeychain.request([("svce", "s")], limit: "all"), caller: app).items.count == 2)
    }

    @Test func openedItemsAreCheckedAgainstTheFilter() {
        let item = Item(
            itemClass: .genericPassword, uuid: Array(repeating: 1, count: 16),
            attributes: ["agrp": .string("T.caf\u{E9}"), "sync": .bool(false), "tomb": .bool(false), "pdmn": .string("ak")])
        #expect(RowFilter(groups: ["T.caf\u{E9}"], sync: false).admits(item))
        #expect(!RowFilter(groups: ["T.cafe\u{301}"], sync: false).admits(item))
        #expect(!RowFilter(groups: nil, sync: true).admits(item))
        var tombstones = RowFilter(groups: nil, sync: nil)
        tombstones.tombstone = true
        #expect(!tombstones.admits(item))
    }

    @Test func kdfRecordsRoundTripAndRefuseWhatIsOutOfBounds() throws {
        let fresh = PassphraseKDF.fresh(.interactive)
        #expect(try PassphraseKDF(record: fresh.record) == fresh)
        #expect(throws: StoreError.self) { try PassphraseKDF(opsLimit: 0, memLimit: fresh.memLimit, salt: fresh.salt, encoding: .nfc) }
        #expect(throws: StoreError.self) { try PassphraseKDF(opsLimit: 100, memLimit: fresh.memLimit, salt: fresh.salt, encoding: .nfc) }
        #expect(throws: StoreError.self) { try PassphraseKDF(opsLimit: 2, memLimit: UInt64.max, salt: fresh.salt, encoding: .nfc) }
        #expect(throws: StoreError.self) { try PassphraseKDF(opsLimit: 2, memLimit: fresh.memLimit, salt: [1], encoding: .nfc) }
        #expect(throws: StoreError.self) { try PassphraseKDF(record: Array(fresh.record.dropLast())) }
    }

    @Test func passphrasesAreNormalisedToNFCFromVersion2Only() throws {
        let fresh = PassphraseKDF.fresh(.interactive)
        let composed = SecretBytes(copying: Array("caf\u{E9}".utf8))
        let decomposed = SecretBytes(copying: Array("cafe\u{301}".utf8))
        #expect(try #require(fresh.deriveKey(from: composed)).equals(try #require(fresh.deriveKey(from: decomposed))))
        let raw = try PassphraseKDF(opsLimit: fresh.opsLimit, memLimit: fresh.memLimit, salt: fresh.salt, encoding: .raw)
        #expect(!(try #require(raw.deriveKey(from: composed)).equals(try #require(raw.deriveKey(from: decomposed)))))
    }

    @Test func secretsAreBase64EncodedAndDecodedInGuardedMemory() throws {
        let secret = SecretBytes(copying: [0x00, 0xFF, 0x41, 0x0A])
        let encoded = secret.base64()
        #expect(encoded.string == "AP9BCg==")
        let decoded = try #require(SecretBytes(copying: Array(" AP9B\nCg== ".utf8)).base64Decoded())
        #expect(decoded.equals(secret))
        #expect(SecretBytes(copying: Array("not base64!".utf8)).base64Decoded() == nil)
    }
}

/// The schema check at open compares a constant fingerprint of the derived schema.
@Suite struct SchemaFingerprintTests {
    @Test func theFingerprintIsTheDerivedSchemas() throws {
        // Each table layout's constant is its derived schema's: the older ones are fixed (files of
        // those versions have them), the current one changes with Schema.swift.
        for layout in TableLayout.allCases {
            let derived = Hex.lowercase(Sodium.fingerprint(Array(KeychainSchema.derivedDump(layout).utf8)))
            #expect(
                derived == layout.fingerprint,
                "Schema.swift changed: declare a new TableLayout (and schema version) whose fingerprint is \(derived)")
        }
        #expect(Set(TableLayout.allCases.map(\.fingerprint)).count == TableLayout.allCases.count, "two layouts alike")
        // A real file's rows, in storage order, are the derived dump.
        let keychain = try TemporaryKeychain()
        let rows = try keychain.keychain.store.connection.prepare(KeychainSchema.rowsSQL)
        var dump: [String] = []
        while try rows.step() { dump.append((0..<4).map { rows.isNull($0) ? "NULL" : rows.text($0) }.joined(separator: "\u{1}")) }
        #expect(dump.joined(separator: "\u{2}") == KeychainSchema.derivedDump(.current))
    }

    /// The layouts say which columns each schema version's tables have and how an upgrade fills a
    /// new one: the declaration the create statements, the check and the upgrade read.
    @Test func eachLayoutDeclaresItsColumnsAndTheirFill() {
        let table = KeychainStore.table(.genericPassword).createStatements(layout: .original)[0]
        #expect(!table.contains("accc") && table.contains("pdmn TEXT NOT NULL"), "\(table)")
        #expect(KeychainStore.table(.genericPassword).createStatements()[0].contains("accc TEXT NOT NULL"))
        #expect(TableLayout.original.source(of: "accc") == "pdmn")
        #expect(TableLayout.original.source(of: "agrp") == "agrp")
        #expect(TableLayout.current.source(of: "accc") == "accc")
        #expect(TableLayout.original.next == .accessControl && TableLayout.current.next == nil)
        let versions = TableLayout.allCases.map(\.firstSchemaVersion)
        #expect(versions == versions.sorted() && Set(versions).count == versions.count && versions.first == 1)
        #expect(TableLayout.current.firstSchemaVersion <= KeychainStore.schemaVersion)
    }

    /// VACUUM stores the same objects in another order (tables first): the fingerprint differs,
    /// the objects do not, and the file opens. An extra object still refuses it.
    @Test func theSameObjectsInAnotherOrderStillOpen() throws {
        let keychain = try TemporaryKeychain()
        let app = try Fixtures.caller("app.plist")
        _ = try keychain.add([("svce", "s")], as: app)
        try keychain.keychain.store.connection.execute("VACUUM")
        let order = try keychain.keychain.store.connection.prepare("SELECT name FROM sqlite_schema")
        var names: [String] = []
        while try order.step() { names.append(order.text(0)) }
        #expect(names.firstIndex(of: "genp_h_svce")! > names.firstIndex(of: "keys")!, "VACUUM kept the order: \(names)")
        #expect(try keychain.reopen().find(TemporaryKeychain.request([("svce", "s")]), caller: app).items.count == 1)
        try keychain.keychain.store.connection.execute("CREATE INDEX extra ON genp(h_acct)")
        #expect(throws: StoreError.self) { _ = try keychain.reopen() }
    }
}

/// The review's low findings on semantics (L7).
@Suite struct SemanticsOddsTests {
    @Test func datesAreRealCalendarDates() {
        #expect(ISO8601.parse("2001-02-31T00:00:00Z") == nil)
        #expect(ISO8601.parse("2001-04-31T00:00:00Z") == nil)
        #expect(ISO8601.parse("1900-02-29T00:00:00Z") == nil)
        #expect(ISO8601.parse("2000-02-29T00:00:00Z") != nil)
        #expect(ISO8601.parse("2024-02-29T23:59:59.999Z").map(ISO8601.format) == "2024-02-29T23:59:59.999Z")
    }

    /// The keychain sets both dates (docs/FIDELITY.md): an update or an add -U cannot move them.
    @Test func updateAndAddUpdateKeepTheCreationDate() throws {
        let keychain = try TemporaryKeychain()
        let app = try Fixtures.caller("app.plist")
        try keychain.add([("svce", "dated")], as: app)
        let before = try keychain.keychain.find(TemporaryKeychain.request([("svce", "dated")]), caller: app).items[0].item
        _ = try keychain.keychain.update(
            TemporaryKeychain.request([("svce", "dated")]), changes: [("cdat", "1970-01-01T00:00:00Z"), ("labl", "x")], secret: nil,
            caller: app)
        var after = try keychain.keychain.find(TemporaryKeychain.request([("svce", "dated")]), caller: app).items[0].item
        #expect(after.attributes["cdat"] == before.attributes["cdat"])
        #expect(after.attributes["labl"] == .string("x"))
        _ = try keychain.keychain.add(
            TemporaryKeychain.request([("svce", "dated"), ("cdat", "1970-01-01T00:00:00Z")]), secret: SecretBytes(copying: Array("n".utf8)),
            caller: app, updateExisting: true)
        after = try keychain.keychain.find(TemporaryKeychain.request([("svce", "dated")]), caller: app).items[0].item
        #expect(after.attributes["cdat"] == before.attributes["cdat"])
    }
}

/// The query planner with many accounts under one service (review M7).
@Suite struct QueryPlanTests {
    @Test func aQueryNamingTheWholeKeyUsesThePrimaryKeyIndexAndKeepsInsertionOrder() throws {
        let keychain = try TemporaryKeychain()
        let app = try Fixtures.caller("app.plist")
        for index in 0..<300 { try keychain.add([("svce", "crowded"), ("acct", "a\(index)")], as: app) }
        // The same account and service in two groups, the second group's first.
        try keychain.add([("svce", "twice"), ("acct", "x"), ("agrp", "SKMME9E2Y8.com.example.shared")], secret: "shared", as: app)
        try keychain.add([("svce", "twice"), ("acct", "x"), ("agrp", "SKMME9E2Y8.com.example.app")], secret: "app", as: app)
        let digests = keychain.keychain.keys.digests
        var pinned = RowFilter(groups: app.groups.readable, sync: false)
        pinned.digests = [
            DigestedAttribute(
                column: "h_acct", digest: digests.digest(.genericPassword, code: "acct", value: Array("nobody".utf8)), code: "acct",
                value: .string("nobody")),
            DigestedAttribute(
                column: "h_svce", digest: digests.digest(.genericPassword, code: "svce", value: Array("crowded".utf8)), code: "svce",
                value: .string("crowded")),
        ]
        let plan = try keychain.keychain.store.queryPlan(.genericPassword, filter: pinned, limit: 1)
        #expect(plan.contains("sqlite_autoindex_genp_2"), "\(plan)")
        var byService = RowFilter(groups: app.groups.readable, sync: false)
        byService.digests = [pinned.digests[1]]
        #expect(try keychain.keychain.store.queryPlan(.genericPassword, filter: byService, limit: 1).contains("genp_h_svce"))
        let found = try keychain.keychain.find(
            TemporaryKeychain.request([("svce", "twice"), ("acct", "x")], limit: "all", returns: ["attributes"]), caller: app)
        #expect(found.items.map(\.item.accessGroup) == ["SKMME9E2Y8.com.example.shared", "SKMME9E2Y8.com.example.app"])
        let first = try keychain.keychain.find(
            TemporaryKeychain.request([("svce", "twice"), ("acct", "x")], returns: ["attributes"]), caller: app)
        #expect(first.items.map(\.item.accessGroup) == ["SKMME9E2Y8.com.example.shared"])
    }
}

/// Profile files mutated at random: the plist shape check and the decoder together never crash.
@Suite struct ProfileMutationTests {
    /// Every truncation and 1,500 random byte mutations each of a binary and an XML profile:
    /// each loads or fails with a ProfileError, never a crash or a hang.
    @Test func mutatedProfilesLoadOrFailCleanly() throws {
        let folder = NSTemporaryDirectory() + "keychainctl-mutate-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var generator = SeededRandom()
        // Printed first: a crash ends the process before any expectation could name it.
        print("ProfileMutationTests: \(generator)")
        var outcomes = (loaded: 0, refused: 0)
        for name in ["app-binary.plist", "app.plist", "app.mobileprovision"] {
            let original = Array(try Data(contentsOf: URL(fileURLWithPath: Fixtures.path(name))))
            var variants = (0..<original.count).map { Array(original.prefix($0)) }
            for _ in 0..<1500 {
                var mutated = original
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    mutated[Int.random(in: 0..<mutated.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                }
                variants.append(mutated)
            }
            for (index, bytes) in variants.enumerated() {
                let path = "\(folder)/\(index)-\(name)"
                try #require(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
                do {
                    _ = try ProfileDocument.load(path: path)
                    outcomes.loaded += 1
                } catch {
                    outcomes.refused += 1
                }
                try? FileManager.default.removeItem(atPath: path)
            }
        }
        #expect(outcomes.loaded > 0 && outcomes.refused > 0, "\(generator)")
    }

    /// The byte scan for control characters agrees with the scalar definition for every scalar up
    /// to U+0800 (C0, DEL, C1 and their neighbours, alone and between other text).
    @Test func controlCharacterScanAgreesWithTheScalarRule() {
        for value in UInt32(0)...0x800 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = "a" + String(Character(scalar)) + "\u{E9}"
            #expect(text.containsControlCharacters == String.isControl(scalar), "U+\(String(value, radix: 16))")
        }
    }
}
