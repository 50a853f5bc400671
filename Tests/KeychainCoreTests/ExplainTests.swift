import Testing

@testable import KeychainCore

/// `explain` predicts what the call returns and says why each item is (not) seen.
@Suite struct ExplainTests {
    /// Apple's entitlement matrix: for every case, explain predicts the status the call returns.
    @Test(arguments: AccessMatrixTests.cases)
    func predictsTheStatusTheCallReturns(_ testCase: AccessMatrixTests.Case) throws {
        let keychain = try TemporaryKeychain()
        try keychain.add([("svce", "api"), ("acct", "ci"), ("agrp", Fixtures.sharedGroup)], as: try Fixtures.caller("app.plist"))
        let caller = try Fixtures.caller(testCase.profile)
        var pairs: [(String, String)] = [("svce", "api"), ("acct", "ci")]
        if let group = testCase.group { pairs.append(("agrp", group)) }
        let operation = Explanation.Operation(rawValue: testCase.operation.rawValue)!
        let explanation = try keychain.keychain.explain(operation, TemporaryKeychain.request(pairs), caller: caller)
        #expect((explanation.predicted?.status.rawValue ?? 0) == testCase.expected)
    }

    @Test func aServiceThatDiffersIsANearMissNamingBothValues() throws {
        let keychain = try TemporaryKeychain()
        try keychain.add(
            [("svce", "com.example.app"), ("acct", "token"), ("agrp", Fixtures.sharedGroup)], as: try Fixtures.caller("app.plist"))
        let explanation = try keychain.keychain.explain(
            .find, TemporaryKeychain.request([("svce", "com.example.app.share"), ("acct", "token")]),
            caller: try Fixtures.caller("share-extension.plist"))
        #expect(explanation.predicted?.status == .itemNotFound)
        let candidate = try #require(explanation.candidates.first)
        #expect(candidate.verdict == .nearMiss)
        #expect(candidate.reasons.map(\.code) == [.attributeMismatch])
        #expect(candidate.reasons.first?.attribute == "svce")
        #expect(candidate.reasons.first?.itemValue == "com.example.app")
        #expect(candidate.reasons.first?.queryValue == "com.example.app.share")
    }

    @Test func implicitFiltersHideAndSaySo() throws {
        let keychain = try TemporaryKeychain()
        let app = try Fixtures.caller("app.plist")
        try keychain.add([("svce", "api"), ("acct", "private")], as: app)  // the app's default group
        try keychain.add([("svce", "api"), ("acct", "synced"), ("agrp", "group.com.example"), ("sync", "yes")], as: app)
        let explanation = try keychain.keychain.explain(
            .find, TemporaryKeychain.request([("svce", "api")]), caller: try Fixtures.caller("widget.plist"))
        #expect(explanation.predicted?.status == .itemNotFound)
        let codes = explanation.candidates.map { ($0.verdict, $0.reasons.map(\.code)) }
        #expect(codes.contains { $0.0 == .hidden && $0.1 == [.groupNotEntitled] })
        #expect(codes.contains { $0.0 == .hidden && $0.1 == [.syncFilter] })
        // With --sync any the synchronizable item is visible and the call succeeds.
        let any = try keychain.keychain.explain(
            .find, TemporaryKeychain.request([("svce", "api"), ("sync", "any")]), caller: try Fixtures.caller("widget.plist"))
        #expect(any.predicted == nil)
        #expect(any.candidates.contains { $0.verdict == .visible && $0.item.attributes["acct"] == .string("synced") })
    }

    @Test func aLockedMatchBlocksTheWholeCallAndNarrowingAvoidsIt() throws {
        let keychain = try TemporaryKeychain()
        let app = try Fixtures.caller("app.plist")
        try keychain.add([("svce", "api"), ("acct", "a"), ("pdmn", "ck")], as: app)
        try keychain.add([("svce", "api"), ("acct", "b"), ("pdmn", "ak")], as: app)
        _ = try keychain.keychain.changeDevice(.lock)
        let request = TemporaryKeychain.request([("svce", "api")], limit: "all")
        let explanation = try keychain.keychain.explain(.find, request, caller: app)
        let actual = status { _ = try keychain.keychain.find(request, caller: app) }
        #expect(actual == -25308)
        #expect(explanation.predicted?.status.rawValue == actual)
        let blocked = try #require(explanation.candidates.first { $0.verdict == .blocked })
        #expect(blocked.reasons.map(\.code) == [.locked])
        #expect(!blocked.opened)  // its attributes stay sealed
        #expect(blocked.item.attributes["acct"] == nil)
        let narrowed = try keychain.keychain.explain(
            .find, TemporaryKeychain.request([("svce", "api"), ("pdmn", "ck")], limit: "all"), caller: app)
        #expect(narrowed.predicted == nil)
    }

    @Test func otherTeamsGroupAndIgnoredAppGroupsAreNamed() throws {
        let keychain = try TemporaryKeychain()
        try keychain.add(
            [("svce", "api"), ("acct", "x"), ("agrp", "ZZZZZ99999.com.example.shared")], as: try Fixtures.caller("other-team.plist"))
        try keychain.add([("svce", "api"), ("acct", "y"), ("agrp", "group.com.example")], as: try Fixtures.caller("app.plist"))
        let mac = Caller(try Fixtures.profile("mac-app.entitlements", platform: .macos))
        let explanation = try keychain.keychain.explain(.find, TemporaryKeychain.request([("svce", "api")]), caller: mac)
        let codes = explanation.candidates.flatMap { $0.reasons.map(\.code) }
        #expect(codes.contains(.groupOtherTeam))
        #expect(codes.contains(.appGroupIgnoredPlatform))
    }

    @Test func anAddsTwinByPrimaryKeyIsBlockedEvenIfAFindWouldMissIt() throws {
        let keychain = try TemporaryKeychain()
        let app = try Fixtures.caller("app.plist")
        try keychain.add([("svce", "api"), ("acct", "a"), ("labl", "old")], as: app)
        let request = TemporaryKeychain.request([("svce", "api"), ("acct", "a"), ("labl", "new")])
        #expect(status { _ = try keychain.keychain.find(request, caller: app) } == -25300)
        let explanation = try keychain.keychain.explain(.add, request, caller: app)
        #expect(explanation.predicted?.status == .duplicateItem)
        #expect(explanation.candidates.first?.reasons.map(\.code) == [.primaryKeyCollision])
    }

    @Test func candidatesAreCappedAndTheRestCounted() throws {
        let keychain = try TemporaryKeychain()
        let app = try Fixtures.caller("app.plist")
        for index in 0..<30 { try keychain.add([("svce", "api"), ("acct", "user\(index)")], as: app) }
        try keychain.add([("svce", "other"), ("acct", "far"), ("labl", "x")], as: app)
        let explanation = try keychain.keychain.explain(
            .find, TemporaryKeychain.request([("svce", "api"), ("acct", "nobody"), ("labl", "y")]), caller: app, limit: 5)
        #expect(explanation.candidates.count == 5)
        #expect(explanation.omitted == 25)
        #expect(explanation.unrelated == 1)
    }

    /// Someone without the key moves a row into the extension's group by editing its plaintext
    /// column: explain lists it as damaged (its sealed attributes no longer open), never as
    /// locked, never with another item's values, and the call still predicts what find returns.
    @Test func aRowEditedWithoutTheKeyIsNamedDamaged() throws {
        let keychain = try TemporaryKeychain()
        try keychain.add([("svce", "com.example.app"), ("acct", "token")], as: try Fixtures.caller("app.plist"))
        let connection = try SQLiteConnection(path: keychain.path, create: false)
        try connection.execute("UPDATE genp SET agrp = 'SKMME9E2Y8.com.example.app.share'")
        let reopened = try keychain.reopen()
        let share = try Fixtures.caller("share-extension.plist")
        let request = TemporaryKeychain.request([("svce", "com.example.app.share"), ("acct", "token")])
        let explanation = try reopened.explain(.find, request, caller: share)
        #expect(explanation.predicted?.status.rawValue == status { _ = try reopened.find(request, caller: share) })
        let candidate = try #require(explanation.candidates.first)
        #expect(!candidate.opened)
        #expect(candidate.notes.contains(.damaged))
        #expect(candidate.item.attributes["acct"] == nil)
        #expect(candidate.reasons.first?.text.contains("the item is damaged") == true)
    }
}
