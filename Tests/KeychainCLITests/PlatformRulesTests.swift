import Foundation
import Testing

/// Through the binary: `--provisioning` and the macOS platform rules.
@Suite struct PlatformRulesTests {
    @Test func aClaimTheProvisioningProfileDoesNotAllowIsExit78() throws {
        let sandbox = try Sandbox()
        let profile = Sandbox.profiles + "/other-team.mobileprovision.plist"
        for run in [
            sandbox.run(["find", "-a", "x", "--provisioning", profile]),
            sandbox.run(["groups"], environment: ["KEYCHAINCTL_PROVISIONING": profile]),
        ] {
            #expect(run.status == 78)
            #expect(run.stderr.contains("keychain-access-groups[0] \"SKMME9E2Y8.com.example.app\" is not allowed"))
            #expect(run.stderr.contains("allows ZZZZZ99999.*, com.apple.token"))
        }
        // The option wins over the environment.
        let allowed = sandbox.run(
            ["groups", "--provisioning", Sandbox.profiles + "/dev-app.mobileprovision"],
            environment: ["KEYCHAINCTL_PROVISIONING": profile])
        #expect(allowed.status == 0)
    }

    @Test func itemCommandsWorkWithAProvisionedTarget() throws {
        let sandbox = try Sandbox()
        let provisioning = ["--provisioning", Sandbox.profiles + "/dev-app.mobileprovision"]
        #expect(sandbox.run(["add", "-a", "alice", "-s", "svc", "-w", "pw"] + provisioning).status == 0)
        let found = sandbox.run(["find", "-a", "alice", "-w"] + provisioning)
        #expect(found.status == 0)
        #expect(found.stdout == "pw")
    }

    /// Apple's KeychainEntitlementsTest: no entitlements on macOS reads -25300 and writes -34018;
    /// an application identifier alone, unvalidated, is -34018 for both.
    @Test(arguments: [
        ("no-entitlements.plist", 44, 30),
        ("mac-app-groups-only.plist", 44, 30),
        ("mac-appid-only.plist", 30, 30),
    ])
    func macOSWithoutAProvisioningProfile(_ profile: String, _ findStatus: Int32, _ addStatus: Int32) throws {
        let sandbox = try Sandbox()
        let find = sandbox.run(["find", "-a", "x", "--platform", "macos"], profile: profile)
        #expect(find.status == findStatus)
        let add = sandbox.run(["add", "-a", "x", "-w", "pw", "--platform", "macos"], profile: profile)
        #expect(add.status == addStatus)
        let delete = sandbox.run(["delete", "-a", "x", "--platform", "macos"], profile: profile)
        #expect(delete.status == 30)
        if profile == "mac-appid-only.plist" {
            #expect(add.stderr.contains("withholds even the implicit com.apple.token"))
        } else if profile == "mac-app-groups-only.plist" {
            #expect(add.stderr.contains("app groups of a process that no provisioning profile validates are ignored"))
            #expect(find.stderr.contains("app groups of a process that no provisioning profile validates are ignored"))
        }
    }

    @Test func namingAnIgnoredAppGroupIsMissingEntitlementSayingWhy() throws {
        let sandbox = try Sandbox()
        let run = sandbox.run(
            ["add", "-a", "x", "-w", "pw", "-g", "group.com.example", "--platform", "macos"], profile: "mac-app.entitlements")
        #expect(run.status == 30)
        #expect(run.stderr.contains("comes from com.apple.security.application-groups"))
        #expect(run.stderr.contains("--provisioning"))
        // With the provisioning profile the same group is usable.
        let provisioned = sandbox.run(
            ["add", "-a", "x", "-w", "pw", "-g", "group.com.example", "--provisioning", Sandbox.profiles + "/dev-mac.provisionprofile"],
            profile: "mac-app.entitlements")
        #expect(provisioned.status == 0, "\(provisioned.stderr)")
    }

    @Test(arguments: [
        ("truncated.mobileprovision", [UInt8]([0x30, 0x80, 0x06, 0x09, 0x2A, 0x86, 0x48]), "looks signed (CMS)"),
        ("blob.plist", [0xFA, 0xDE, 0x71, 0x71, 0x00, 0x00, 0x10, 0x00], "entitlements blob"),
        ("binary.mobileprovision", Array("bplist00".utf8) + [0xFF, 0xFF], "malformed binary property list"),
        ("empty.mobileprovision", [], "is empty"),
    ])
    func hostileProvisioningFilesAreExit78NamingTheFile(_ name: String, _ bytes: [UInt8], _ problem: String) throws {
        let sandbox = try Sandbox()
        let path = sandbox.folder + "/" + name
        try #require(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        let run = sandbox.run(["find", "-a", "x", "--provisioning", path], timeout: 20)
        #expect(run.status == 78)
        #expect(run.stderr.contains(name))
        #expect(run.stderr.contains(problem))
    }
}
