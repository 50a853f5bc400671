import Foundation
import Testing

/// lint as a compiler would answer: a misspelled keychain entitlement key is an error naming the
/// key meant, a file named `.ipa` that is no zip is called what it is, a profile and entitlements
/// of two platforms say which is which, and a development profile's devices are no finding.
@Suite struct LintMistakeTests {
    static let profiles = Sandbox.profiles

    /// `app.plist` with `key` spelled `typo`, in the sandbox's folder.
    static func misspelled(_ sandbox: Sandbox, _ key: String, as typo: String) throws -> String {
        let text = try String(contentsOfFile: profiles + "/app.plist", encoding: .utf8)
        #expect(text.contains("<key>\(key)</key>"), "app.plist has no \(key)")
        let path = sandbox.folder + "/\(typo).plist"
        try text.replacingOccurrences(of: "<key>\(key)</key>", with: "<key>\(typo)</key>").write(
            toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func aMisspelledKeychainKeyIsAnErrorNamingTheKeyMeant() throws {
        let sandbox = try Sandbox(initialize: false)
        let typos = [
            ("keychain-access-groups", "keychain-acess-groups"), ("keychain-access-groups", "Keychain-Access-Groups"),
            ("com.apple.security.application-groups", "com.apple.security.aplication-groups"),
            ("application-identifier", "aplication-identifier"),
        ]
        for (key, typo) in typos {
            let path = try Self.misspelled(sandbox, key, as: typo)
            let lint = sandbox.run(["lint", "--target", "app=" + path], profile: nil)
            #expect(lint.status == 65, "\(typo): \(lint.stdout)")
            #expect(lint.stdout.contains("error[KC022]") && lint.stdout.contains("\(key) was likely meant"), "\(lint.stdout)")
            // groups, and every command reading the profile, warn too.
            let groups = sandbox.run(["groups", "--profile", path], profile: nil)
            #expect(groups.stderr.contains("\(typo) is not one Apple reads: \(key) was likely meant"), "\(groups.stderr)")
            // The fix, followed: the key renamed as it says.
            let fixed = try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(of: typo, with: key)
            try fixed.write(toFile: path, atomically: true, encoding: .utf8)
            let again = sandbox.run(["lint", "--target", "app=" + path], profile: nil)
            #expect(!again.stdout.contains("KC022") && again.status == 0, "\(again.stdout)")
        }
    }

    /// Entitlements near none of the keychain's keys are no finding (no false alarm on the many
    /// others an app claims).
    @Test func otherEntitlementsAreNotTypos() throws {
        let sandbox = try Sandbox(initialize: false)
        let text = try String(contentsOfFile: Self.profiles + "/app.plist", encoding: .utf8)
        let others =
            "<key>aps-environment</key><string>development</string><key>com.apple.developer.associated-domains</key><array/>"
            + "<key>com.apple.developer.ubiquity-kvstore-identifier</key><string>SKMME9E2Y8.*</string><key>get-task-allow</key><true/>"
        let path = sandbox.folder + "/others.plist"
        let index = try #require(text.range(of: "</dict>", options: .backwards))
        try text.replacingCharacters(in: index, with: others + "</dict>").write(toFile: path, atomically: true, encoding: .utf8)
        let lint = sandbox.run(["lint", "--target", "app=" + path], profile: nil)
        #expect(!lint.stdout.contains("KC022") && lint.status == 0, "\(lint.stdout)")
    }

    @Test func aFileNamedIpaThatIsNoZipIsCalledSo() throws {
        let sandbox = try Sandbox(initialize: false)
        let text = sandbox.folder + "/App.ipa"
        try "not a zip\n".write(toFile: text, atomically: true, encoding: .utf8)
        let random = sandbox.folder + "/Rand.ipa"
        try Data((0..<300).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }).write(to: URL(fileURLWithPath: random))
        for path in [text, random] {
            for words in [["lint", "--app", path], ["groups", "--profile", path], ["find", "-s", "x", "--profile", path]] {
                let run = sandbox.run(words, profile: nil)
                #expect(run.status == 78, "\(words): \(run.status) \(run.stderr)")
                #expect(run.stderr.contains("is not a zip archive, as an .ipa is"), "\(words): \(run.stderr)")
                #expect(!run.stderr.contains("folder") && !run.stderr.contains("property list"), "\(run.stderr)")
            }
        }
    }

    @Test func entitlementsAndAProfileOfTwoPlatformsSayWhichIsWhich() throws {
        let sandbox = try Sandbox(initialize: false)
        let lint = sandbox.run(
            [
                "lint", "--target", "app=\(Self.profiles)/app.plist", "--provisioning", "app=\(Self.profiles)/dev-mac.provisionprofile",
                "--now", "2026-01-01T00:00:00Z",
            ], profile: nil)
        #expect(lint.status == 65, "\(lint.stdout)")
        #expect(
            lint.stdout.contains(
                "the profile is for macOS, and \(Self.profiles)/app.plist's entitlements are an iOS target's (application-identifier)"),
            "\(lint.stdout)")
        #expect(lint.stdout.contains("fix: give this target its iOS profile"), "\(lint.stdout)")
        // A development profile lists devices by nature: no warning that the build runs only on them.
        #expect(!lint.stdout.contains("provisioned device"), "\(lint.stdout)")
    }

    /// The control: a macOS distribution profile limited to devices (no get-task-allow) is warned about.
    @Test func aDistributionProfileLimitedToDevicesIsWarnedAbout() throws {
        let sandbox = try Sandbox(initialize: false)
        var text = try String(contentsOfFile: Self.profiles + "/macos.provisionprofile.plist", encoding: .utf8)
        let end = try #require(text.range(of: "</dict>", options: .backwards))
        text.replaceSubrange(end, with: "<key>ProvisionedDevices</key><array><string>00008103-000A1B2C3D4E5F60</string></array></dict>")
        let profile = sandbox.folder + "/dist-mac.plist"
        try text.write(toFile: profile, atomically: true, encoding: .utf8)
        let lint = sandbox.run(
            [
                "lint", "--target", "mac=\(Self.profiles)/mac-app.entitlements", "--provisioning", "mac=\(profile)", "--now",
                "2026-01-01T00:00:00Z",
            ], profile: nil)
        #expect(lint.stdout.contains("warning[KC020]") && lint.stdout.contains("1 provisioned device"), "\(lint.stdout)")
        let development = sandbox.run(
            [
                "lint", "--target", "mac=\(Self.profiles)/mac-app.entitlements", "--provisioning",
                "mac=\(Self.profiles)/dev-mac.provisionprofile", "--now", "2026-01-01T00:00:00Z",
            ], profile: nil)
        #expect(development.status == 0 && !development.stdout.contains("KC020"), "\(development.stdout)")
    }
}
