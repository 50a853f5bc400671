import Foundation
import Testing

/// `groups` output against golden files beside this test; KEYCHAINCTL_RECORD=1 re-records them.
@Suite struct GroupsGoldenTests {
    @Test(arguments: [
        ("app.plist", [], "text", "groups-app.txt"),
        ("app.plist", [], "json", "groups-app.json"),
        ("macos.provisionprofile.plist", [], "json", "groups-macos.json"),
        ("token-reader.plist", [], "text", "groups-token-reader.txt"),
        ("app.plist", ["--provisioning", "dev-app.mobileprovision"], "text", "groups-app-provisioned.txt"),
        ("app.plist", ["--provisioning", "dev-app.mobileprovision"], "json", "groups-app-provisioned.json"),
        ("dev-app.mobileprovision", [], "text", "groups-allowlist-as-claims.txt"),
        ("mac-app.entitlements", ["--platform", "macos"], "text", "groups-mac-unvalidated.txt"),
        ("mac-app.entitlements", ["--platform", "macos"], "json", "groups-mac-unvalidated.json"),
        ("mac-appid-only.plist", ["--platform", "macos"], "text", "groups-mac-appid-only.txt"),
    ])
    func matchesGolden(_ profile: String, _ options: [String], _ format: String, _ file: String) throws {
        let sandbox = try Sandbox(initialize: false)
        let fixtures = options.map { $0.contains(".") ? Sandbox.profiles + "/" + $0 : $0 }
        let run = sandbox.run(["groups", "--format", format] + fixtures, profile: profile)
        #expect(run.status == 0)
        let output = run.stdout.replacingOccurrences(of: Sandbox.profiles + "/", with: "Fixtures/Profiles/")
        try GoldenFile.check(output, file)
        if format == "json" { try Self.checkAppleOrder(run.stdoutData, profile: Sandbox.profiles + "/" + profile) }
    }

    /// The order Apple builds an access-group list in (SecTask's entitlements as securityd reads
    /// them): keychain-access-groups, then the application identifier, then the app groups, then
    /// what macOS grants implicitly.
    static let sourceOrder = [
        "keychain-access-groups", "application-identifier", "com.apple.application-identifier",
        "com.apple.security.application-groups", "implicit on macOS",
    ]

    /// A recorded list checked against rules written apart from the code that printed it: each
    /// group once, the sources in Apple's order, the default add group the first writable one, and
    /// the keychain-access-groups rows exactly the file's array as Foundation reads it.
    static func checkAppleOrder(_ json: Data, profile: String) throws {
        let report = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        let rows = try #require(report["groups"] as? [[String: Any]])
        let groups = rows.compactMap { $0["group"] as? String }
        #expect(Set(groups).count == groups.count, "a group listed twice: \(groups)")
        let ranks = rows.map { row in Self.sourceOrder.firstIndex(of: row["source"] as? String ?? "") ?? -1 }
        #expect(!ranks.contains(-1) && ranks == ranks.sorted(), "sources out of Apple's order: \(rows.map { $0["source"] ?? "" })")
        let writable = rows.filter { $0["writable"] as? Bool == true }.compactMap { $0["group"] as? String }
        #expect(report["default"] as? String == writable.first, "the default is the first writable group: \(writable)")
        let file = try PropertyListSerialization.propertyList(from: Data(contentsOf: URL(fileURLWithPath: profile)), format: nil)
        let entitlements = (file as? [String: Any])?["Entitlements"] as? [String: Any] ?? file as? [String: Any] ?? [:]
        let declared = entitlements["keychain-access-groups"] as? [String] ?? []
        let listed = rows.filter { $0["source"] as? String == "keychain-access-groups" }.compactMap { $0["group"] as? String }
        #expect(listed == declared, "keychain-access-groups as the file has them: \(declared)")
    }
}
