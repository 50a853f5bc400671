import Testing

@testable import KeychainCore

/// docs/FIDELITY.md for generic and internet passwords, row by row.
@Suite struct ItemSemanticsTests {
    let app: Caller
    let keychain: TemporaryKeychain

    init() throws {
        app = try Fixtures.caller("app.plist")
        keychain = try TemporaryKeychain()
    }

    func find(_ pairs: [(String, String)], class itemClass: String? = nil, limit: String? = nil, returns: [String] = [])
        throws -> Keychain.FindResult
    {
        try keychain.keychain.find(TemporaryKeychain.request(pairs, class: itemClass, limit: limit, returns: returns), caller: app)
    }

    /// A class is its code or its hyphenated name, exactly as written; completion offers every
    /// spelling the parser takes, and nothing else.
    @Test func aClassIsItsCodeOrItsNameExactly() {
        let spelled: [(String, ItemClass)] = [
            ("genp", .genericPassword), ("generic-password", .genericPassword), ("inet", .internetPassword),
            ("internet-password", .internetPassword), ("cert", .certificate), ("certificate", .certificate), ("keys", .key),
            ("key", .key), ("idnt", .identity), ("identity", .identity),
        ]
        for (text, itemClass) in spelled { #expect(ItemClass(parsing: text) == itemClass, "\(text)") }
        #expect(Set(ItemClass.spellings) == Set(spelled.map(\.0)) && ItemClass.spellings.count == spelled.count)
        #expect(ItemClass.spellings.prefix(5) == ["genp", "inet", "cert", "keys", "idnt"])
        for text in ["", "GENP", "generic password", "Generic-Password", "keys ", "password", "genp\u{0}"] {
            #expect(ItemClass(parsing: text) == nil, "\(text)")
        }
    }

    @Test func primaryKeyDefaultsMakeTwoBareAddsCollide() throws {
        try keychain.add([], as: app)
        #expect(status { try keychain.add([], as: app) } == -25299)
        let item = try find([]).items[0].item
        #expect(item.attributes["acct"] == .string(""))
        #expect(item.attributes["svce"] == .string(""))
    }

    /// kSecAttrSynchronizable as the library binds it (typed, never a word) is the same attribute
    /// as the command line's `sync` word: it decides an add's item and a query's filter, meets the
    /// same checks (an access control with sync yes, an update to any), and two different are
    /// errSecParam.
    @Test func aTypedSyncIsTheSyncAttribute() throws {
        var add = TemporaryKeychain.request([("svce", "typed")])
        add.sync = .yes
        _ = try keychain.keychain.add(add, secret: SecretBytes(copying: Array("s".utf8)), caller: app)
        var query = TemporaryKeychain.request([("svce", "typed")])
        #expect(status { _ = try keychain.keychain.find(query, caller: app) } == -25300, "a query defaults to sync no")
        query.sync = .yes
        #expect(try keychain.keychain.find(query, caller: app).items.first?.item.isSynchronizable == true)
        query.sync = .any
        #expect(try keychain.keychain.find(query, caller: app).items.count == 1)

        var both = TemporaryKeychain.request([("svce", "typed"), ("sync", "yes")])
        both.sync = .no
        #expect(status { _ = try keychain.keychain.find(both, caller: app) } == -50, "two different syncs")
        both.sync = .yes
        #expect(try keychain.keychain.find(both, caller: app).items.count == 1, "the same sync twice is one")

        var guarded = TemporaryKeychain.request([("svce", "guarded")])
        guarded.sync = .yes
        guarded.accessControl = AccessControlRequest(flags: "user-presence")
        #expect(status { _ = try keychain.keychain.add(guarded, secret: SecretBytes(copying: [1]), caller: app) } == -50)

        var selected = TemporaryKeychain.request([("svce", "typed")])
        selected.sync = .yes
        let toAny = {
            _ = try keychain.keychain.update(selected, changes: [], syncChange: .any, secret: nil, caller: app)
        }
        #expect(status(toAny) == -50, "an item is synchronizable or not")
        _ = try keychain.keychain.update(selected, changes: [], syncChange: .no, secret: nil, caller: app)
        #expect(try find([("svce", "typed")]).items.count == 1, "now a local item")
    }

    @Test func groupAndSyncArePartOfIdentity() throws {
        try keychain.add([("svce", "api"), ("acct", "a")], as: app)
        try keychain.add([("svce", "api"), ("acct", "a"), ("agrp", Fixtures.sharedGroup)], as: app)
        try keychain.add([("svce", "api"), ("acct", "a"), ("sync", "yes")], as: app)
        #expect(try find([("svce", "api")], limit: "all").items.count == 2)
        #expect(try find([("svce", "api")], limit: "all", returns: []).items.count == 2)
        #expect(try find([("svce", "api"), ("sync", "any")], limit: "all").items.count == 3)
        #expect(try find([("svce", "api"), ("sync", "yes")], limit: "all").items.count == 1)
    }

    @Test func internetPasswordKeyIncludesServerProtocolAndPort() throws {
        try keychain.add([("srvr", "example.com"), ("acct", "u"), ("ptcl", "https"), ("port", "443")], class: "inet", as: app)
        try keychain.add([("srvr", "example.com"), ("acct", "u"), ("ptcl", "https"), ("port", "8443")], class: "inet", as: app)
        #expect(
            status {
                try keychain.add([("srvr", "example.com"), ("acct", "u"), ("ptcl", "htps"), ("port", "443")], class: "inet", as: app)
            } == -25299)
        let found = try find([("srvr", "example.com"), ("port", "443")], class: "internet-password")
        #expect(found.items[0].item.attributes["ptcl"] == .fourCharCode("htps"))
        #expect(found.items[0].item.attributes["port"] == .number(443))
        #expect(status { try keychain.add([("svce", "x")], class: "inet", as: app) } == -25303)
    }

    @Test func matchingIsExactBytesAndCaseSensitive() throws {
        try keychain.add([("svce", "API"), ("gena", "blob")], as: app)
        #expect(status { _ = try find([("svce", "api")]) } == -25300)
        #expect(try find([("svce", "API")]).items.count == 1)
        // A string and the same bytes as data are equal.
        #expect(try find([("gena", "base64:YmxvYg==")]).items.count == 1)
    }

    @Test func datesAreSetByTheKeychainAndModificationAlwaysMovesForward() throws {
        let added = try keychain.add([("svce", "api")], as: app)
        guard case .date(let created) = added.attributes["cdat"], case .date(let modified) = added.attributes["mdat"] else {
            Issue.record("no dates")
            return
        }
        #expect(created == modified)
        var last = modified
        for label in ["a", "b", "c"] {
            _ = try keychain.keychain.update(
                TemporaryKeychain.request([("svce", "api")]), changes: [("labl", label)], secret: nil, caller: app)
            let item = try find([("svce", "api")]).items[0].item
            guard case .date(let next) = item.attributes["mdat"] else {
                Issue.record("the update after \(label) lost mdat: \(item.attributes["mdat"] as Any)")
                return
            }
            #expect(next > last)
            #expect(item.attributes["cdat"] == .date(created))
            last = next
        }
    }

    @Test func defaultAccessibilityIsWhenUnlockedAndInvalidValuesAreParamErrors() throws {
        #expect(try keychain.add([("svce", "a")], as: app).attributes["pdmn"] == .string("ak"))
        #expect(try keychain.add([("srvr", "a")], class: "inet", as: app).attributes["pdmn"] == .string("ak"))
        #expect(
            try keychain.add([("svce", "b"), ("pdmn", "after-first-unlock-this-device-only")], as: app).attributes["pdmn"] == .string("cku")
        )
        #expect(status { try keychain.add([("svce", "c"), ("pdmn", "sometimes")], as: app) } == -50)
        #expect(status { try keychain.add([("svce", "c"), ("port", "eighty")], as: app) } == -25303)
        #expect(status { try keychain.add([("srvr", "c"), ("invi", "maybe")], class: "inet", as: app) } == -50)
        // A number attribute keeps text that is not an integer as text (SecDbItem.c, copyNumber).
        #expect(try keychain.add([("srvr", "c"), ("port", "eighty")], class: "inet", as: app).attributes["port"] == .string("eighty"))
        #expect(try keychain.add([("srvr", "d"), ("port", "443")], class: "inet", as: app).attributes["port"] == .number(443))
        #expect(status { try keychain.add([("svce", "c")], class: "nope", as: app) } == -25306)
    }

    @Test func limitsShapeTheResult() throws {
        for account in ["a", "b", "c"] { try keychain.add([("svce", "api"), ("acct", account)], as: app) }
        #expect(try find([("svce", "api")]).query.limit == .one)
        #expect(try find([("svce", "api")]).items.count == 1)
        #expect(try find([("svce", "api")], limit: "1").query.limit == .one)
        #expect(try find([("svce", "api")], limit: "2").items.count == 2)
        #expect(try find([("svce", "api")], limit: "all").items.count == 3)
        #expect(status { _ = try find([("svce", "api")], limit: "0") } == -50)
        #expect(status { _ = try find([("svce", "none")], limit: "all") } == -25300)
    }

    @Test func syncAnyOnAddStoresANonSynchronizableItem() throws {
        let item = try keychain.add([("svce", "api"), ("sync", "any")], as: app)
        #expect(item.attributes["sync"] == .bool(false))
        #expect(try find([("svce", "api")]).items.count == 1)
    }

    @Test func returnOptionsDecideWhatIsOpened() throws {
        try keychain.add([("svce", "api")], secret: "hunter2", as: app)
        #expect(try find([("svce", "api")]).items[0].secret == nil)
        let withData = try find([("svce", "api")], returns: ["data", "attributes"])
        #expect(withData.items[0].secret?.string == "hunter2")
        #expect(withData.query.returns == [.data, .attributes])
        #expect(try find([("svce", "api")], returns: ["data"]).query.returns.isBareValue)
        #expect(status { _ = try find([("svce", "api")], returns: ["everything"]) } == -50)
    }

    @Test func persistentReferenceIsStableAcrossUpdatesThatMoveTheItem() throws {
        let item = try keychain.add([("svce", "api"), ("acct", "a")], as: app)
        #expect(item.persistentRef.bytes.count == 20)
        #expect(item.persistentRef.bytes.prefix(4) == Array("genp".utf8)[...])
        _ = try keychain.keychain.update(
            TemporaryKeychain.request([("svce", "api")]), changes: [("acct", "b"), ("agrp", Fixtures.sharedGroup)], secret: nil,
            caller: app)
        var request = ItemRequest()
        request.persistentRef = item.persistentRef.base64
        let found = try keychain.keychain.find(request, caller: app)
        #expect(found.items[0].item.attributes["acct"] == .string("b"))
        #expect(found.items[0].item.accessGroup == Fixtures.sharedGroup)
        // The access-group filter still applies to a reference.
        #expect(status { _ = try keychain.keychain.find(request, caller: try Fixtures.caller("widget.plist")) } == -25300)
    }

    @Test func updateIsAllOrNothingOnCollision() throws {
        try keychain.add([("svce", "api"), ("acct", "a")], as: app)
        try keychain.add([("svce", "api"), ("acct", "b")], as: app)
        let result = status {
            _ = try keychain.keychain.update(
                TemporaryKeychain.request([("svce", "api")]), changes: [("acct", "same"), ("labl", "L")], secret: nil, caller: app)
        }
        #expect(result == -25299)
        let accounts = try find([("svce", "api")], limit: "all").items.map { $0.item.attributes["acct"] }
        #expect(accounts == [.string("a"), .string("b")])
        #expect(try find([("svce", "api")], limit: "all").items.allSatisfy { $0.item.attributes["labl"] == nil })
    }

    /// An update's new data may be empty (securityd's `query_set_data` checks only that it is data).
    @Test func updateChangesTheSecretEvenToAnEmptyOne() throws {
        try keychain.add([("svce", "api")], secret: "old", as: app)
        _ = try keychain.keychain.update(
            TemporaryKeychain.request([("svce", "api")]), changes: [], secret: SecretBytes(count: 0), caller: app)
        #expect(try find([("svce", "api")], returns: ["data"]).items[0].secret?.string == "")
        _ = try keychain.keychain.update(
            TemporaryKeychain.request([("svce", "api")]), changes: [], secret: SecretBytes(copying: Array("new".utf8)), caller: app)
        #expect(try find([("svce", "api")], returns: ["data"]).items[0].secret?.string == "new")
        // A move re-seals the secret for its new group; it still opens.
        _ = try keychain.keychain.update(
            TemporaryKeychain.request([("svce", "api")]), changes: [("pdmn", "ck"), ("agrp", "group.com.example")], secret: nil, caller: app
        )
        #expect(try find([("svce", "api")], returns: ["data"]).items[0].secret?.string == "new")
    }

    @Test func dryRunsCheckEverythingAndChangeNothing() throws {
        try keychain.add([("svce", "api"), ("acct", "a")], as: app)
        let listed = try keychain.keychain.update(
            TemporaryKeychain.request([("svce", "api")]), changes: [("acct", "b")], secret: nil, caller: app, dryRun: true)
        #expect(listed.items.count == 1)
        #expect(try find([("svce", "api")]).items[0].item.attributes["acct"] == .string("a"))
        let deleted = try keychain.keychain.delete(TemporaryKeychain.request([("svce", "api")]), caller: app, dryRun: true)
        #expect(deleted.items.count == 1)
        #expect(try find([("svce", "api")]).items.count == 1)
    }

    @Test func deleteRemovesEveryMatchAndSyncItemsLeaveTombstones() throws {
        try keychain.add([("svce", "api"), ("acct", "a")], as: app)
        try keychain.add([("svce", "api"), ("acct", "b")], as: app)
        try keychain.add([("svce", "api"), ("acct", "c"), ("sync", "yes")], as: app)
        #expect(try keychain.keychain.delete(TemporaryKeychain.request([("svce", "api")]), caller: app).count == 2)
        #expect(try keychain.keychain.delete(TemporaryKeychain.request([("svce", "api"), ("sync", "yes")]), caller: app).count == 1)
        #expect(status { _ = try find([("svce", "api"), ("sync", "any")]) } == -25300)
        let tombstones = try keychain.keychain.store.rows(
            .genericPassword, filter: RowFilter(groups: nil, sync: nil).tombstones, withSecret: true)
        #expect(tombstones.count == 1)
        #expect(tombstones[0].row.secret == nil)
        // An add that collides with a tombstone replaces it silently.
        try keychain.add([("svce", "api"), ("acct", "c"), ("sync", "yes")], as: app)
        #expect(
            try keychain.keychain.store.rows(.genericPassword, filter: RowFilter(groups: nil, sync: nil).tombstones, withSecret: false)
                .isEmpty)
    }

    @Test func changingASyncItemsKeyLeavesATombstone() throws {
        try keychain.add([("svce", "api"), ("acct", "a"), ("sync", "yes")], as: app)
        _ = try keychain.keychain.update(
            TemporaryKeychain.request([("svce", "api"), ("sync", "yes")]), changes: [("acct", "b")], secret: nil, caller: app)
        #expect(
            try keychain.keychain.store.rows(.genericPassword, filter: RowFilter(groups: nil, sync: nil).tombstones, withSecret: false)
                .count == 1)
        _ = try keychain.keychain.update(
            TemporaryKeychain.request([("svce", "api"), ("sync", "yes")]), changes: [("labl", "only a label")], secret: nil, caller: app)
        #expect(
            try keychain.keychain.store.rows(.genericPassword, filter: RowFilter(groups: nil, sync: nil).tombstones, withSecret: false)
                .count == 1)
    }

    @Test func addWithUpdateExistingKeepsTheReferenceAndCreationDate() throws {
        let first = try keychain.add([("svce", "api"), ("labl", "one")], secret: "a", as: app)
        let result = try keychain.keychain.add(
            TemporaryKeychain.request([("svce", "api"), ("icmt", "two")]), secret: SecretBytes(copying: Array("b".utf8)), caller: app,
            updateExisting: true)
        #expect(result.updatedExisting)
        #expect(result.item.persistentRef == first.persistentRef)
        #expect(result.item.attributes["cdat"] == first.attributes["cdat"])
        let found = try find([("svce", "api")], returns: ["data", "attributes"]).items[0]
        #expect(found.secret?.string == "b")
        #expect(found.item.attributes["labl"] == .string("one"))
        #expect(found.item.attributes["icmt"] == .string("two"))
    }

    @Test func syncThisDeviceOnlyIsStoredWithAWarning() throws {
        let result = try keychain.keychain.add(
            TemporaryKeychain.request([("svce", "api"), ("sync", "yes"), ("pdmn", "aku")]), secret: SecretBytes(copying: [1]), caller: app)
        #expect(result.warnings.count == 1)
    }
}

extension RowFilter {
    /// This filter, selecting tombstones instead of live items.
    var tombstones: RowFilter {
        var copy = self
        copy.tombstone = true
        return copy
    }
}
