import Foundation
import Testing

@testable import KeychainCore

/// The profile forms: every form, and untrusted input refused with a clear message.
@Suite struct ProfileDocumentTests {
    @Test func xmlAndBinaryPlistsAgree() throws {
        let xml = try Fixtures.profile("app.plist")
        let binary = try Fixtures.profile("app-binary.plist")
        #expect(xml.accessGroups == binary.accessGroups)
    }

    @Test func signedProvisioningProfileMatchesItsDecodedPlist() throws {
        let signed = try Fixtures.profile("app.mobileprovision")
        let decoded = try Fixtures.profile("app.mobileprovision.plist")
        #expect(signed.accessGroups == decoded.accessGroups)
        #expect(signed.platform == .ios)
    }

    @Test func provisioningProfilePlatformSetsMacOS() throws {
        #expect(try Fixtures.profile("macos.provisionprofile.plist").platform == .macos)
        #expect(try Fixtures.profile("macos.provisionprofile.plist", platform: .ios).platform == .ios)
    }

    @Test(arguments: [
        ("malformed.plist", "not a valid property list"),
        ("not-a-dictionary.plist", "not a valid property list dictionary"),
        ("missing.plist", "cannot read profile"),
        ("source-variables.entitlements", "pass --team-id"),
        ("unresolvable-variable.entitlements", "$(CFBundleIdentifier)"),
    ])
    func unusableProfilesNameTheFileAndTheProblem(_ name: String, _ problem: String) {
        let message = profileErrorMessage { _ = try Fixtures.profile(name) }
        #expect(message?.contains(name) == true)
        #expect(message?.contains(problem) == true)
    }

    @Test func oversizedAndNonUTF8FilesAreRefusedBeforeParsing() throws {
        let folder = NSTemporaryDirectory() + "kc-profile-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let big = folder + "/big.plist"
        try #require(FileManager.default.createFile(atPath: big, contents: Data(count: ProfileDocument.maximumSize + 10)))
        #expect(profileErrorMessage { _ = try ProfileDocument.load(path: big) }?.contains("larger than") == true)
        let latin1 = folder + "/latin1.plist"
        try #require(
            FileManager.default.createFile(
                atPath: latin1,
                contents: Data("<?xml version=\"1.0\"?><plist><dict><key>\u{e9}</key></dict></plist>".utf8.map { $0 == 0xC3 ? 0xE9 : $0 })))
        #expect(profileErrorMessage { _ = try ProfileDocument.load(path: latin1) }?.contains("UTF-8") == true)
    }

    @Test func teamIDResolvesBothVariables() throws {
        let profile = try Fixtures.profile("source-variables.entitlements", teamID: "ABCDE12345.")
        // The Team ID given with its trailing dot, as the variables' values end.
        #expect(
            profile.accessGroups.groups == ["ABCDE12345.com.example.shared", "ABCDE12345.com.example.team", "ABCDE12345.com.example.app"])
    }
}

/// The message of the ProfileError `body` throws, or `nil` (recording an issue) if it throws none.
func profileErrorMessage(_ body: () throws -> Void) -> String? {
    do {
        try body()
    } catch {
        if let profileError = error as? ProfileError { return profileError.message }
        Issue.record("unexpected \(error)")
        return nil
    }
    Issue.record("no error")
    return nil
}
