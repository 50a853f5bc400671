import CommandLineKit
import Foundation
import Testing

/// Build variables of an `.entitlements` source file resolved as Xcode resolves them: from
/// `--build-setting`, or from the built app's Info.plist when lint is given the app too.
@Suite struct BuildSettingTests {
    static func source(_ sandbox: Sandbox, _ groups: [String], name: String = "App.entitlements") -> String {
        let entries = groups.map { "<string>\($0)</string>" }.joined()
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>application-identifier</key><string>SKMME9E2Y8.com.example.app</string>
            <key>keychain-access-groups</key><array>\(entries)</array>
            </dict></plist>
            """
        let path = sandbox.folder + "/" + name
        #expect(FileManager.default.createFile(atPath: path, contents: Data(text.utf8)))
        return path
    }

    static func groups(_ run: Sandbox.Run) throws -> [String] {
        let object = try #require(try run.json() as? [String: Any], "\(run.stderr)")
        return (object["groups"] as? [[String: Any]] ?? []).compactMap { $0["group"] as? String }
    }

    @Test func aBuildSettingResolvesTheBundleIdentifierInEverySpelling() throws {
        let sandbox = try Sandbox()
        let path = Self.source(
            sandbox,
            [
                "$(AppIdentifierPrefix)$(CFBundleIdentifier)", "$(AppIdentifierPrefix)${PRODUCT_BUNDLE_IDENTIFIER}.shared",
                "$(TeamIdentifierPrefix)$(PRODUCT_NAME:rfc1034identifier:lower)",
            ])
        let run = sandbox.run(
            [
                "groups", "--profile", path, "--format", "json", "--build-setting", "PRODUCT_BUNDLE_IDENTIFIER=com.example.app",
                "--build-setting", "PRODUCT_NAME=My App",
            ], profile: nil)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Self.groups(run) == ["SKMME9E2Y8.com.example.app", "SKMME9E2Y8.com.example.app.shared", "SKMME9E2Y8.my-app"])
        // Without the setting, the error names the variable and what to pass.
        let missing = sandbox.run(["groups", "--profile", path], profile: nil)
        #expect(missing.status == 78)
        #expect(missing.stderr.contains("$(CFBundleIdentifier)") && missing.stderr.contains("--build-setting CFBundleIdentifier=VALUE"))
    }

    @Test(arguments: [
        ["--build-setting", "PRODUCT_BUNDLE_IDENTIFIER"], ["--build-setting", "=x"], ["--build-setting", "A-B=x"],
        ["--build-setting", "A=1", "--build-setting", "A=2"], ["--build-setting", "A=$(A)"], ["--build-setting", "A=x\u{1B}[2J"],
    ])
    func badSettingsAreUsageErrors(_ words: [String]) throws {
        let sandbox = try Sandbox()
        let run = sandbox.run(["groups"] + words, profile: nil)
        #expect(run.status == 64, "\(words): \(run.stderr)")
        #expect(!run.stderr.contains("\u{1B}"))
    }

    /// Hostile entries end in exit 78 with a message, never a hang or a group built from them.
    @Test(arguments: [
        ("$(AppIdentifierPrefix)$(CFBundleIdentifier", "never closes"),
        ("$(AppIdentifierPrefix)$(PRODUCT_NAME:base64)", ":base64"),
        (String(repeating: "$(V)", count: 2000), "more than 4096 bytes"),
        ("$(AppIdentifierPrefix)$(NOT_GIVEN)", "--build-setting NOT_GIVEN=VALUE"),
        // An empty setting never makes "" (or a bare prefix) a group: the review's finding.
        ("$(EMPTY)", "$(EMPTY), whose build setting is empty"), ("$(AppIdentifierPrefix)${EMPTY}", "--build-setting EMPTY=VALUE"),
    ])
    func hostileEntriesAreRefused(_ entry: String, _ problem: String) throws {
        let sandbox = try Sandbox()
        let path = Self.source(sandbox, [entry])
        let run = sandbox.run(
            [
                "groups", "--profile", path, "--build-setting", "PRODUCT_NAME=App", "--build-setting",
                "V=" + String(repeating: "v", count: 100), "--build-setting", "EMPTY=",
            ],
            profile: nil)
        #expect(run.status == 78 && run.stderr.contains(problem), "\(run.stderr)")
    }

    /// lint resolves a source file's variables from the built app it is attached to: the source
    /// names the app's group as `$(AppIdentifierPrefix)$(CFBundleIdentifier)` and no KC002 or
    /// KC011 finding is left for it.
    @Test func lintResolvesASourceFromTheBuiltApp() throws {
        let sandbox = try Sandbox()
        let path = Self.source(sandbox, ["$(AppIdentifierPrefix)$(CFBundleIdentifier)", "$(AppIdentifierPrefix)com.example.shared"])
        let lint = sandbox.run(
            [
                "lint", "--app", Fixtures.bundles + "/Example.app", "--source", "com.example.app=" + path, "--format", "json",
            ], profile: nil)
        let object = try #require(try lint.json() as? [String: Any], "\(lint.stdout) \(lint.stderr)")
        let findings = object["findings"] as? [[String: Any]] ?? []
        let aboutSource = findings.filter { ($0["file"] as? String) == path }
        #expect(aboutSource.isEmpty, "\(aboutSource)")
        // The same source alone cannot resolve it: KC002 says what to pass.
        let alone = sandbox.run(["lint", "--target", "app=" + path, "--format", "json"], profile: nil)
        let loneFindings = (try #require(try alone.json() as? [String: Any])["findings"] as? [[String: Any]]) ?? []
        let kc002 = try #require(loneFindings.first { $0["id"] as? String == "KC002" })
        #expect((kc002["fix"] as? String)?.contains("--build-setting") == true)
    }
}
