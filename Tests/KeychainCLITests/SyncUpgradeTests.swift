import Foundation
import Testing

/// A version-1 store written by the last release whose stores were version 1
/// (`Fixtures/CloudStores`): it keeps syncing with today's binary, which says how to upgrade it;
/// the upgrade, run as printed, keeps every record and every device's secrets, and from then on the
/// store's host can no longer delete items everywhere.
@Suite struct SyncUpgradeTests {
    @Test func aVersion1StoreSyncsWarnsAndIsUpgradedByThePrintedCommand() throws {
        let account = try SyncAccount(version1Fixture: ())
        let (mac, ipad) = (0, 1)
        #expect(account.secret(ipad, service: "fixture", account: "late") == .absent, "the fixture's iPad has not pulled it yet")
        let old = account.sync(ipad)
        #expect(old.status == 0, "\(old.stderr)")
        #expect(SyncAccount.items(old, "pulled").count == 1)
        let warning = try #require(old.stderr.split(separator: "\n").first { $0.contains("version-1 cloud store") })
        let command = try #require(warning.range(of: "keychainctl cloud upgrade --cloud ").map { String(warning[$0.lowerBound...]) })
        #expect(command == "keychainctl cloud upgrade --cloud \(account.cloud)")
        // Followed as printed (the account key as the sync had it, in the environment).
        let words = command.split(separator: " ").dropFirst().map(String.init)
        let upgraded = account.home.run(words, profile: nil, environment: ["KEYCHAINCTL_ACCOUNT_KEY_FILE": account.accountKey])
        #expect(upgraded.status == 0 && upgraded.stdout.contains("lists 2 record(s)"), "\(upgraded.stdout)\(upgraded.stderr)")
        #expect(
            account.home.run(words, profile: nil, environment: ["KEYCHAINCTL_ACCOUNT_KEY_FILE": account.accountKey]).stdout
                .contains("already a version-2 cloud store"))
        // A new device takes no unsigned record: the devices holding them sign them again first.
        let newDevice = try Sandbox()
        let keyEnvironment = ["KEYCHAINCTL_ACCOUNT_KEY_FILE": account.accountKey]
        let early = newDevice.run(["sync", "--cloud", account.cloud, "--format", "json"], profile: nil, environment: keyEnvironment)
        #expect(early.status == 93 && SyncAccount.items(early, "failed").count == 2, "\(early.stdout)")
        #expect(SyncAccount.items(early, "failed").allSatisfy { ($0["reason"] as? String)?.contains("is unsigned") == true })
        for device in [mac, ipad] {
            let run = account.sync(device)
            #expect(run.status == 0 && !run.stderr.contains("version-1"), "\(run.stderr)")
            #expect(SyncAccount.items(run, "pulled").isEmpty && SyncAccount.items(run, "deleted").isEmpty, "\(run.stdout)")
            #expect(SyncAccount.items(run, "pushed").count == (device == mac ? 2 : 0), "the first device signs both: \(run.stdout)")
            #expect(account.secret(device, service: "fixture", account: "kept") == "kept-secret")
            #expect(account.secret(device, service: "fixture", account: "late") == "late-secret")
            #expect(account.secret(device, service: "fixture", account: "gone") == .absent)
        }
        #expect(Set(account.deviceList.keys) == ["device0", "device1", "keychain"], "the new device joined under its file's name")
        let later = newDevice.run(["sync", "--cloud", account.cloud, "--format", "json"], profile: nil, environment: keyEnvironment)
        #expect(later.status == 0 && SyncAccount.items(later, "pulled").count == 2, "\(later.stdout)")
        #expect(SyncAccount.items(later, "pulled").allSatisfy { $0["by"] as? String == "device0" })
        #expect(newDevice.run(["find", "-s", "fixture", "-a", "late", "--sync", "yes", "-w"]).stdout == "late-secret")
        // Now a removed record is a damaged store, not a deletion (the control in SyncTrustTests shows
        // the same removal deleting the item everywhere before the upgrade).
        for name in account.records { try FileManager.default.removeItem(atPath: account.cloud + "/records/" + name) }
        #expect(account.sync(ipad).status == 93)
        #expect(account.sync(mac).status == 0)
        for device in [mac, ipad] { #expect(account.secret(device, service: "fixture", account: "kept") == "kept-secret") }
        // A change after the upgrade travels signed, named by its writer.
        #expect(account.devices[mac].run(["update", "-s", "fixture", "-a", "kept", "--sync", "yes", "--set-password", "new"]).status == 0)
        #expect(account.sync(mac).status == 0)
        let pulled = account.sync(ipad)
        #expect(SyncAccount.items(pulled, "updated").first?["by"] as? String == "device0", "\(pulled.stdout)")
        #expect(account.secret(ipad, service: "fixture", account: "kept") == "new")
    }
}
