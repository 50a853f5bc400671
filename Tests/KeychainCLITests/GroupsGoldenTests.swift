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
    }
}
