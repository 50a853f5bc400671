import Foundation
import Testing

/// `secdxctests/KeychainAppClipTests.m`, the deletion and promotion calls
/// (`SecItemDeleteKeychainItemsForAppClip`, `SecItemPromoteAppClipItemsToParentApp`): here
/// `device app-clip remove` and `device app-clip promote`, which act as the system does, so the
/// private entitlement those calls need (`testDeletionSPINoEntitlement`,
/// `testPromotionSPINoEntitlement`) has nothing to translate to.
extension AppleRegressionTests {
    /// The profile options of an App Clip (`clip`) or a regular app with application identifier `appID`.
    static func app(_ appID: String, clip: Bool, in sandbox: Sandbox) throws -> [String] {
        var entitlements: [String: Any] = ["application-identifier": appID]
        if clip { entitlements["com.apple.developer.on-demand-install-capable"] = true }
        return try Self.entitlements(entitlements, validated: true, macOS: false, in: sandbox)
    }

    @Test func keychainAppClipTestsDeletion() throws {
        let sandbox = try Sandbox()
        let file = "KeychainAppClipTests.m"
        let clipID = "SKMME9E2Y8.com.example.app.Clip"
        let clip = try Self.app(clipID, clip: true, in: sandbox)
        // testDeletionSPINoItems
        let none = Self.expect(sandbox, ["device", "app-clip", "remove", "--app-id", "nonexistent"], "\(file):244")
        #expect(none.stdout == "deleted: 0 items the App Clip added\n")
        // testDeletionSPIDeleteAppClipItem: the clip's own profile names it.
        Self.expect(sandbox, with: clip, ["add", "--return", "attributes"], stdin: "password", "\(file):260")
        Self.expect(sandbox, with: clip, ["device", "app-clip", "remove"], "\(file):261")
        Self.expect(sandbox, with: clip, ["find"], status: 44, "\(file):262")
        // testDeletionSPILeaveRegularItemsAlone
        let agrp = "com.apple.keychain.test.notanappclip"
        let regular = try Self.entitlements(["keychain-access-groups": [agrp]], validated: true, macOS: false, in: sandbox)
        Self.expect(sandbox, with: regular, ["add", "-g", agrp], stdin: "password", "\(file):277")
        Self.expect(sandbox, ["device", "app-clip", "remove", "--app-id", agrp], "\(file):278")
        Self.expect(sandbox, with: regular, ["find", "-g", agrp], "\(file):279")
        // testDeletionSPILeaveOtherAppClipItemsAlone
        let other = try Self.app("SKMME9E2Y8.not-the-same-application-identifier", clip: true, in: sandbox)
        Self.expect(sandbox, with: clip, ["add", "--return", "attributes"], stdin: "password", "\(file):294")
        Self.expect(sandbox, with: other, ["add", "--return", "attributes"], stdin: "password", "\(file):298")
        Self.expect(sandbox, ["device", "app-clip", "remove", "--app-id", clipID], "\(file):300")
        Self.expect(sandbox, with: other, ["find"], "\(file):301")
        Self.expect(sandbox, with: clip, ["find"], status: 44, "\(file):305")
    }

    @Test func keychainAppClipTestsPromotion() throws {
        let sandbox = try Sandbox()
        let file = "KeychainAppClipTests.m"
        let clipID = "SKMME9E2Y8.com.example.app.Clip"
        let parentID = "SKMME9E2Y8.com.example.parentapp"
        let clip = try Self.app(clipID, clip: true, in: sandbox)
        let parent = try Self.app(parentID, clip: false, in: sandbox)
        // testPromotionSPINoItems
        Self.expect(sandbox, ["device", "app-clip", "promote", "--app-id", clipID, "--parent", parentID], "\(file):316")
        // testPromotionSPIPromoteAppClipItems
        Self.expect(sandbox, with: clip, ["add", "-s", "promoted"], stdin: "password", "\(file):329")
        let promoted = Self.expect(
            sandbox, with: clip, ["device", "app-clip", "promote", "--parent", parentID, "--format", "json"], "\(file):331")
        #expect(Self.object(promoted)["promoted"] as? Int == 1)
        Self.expect(sandbox, with: clip, ["find", "-s", "promoted"], status: 44, "\(file):333")
        let moved = Self.expect(sandbox, with: parent, ["find", "-s", "promoted", "-w"], "\(file):338")
        #expect(moved.stdout == "password", "the secret moves with the item")
        // testPromotionSPILeaveRegularItemsAlone
        let regular = try Self.app("SKMME9E2Y8.RegularAppID", clip: false, in: sandbox)
        let otherParent = try Self.app("SKMME9E2Y8.OtherAppID", clip: false, in: sandbox)
        Self.expect(sandbox, with: regular, ["add", "-s", "regular"], stdin: "password", "\(file):351")
        Self.expect(
            sandbox, ["device", "app-clip", "promote", "--app-id", "SKMME9E2Y8.RegularAppID", "--parent", "SKMME9E2Y8.OtherAppID"],
            "\(file):353")
        Self.expect(sandbox, with: regular, ["find", "-s", "regular"], "\(file):355")
        Self.expect(sandbox, with: otherParent, ["find", "-s", "regular"], status: 44, "\(file):359")
        // testPromotionSPILeaveOtherAppClipItemsAlone
        let otherClip = try Self.app("SKMME9E2Y8.DifferentAppClipAppID", clip: true, in: sandbox)
        Self.expect(sandbox, with: clip, ["add", "-s", "left"], stdin: "password", "\(file):373")
        Self.expect(sandbox, with: otherClip, ["add", "-s", "left"], stdin: "password", "\(file):377")
        Self.expect(sandbox, with: clip, ["device", "app-clip", "promote", "--parent", "SKMME9E2Y8.UnusedParentAppID"], "\(file):379")
        Self.expect(sandbox, with: otherClip, ["find", "-s", "left"], "\(file):381")
        // disabledtestPromotionSPIDeleteAppClipItemsWithACLs (disabled there: in-memory databases
        // have no access control; here they do): a protected item is not promoted, and goes.
        Self.expect(sandbox, with: clip, ["add", "-s", "protected", "--access-control", "user-presence"], stdin: "password", "\(file):398")
        let lost = Self.expect(
            sandbox, with: clip, ["device", "app-clip", "promote", "--parent", parentID, "--format", "json"], "\(file):400")
        #expect(Self.object(lost)["deleted"] as? Int == 1)
        Self.expect(sandbox, with: clip, ["find", "-s", "protected", "--auth-ui", "skip"], status: 44, "\(file):402")
        Self.expect(sandbox, with: parent, ["find", "-s", "protected", "--auth-ui", "skip"], status: 44, "\(file):406")
        // testPromotionSPIKeychainLocked
        Self.expect(sandbox, with: clip, ["add", "-s", "locked"], stdin: "password", "\(file):418")
        Self.expect(sandbox, ["device", "lock"], "\(file):422")
        Self.expect(sandbox, with: clip, ["device", "app-clip", "promote", "--parent", parentID], status: 36, "\(file):423")
        Self.expect(sandbox, ["device", "unlock"], "cleanup")
        Self.expect(sandbox, with: clip, ["find", "-s", "locked"], "nothing changed while locked")
        Self.expect(sandbox, with: clip, ["delete", "-s", "locked"], "cleanup")
        // testPromotionSPIDuplicateItem: the clip's item replaces the parent's.
        Self.expect(sandbox, with: parent, ["add", "-s", "helloworld", "--attr", "icmt=regular"], stdin: "password", "\(file):437")
        Self.expect(sandbox, with: clip, ["add", "-s", "helloworld", "--attr", "icmt=clip"], stdin: "password", "\(file):449")
        let replaced = Self.expect(
            sandbox, with: clip, ["device", "app-clip", "promote", "--parent", parentID, "--format", "json"], "\(file):454")
        #expect(Self.object(replaced)["replaced"] as? Int == 1)
        Self.expect(sandbox, with: clip, ["find", "-s", "helloworld"], status: 44, "\(file):456")
        let kept = Self.expect(sandbox, with: parent, ["find", "-s", "helloworld", "--format", "json"], "\(file):468")
        #expect(Self.object(kept)["icmt"] as? String == "clip", "\(file):471: the clip's item replaced the app's")
    }

    /// What an App Clip adds carries the keychain's mark, which no find returns; a regular app's
    /// item carries none, so removing the clip leaves it (`SecDbQuery.c`, `query_create`).
    @Test func anAppClipsMarkIsNeverReturned() throws {
        let sandbox = try Sandbox()
        let clip = try Self.app("SKMME9E2Y8.com.example.app.Clip", clip: true, in: sandbox)
        Self.expect(sandbox, with: clip, ["add", "-s", "marked"], stdin: "x", "add")
        for format in ["json", "text"] {
            let found = Self.expect(
                sandbox, with: clip, ["find", "-s", "marked", "--return", "attributes,data", "--format", format], "find")
            #expect(!found.stdout.contains("clip"), "\(format): \(found.stdout)")
        }
        let exported = Self.expect(sandbox, with: clip, ["export", "--format", "json", "-s", "marked"], "export")
        #expect(!exported.stdout.contains("\"clip\""), "\(exported.stdout)")
    }
}
