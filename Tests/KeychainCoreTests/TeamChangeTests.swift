import Testing

@testable import KeychainCore

/// In-process: what an app transfer does to a target's groups and items.
@Suite struct TeamChangeTests {
    @Test func theOldPrefixMovesAndAppGroupsKeepTheirNames() throws {
        let groups = try Fixtures.profile("app.plist").accessGroups
        let change = TeamChange(from: "SKMME9E2Y8", to: "ZZZZZ99999")
        #expect(change.lost(in: groups) == ["SKMME9E2Y8.com.example.app", "SKMME9E2Y8.com.example.shared"])
        #expect(change.kept(in: groups) == ["group.com.example"])
        let moved = change.moved(groups)
        #expect(moved.groups == ["ZZZZZ99999.com.example.app", "ZZZZZ99999.com.example.shared", "group.com.example"])
        #expect(moved.entries.map(\.source) == groups.entries.map(\.source), "provenance is kept")
        #expect(change.destination(for: groups) == "group.com.example")
        #expect(
            change.plan(for: groups, profile: "app.plist") == [
                "keychainctl migrate-group --profile app.plist --copy --from SKMME9E2Y8.com.example.app --to group.com.example",
                "keychainctl migrate-group --profile app.plist --copy --from SKMME9E2Y8.com.example.shared --to group.com.example",
            ])
    }

    @Test func nothingIsLostWithoutTheOldPrefixOrWithTheSameTeam() throws {
        let groups = try Fixtures.profile("app.plist").accessGroups
        #expect(TeamChange(from: "SKMME9E2Y8", to: "SKMME9E2Y8").lost(in: groups).isEmpty)
        #expect(TeamChange(from: nil, to: "ZZZZZ99999").lost(in: groups).isEmpty)
        #expect(TeamChange(from: nil, to: "ZZZZZ99999").moved(groups) == groups)
        // Without an app group the plan proposes one named after the default group.
        let other = try Fixtures.profile("other-team.plist").accessGroups
        #expect(TeamChange(from: "ZZZZZ99999", to: "SKMME9E2Y8").destination(for: other) == "group.com.example.shared")
    }

    @Test(
        arguments: [
            ("app.plist", nil, nil, "SKMME9E2Y8"),
            ("other-team.plist", nil, nil, "ZZZZZ99999"),
            ("mac-appid-only.plist", nil, Platform.macos, "SKMME9E2Y8"),  // ignored on macOS, but it is still the team
            ("source-variables.entitlements", "dev-app.mobileprovision", nil, "SKMME9E2Y8"),
            ("no-entitlements.plist", nil, nil, nil),
        ] as [(String, String?, Platform?, String?)])
    func theTeamComesFromTheProfile(_ name: String, _ provisioning: String?, _ platform: Platform?, _ team: String?) throws {
        #expect(try Fixtures.profile(name, provisioning: provisioning, platform: platform).team == team)
    }

    @Test(arguments: [("ZZZZZ99999", true), ("zzzzz99999", false), ("ZZZZZ9999", false), ("ZZZZZ99999.", false), ("", false)])
    func teamIDsAreTenUpperCaseLettersOrDigits(_ text: String, _ valid: Bool) {
        #expect(TeamChange.isTeamID(text) == valid)
    }

    /// Items are counted per group over every class; tombstones are not items, and the plan skips
    /// lost groups that hold nothing.
    @Test func theReportCountsItemsAndPlansOnlyForHeldGroups() throws {
        let temporary = try TemporaryKeychain()
        let app = try Fixtures.caller("app.plist")
        try temporary.add([("acct", "a")], as: app)
        try temporary.add([("acct", "b")], as: app)
        try temporary.add([("srvr", "example.com")], class: "inet", as: app)
        try temporary.add([("acct", "gone"), ("sync", "1")], as: app)
        _ = try temporary.keychain.delete(TemporaryKeychain.request([("acct", "gone"), ("sync", "1")]), caller: app)
        try temporary.add([("acct", "c"), ("agrp", "group.com.example")], as: app)
        let report = try temporary.keychain.assess(TeamChange(from: "SKMME9E2Y8", to: "ZZZZZ99999"), groups: app.groups)
        #expect(report.lost.map(\.name) == ["SKMME9E2Y8.com.example.app", "SKMME9E2Y8.com.example.shared"])
        #expect(report.lost.map(\.items) == [3, 0])
        #expect(report.kept.map(\.items) == [1])
        #expect(report.plan == ["keychainctl migrate-group --copy --from SKMME9E2Y8.com.example.app --to group.com.example"])
    }
}
