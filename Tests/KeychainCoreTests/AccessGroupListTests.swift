import Testing

@testable import KeychainCore

/// The access-group list, built as SecTaskCopyAccessGroups builds it.
@Suite struct AccessGroupListTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let profile: String
        let groups: [String]
        let defaultGroup: String?
        let writable: [String]
        var platform: Platform? = nil
        var teamID: String? = nil
        var provisioning: String? = nil
        var testDescription: String { [profile, provisioning, platform?.rawValue].compactMap { $0 }.joined(separator: " ") }
    }

    static let team = "SKMME9E2Y8"
    static let cases: [Case] = [
        Case(
            profile: "app.plist", groups: ["\(team).com.example.app", "\(team).com.example.shared", "group.com.example"],
            defaultGroup: "\(team).com.example.app",
            writable: ["\(team).com.example.app", "\(team).com.example.shared", "group.com.example"]),
        // Keychain groups first, then the app ID, then app groups.
        Case(
            profile: "share-extension.plist",
            groups: ["\(team).com.example.shared", "\(team).com.example.app.share", "group.com.example"],
            defaultGroup: "\(team).com.example.shared",
            writable: ["\(team).com.example.shared", "\(team).com.example.app.share", "group.com.example"]),
        // No Keychain Sharing: the app ID is the default, never the app group.
        Case(
            profile: "widget.plist", groups: ["\(team).com.example.app.widget", "group.com.example"],
            defaultGroup: "\(team).com.example.app.widget", writable: ["\(team).com.example.app.widget", "group.com.example"]),
        Case(profile: "no-entitlements.plist", groups: [], defaultGroup: nil, writable: []),
        // com.apple.token is readable, never writable, and never the default.
        Case(profile: "token-reader.plist", groups: ["com.apple.token"], defaultGroup: nil, writable: []),
        // App Clips: application groups do not count.
        Case(
            profile: "app-clip.plist", groups: ["\(team).com.example.app.Clip"], defaultGroup: "\(team).com.example.app.Clip",
            writable: ["\(team).com.example.app.Clip"]),
        // Associated application identifiers come after keychain groups, before the app ID.
        Case(
            profile: "associated-app-id.plist", groups: ["\(team).com.example.app", "\(team).com.example.app.watchkitapp"],
            defaultGroup: "\(team).com.example.app", writable: ["\(team).com.example.app", "\(team).com.example.app.watchkitapp"]),
        // An array with a non-string element is ignored entirely.
        Case(
            profile: "non-string-array.plist", groups: ["\(team).com.example.app"], defaultGroup: "\(team).com.example.app",
            writable: ["\(team).com.example.app"]),
        // Without the administrator flag, "*" grants nothing.
        Case(
            profile: "wildcard.plist", groups: ["\(team).com.apple.tool"], defaultGroup: "\(team).com.apple.tool",
            writable: ["\(team).com.apple.tool"]),
        // macOS: com.apple.token is in every list, last.
        Case(
            profile: "macos.provisionprofile.plist", groups: ["\(team).com.example.shared", "\(team).com.example.mac", "com.apple.token"],
            defaultGroup: "\(team).com.example.shared", writable: ["\(team).com.example.shared", "\(team).com.example.mac"]),
        // macOS without a provisioning profile: the app groups are ignored (unvalidated).
        Case(
            profile: "app.plist", groups: ["\(team).com.example.app", "\(team).com.example.shared", "com.apple.token"],
            defaultGroup: "\(team).com.example.app", writable: ["\(team).com.example.app", "\(team).com.example.shared"],
            platform: .macos),
        Case(
            profile: "mac-app.entitlements", groups: ["\(team).com.example.shared", "com.apple.token"],
            defaultGroup: "\(team).com.example.shared", writable: ["\(team).com.example.shared"], platform: .macos),
        // … and with one (its Platform makes the rules macOS' without --platform), nothing is ignored.
        Case(
            profile: "mac-app.entitlements",
            groups: ["\(team).com.example.shared", "\(team).com.example.mac", "group.com.example", "com.apple.token"],
            defaultGroup: "\(team).com.example.shared",
            writable: ["\(team).com.example.shared", "\(team).com.example.mac", "group.com.example"],
            provisioning: "dev-mac.provisionprofile"),
        // An ignored application identifier and nothing else: Apple withholds even the token group.
        Case(profile: "mac-appid-only.plist", groups: [], defaultGroup: nil, writable: [], platform: .macos),
        // No entitlements, or app groups only: the implicit token group alone (reads -25300).
        Case(profile: "no-entitlements.plist", groups: ["com.apple.token"], defaultGroup: nil, writable: [], platform: .macos),
        Case(profile: "mac-app-groups-only.plist", groups: ["com.apple.token"], defaultGroup: nil, writable: [], platform: .macos),
        // Build variables resolve from --team-id when the profile cannot tell.
        Case(
            profile: "source-variables.entitlements",
            groups: ["ABCDE12345.com.example.shared", "ABCDE12345.com.example.team", "ABCDE12345.com.example.app"],
            defaultGroup: "ABCDE12345.com.example.shared",
            writable: ["ABCDE12345.com.example.shared", "ABCDE12345.com.example.team", "ABCDE12345.com.example.app"],
            teamID: "ABCDE12345"),
        // A provisioning profile resolves its own variables.
        Case(
            profile: "app.mobileprovision.plist", groups: ["\(team).com.example.shared", "\(team).com.example.app", "group.com.example"],
            defaultGroup: "\(team).com.example.shared",
            writable: ["\(team).com.example.shared", "\(team).com.example.app", "group.com.example"]),
        Case(
            profile: "legacy-prefix.plist", groups: ["ABCDE12345.com.example.legacy", "\(team).com.example.shared"],
            defaultGroup: "ABCDE12345.com.example.legacy", writable: ["ABCDE12345.com.example.legacy", "\(team).com.example.shared"]),
    ]

    @Test(arguments: cases)
    func listOrderDefaultAndWritable(_ testCase: Case) throws {
        let profile = try Fixtures.profile(
            testCase.profile, provisioning: testCase.provisioning, teamID: testCase.teamID, platform: testCase.platform)
        #expect(profile.accessGroups.groups == testCase.groups)
        #expect(profile.accessGroups.defaultGroup == testCase.defaultGroup)
        #expect(profile.accessGroups.writable == testCase.writable)
    }

    @Test func wildcardNeedsTheAdministratorFlag() throws {
        let plain = try Fixtures.profile("wildcard.plist")
        #expect(!plain.accessGroups.canRead("anything.at.all"))
        #expect(plain.warnings.contains { $0.contains("--allow-any-group") })
        let admin = try Fixtures.profile("wildcard.plist", allowWildcard: true)
        #expect(admin.accessGroups.canRead("anything.at.all"))
        #expect(admin.accessGroups.canWrite("anything.at.all"))
        #expect(!admin.accessGroups.canWrite("com.apple.token"))
    }

    @Test func tokenGroupMovesToTheEnd() {
        let list = AccessGroupList(entries: [
            .init(group: "com.apple.token", source: "keychain-access-groups"),
            .init(group: "T.a", source: "keychain-access-groups"),
        ])
        #expect(list.groups == ["T.a", "com.apple.token"])
        #expect(list.defaultGroup == "T.a")
    }
}
