import Foundation
import Testing

@testable import KeychainCore

/// A target is what its signature claims plus what its provisioning profile allows.
@Suite struct ProvisioningTests {
    @Test(arguments: [
        ("SKMME9E2Y8.*", "SKMME9E2Y8.com.example.app", true),
        ("SKMME9E2Y8.*", "SKMME9E2Y8.", true),
        ("SKMME9E2Y8.*", "SKMME9E2Y8X.com.example", false),
        ("SKMME9E2Y8.*", "ZZZZZ99999.com.example", false),
        ("*", "anything.at.all", true),
        // `*` anywhere but at the end is an ordinary character (free2z/zuu PR#525 is the glob bug).
        ("SKMME9E2Y8.*.shared", "SKMME9E2Y8.com.shared", false),
        ("SKMME9E2Y8.*.shared", "SKMME9E2Y8.*.shared", true),
        ("group.com.example", "group.com.example", true),
        ("group.com.example", "group.com.example.more", false),
        // Exact bytes: a canonically equivalent spelling is another claim.
        ("group.caf\u{e9}", "group.cafe\u{301}", false),
    ])
    func allowlistEntriesMatchAsLiteralPrefixes(_ pattern: String, _ claim: String, _ allowed: Bool) {
        #expect(ProvisioningProfile.matches(pattern, claim) == allowed)
    }

    @Test func everyClaimAllowedKeepsItsPatternAndPosition() throws {
        let profile = try Fixtures.profile("app.plist", provisioning: "dev-app.mobileprovision")
        #expect(profile.isValidated)
        #expect(!profile.claimsAreAllowlist)
        #expect(profile.provisioning?.name == "Example Development")
        let entries = profile.accessGroups.entries
        #expect(entries.map(\.index) == [0, 1, 0])
        #expect(entries.map { profile.allowingPattern($0) } == ["SKMME9E2Y8.*", "SKMME9E2Y8.*", "group.com.example"])
    }

    @Test func aClaimTheProfileDoesNotAllowIsRefusedNamingEntitlementAndAllowlist() {
        let message = profileErrorMessage { _ = try Fixtures.profile("app.plist", provisioning: "other-team.mobileprovision.plist") }
        #expect(message?.contains("keychain-access-groups[0] \"SKMME9E2Y8.com.example.app\"") == true)
        #expect(message?.contains("allows ZZZZZ99999.*, com.apple.token") == true)
        #expect(message?.contains("0xe8008016") == true)
        #expect(message?.contains("application-identifier \"SKMME9E2Y8.com.example.app\"") == true)
        #expect(message?.contains("com.apple.security.application-groups[0] \"group.com.example\"") == true)
    }

    @Test func theShareExtensionsProfileDoesNotCoverTheAppsIdentifier() {
        // A target signed with another target's profile: the app ID differs, the groups are allowed.
        let message = profileErrorMessage { _ = try Fixtures.profile("app.plist", provisioning: "dev-share.mobileprovision") }
        #expect(message?.contains("application-identifier \"SKMME9E2Y8.com.example.app\" is not allowed") == true)
        #expect(message?.contains("Also not allowed") == false)
    }

    @Test func anEntitlementsFileIsNoProvisioningProfile() {
        let message = profileErrorMessage { _ = try Fixtures.profile("app.plist", provisioning: "share-extension.plist") }
        #expect(message?.contains("has no Entitlements dictionary") == true)
    }

    @Test func aProvisioningProfileAloneIsItsAllowlistUsedAsClaims() throws {
        let profile = try Fixtures.profile("dev-app.mobileprovision")
        #expect(profile.claimsAreAllowlist)
        #expect(profile.isValidated)
        // Its pattern is what it allows, never a group: the application identifier comes first.
        #expect(profile.accessGroups.groups.first == "SKMME9E2Y8.com.example.app")
        #expect(profile.accessGroups.patterns.map(\.group) == ["SKMME9E2Y8.*"])
        #expect(profile.accessGroups.defaultGroup == "SKMME9E2Y8.com.example.app")
    }

    @Test func theSigningProfileResolvesBuildVariables() throws {
        let profile = try Fixtures.profile("source-variables.entitlements", provisioning: "dev-app.mobileprovision")
        #expect(
            profile.accessGroups.groups == ["SKMME9E2Y8.com.example.shared", "SKMME9E2Y8.com.example.team", "SKMME9E2Y8.com.example.app"])
    }

    @Test func macOSTokenGroupAndTeamStyleAppGroupsNeedNoProfile() throws {
        // mac-app-groups-only claims a TEAMID.-style app group, which dev-mac does not list.
        let profile = try Fixtures.profile("mac-app-groups-only.plist", provisioning: "dev-mac.provisionprofile")
        #expect(profile.accessGroups.groups == ["SKMME9E2Y8.com.example.group", "com.apple.token"])
    }

    @Test func unvalidatedMacOSClaimsAreKeptAsIgnored() throws {
        let profile = try Fixtures.profile("mac-app.entitlements", platform: .macos)
        #expect(profile.accessGroups.ignored.map(\.group) == ["SKMME9E2Y8.com.example.mac", "group.com.example"])
        #expect(!profile.accessGroups.withholdsToken)
        let appIDOnly = try Fixtures.profile("mac-appid-only.plist", platform: .macos)
        #expect(appIDOnly.accessGroups.withholdsToken)
        // iOS validates every launched app: nothing is ignored there.
        #expect(try Fixtures.profile("mac-app.entitlements").accessGroups.ignored.isEmpty)
    }

    @Test(arguments: ["app.codesign.txt", "app.codesign-blob", "app-binary.plist"])
    func codesignOutputFormsReadAsTheEntitlements(_ name: String) throws {
        #expect(try Fixtures.profile(name).accessGroups.groups == Fixtures.profile("app.plist").accessGroups.groups)
    }

    @Test(arguments: ["dev-app.mobileprovision", "dev-mac.provisionprofile"])
    func signedProfilesInBERAndDERBothRead(_ name: String) throws {
        let document = try ProfileDocument.load(path: Fixtures.path(name))
        #expect(document.isProvisioningProfile)
        #expect(document.teamIdentifiers == ["SKMME9E2Y8"])
    }
}

/// Hostile profile files: each is a ProfileError (exit 78) naming the file, never a crash or hang.
@Suite struct HostileProvisioningTests {
    static func decode(_ bytes: [UInt8]) -> String? {
        profileErrorMessage { _ = try ProfileDocument.decode(bytes, path: "hostile.mobileprovision") }
    }

    @Test func everyTruncationOfASignedProfileIsRefused() throws {
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: Fixtures.path("dev-app.mobileprovision"))))
        for length in stride(from: 1, to: bytes.count, by: 7) {
            let message = Self.decode(Array(bytes[..<length]))
            #expect(message?.contains("hostile.mobileprovision") == true, "length \(length)")
        }
    }

    @Test func deepBERNestingIsRefused() {
        var deep: [UInt8] = []
        for _ in 0..<100_000 { deep += [0x30, 0x80] }
        #expect(Self.decode(deep)?.contains("looks signed (CMS) but cannot be read") == true)
    }

    @Test func aSignedEnvelopeOfAnotherTypeIsRefused() {
        // ContentInfo with id-data instead of id-signedData.
        let data: [UInt8] = [0x30, 0x0F, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x01, 0xA0, 0x02, 0x04, 0x00]
        #expect(Self.decode(data)?.contains("not signed data") == true)
    }

    @Test func aLengthPastTheEndIsRefused() {
        let lying: [UInt8] = [0x30, 0x84, 0x7F, 0xFF, 0xFF, 0xFF, 0x06, 0x09]
        #expect(Self.decode(lying)?.contains("OpenSSL says \"too long\"") == true)
    }

    @Test func blobHeadersThatLieAreRefused() {
        let xml = Array("<?xml version=\"1.0\"?><plist><dict/></plist>".utf8)
        let long = ProfileDocument.entitlementsBlobMagic + [0x00, 0x10, 0x00, 0x00] + xml
        #expect(Self.decode(long)?.contains("header says 1048576 bytes") == true)
        let short = ProfileDocument.entitlementsBlobMagic + [0x00, 0x00, 0x00, 0x04] + xml
        #expect(Self.decode(short)?.contains("header says 4 bytes") == true)
        #expect(Self.decode(ProfileDocument.entitlementsBlobMagic)?.contains("truncated entitlements blob") == true)
    }

    @Test func codesignOutputWithoutXMLIsRefused() {
        let text = Array("Executable=/Applications/Example.app/Example\n[Dict]\n\t[Key] application-identifier\n".utf8)
        #expect(Self.decode(text)?.contains("run codesign with --xml") == true)
    }
}
