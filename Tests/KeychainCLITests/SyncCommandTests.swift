import Foundation
import Testing

/// `cloud init` and `sync`: devices of one account kept in step by CKKS's rules (docs/FIDELITY.md), through the real binary.
@Suite struct SyncCommandTests {
    @Test func anItemAddedOnOneDeviceReachesTheOthersWithItsOwnPersistentReference() throws {
        let account = try SyncAccount(devices: 3)
        #expect(account.add(0, service: "api", secret: "one").status == 0)
        let pushed = account.sync(0)
        #expect(pushed.status == 0, "\(pushed.stderr)")
        #expect(SyncAccount.items(pushed, "pushed").count == 1)
        #expect(account.records.count == 1)
        for device in [1, 2] {
            let pulled = account.sync(device)
            #expect(SyncAccount.items(pulled, "pulled").count == 1)
            #expect(account.secret(device, service: "api") == "one")
        }
        let refs = (0..<3).map { account.devices[$0].run(["find", "-s", "api", "--sync", "yes", "--return", "persistent-ref"]).stdout }
        #expect(Set(refs).count == 3, "each device has its own persistent reference")
        let again = account.sync(1)
        #expect(((try again.json()) as? [String: Any])?["unchanged"] as? Int == 1)
        #expect(SyncAccount.items(again, "pulled").isEmpty && SyncAccount.items(again, "pushed").isEmpty)
    }

    @Test func changesAndDeletionsTravelAndTheDeletedItemsTombstoneIsPurged() throws {
        let account = try SyncAccount(devices: 2)
        account.add(0, service: "api", secret: "one")
        account.sync(0)
        account.sync(1)
        #expect(account.devices[1].run(["update", "-s", "api", "--sync", "yes", "--set-password", "two"]).status == 0)
        #expect(SyncAccount.items(account.sync(1), "pushed").count == 1)
        #expect(SyncAccount.items(account.sync(0), "updated").count == 1)
        #expect(account.secret(0, service: "api") == "two")
        #expect(account.devices[0].run(["delete", "-s", "api", "--sync", "yes"]).status == 0)
        let deleted = account.sync(0)
        #expect(SyncAccount.items(deleted, "deleted").first?["reason"] as? String == "deleted here; the deletion reached the cloud")
        #expect(((try deleted.json()) as? [String: Any])?["tombstonesPurged"] as? Int == 1)
        #expect(account.liveRecords.isEmpty && account.records.count == 1, "the deletion travels as a record of its own")
        #expect(SyncAccount.items(account.sync(1), "deleted").first?["reason"] as? String == "deleted on another device")
        #expect(account.secret(1, service: "api") == .absent)
        #expect(account.devices[1].run(["find", "-s", "api", "--sync", "yes"]).status == 44, "gone: -25300")
        let tombstones = account.devices[0].editKeychain("print(db.execute('SELECT count(*) FROM genp WHERE tomb = 1').fetchone()[0])")
        #expect(tombstones.stdout == "0\n")
    }

    @Test func theSameItemAddedOnTwoDevicesKeepsTheCopyThatReachedTheCloud() throws {
        let account = try SyncAccount(devices: 2)
        account.add(0, service: "api", secret: "first")
        account.add(1, service: "api", secret: "second")
        account.sync(0)
        let second = account.sync(1)
        let lost = SyncAccount.items(second, "conflict-lost")
        #expect(lost.count == 1)
        #expect((lost.first?["reason"] as? String)?.contains("had not reached the cloud") == true)
        #expect(account.secret(1, service: "api") == "first")
        #expect(account.records.count == 1)
        #expect(SyncAccount.items(account.sync(0), "pushed").isEmpty)
    }

    /// Two copies of one item both in the store (two folders of one account merged by a
    /// file-copying engine): the copy written first, by its writer's signed time, stays on every
    /// device, whichever has the lower UUID. Run both ways round: the writer's order decides.
    @Test(arguments: [0, 1]) func whenBothCopiesReachedTheCloudTheFirstWrittenWinsOnEveryDevice(first: Int) throws {
        let account = try SyncAccount(devices: 2)
        for device in 0..<2 { #expect(account.sync(device).status == 0, "both devices join the store") }
        let other = account.home.folder + "/other"
        try FileManager.default.copyItem(atPath: account.cloud, toPath: other)
        let second = 1 - first
        account.add(first, service: "api", secret: "from-\(first)")
        #expect(account.sync(first, cloud: first == 0 ? nil : other).status == 0)
        account.add(second, service: "api", secret: "from-\(second)")
        #expect(account.sync(second, cloud: second == 0 ? nil : other).status == 0)
        // Device 1's record copied into the store device 0 uses; device 1 then takes that store.
        let copied = try #require(try FileManager.default.contentsOfDirectory(atPath: other + "/records").first)
        try FileManager.default.copyItem(atPath: other + "/records/" + copied, toPath: account.cloud + "/records/" + copied)
        let uploaded0 = try #require(account.liveRecords.first)
        let head = try #require(account.head["head"] as? String)
        let merged0 = account.sync(0)
        #expect(merged0.status == 0, "\(merged0.stderr)")
        let refused = account.sync(1)
        #expect(refused.status == 93 && refused.stderr.contains("--expect-head"), "device 1 saw the other folder's history")
        let merged1 = account.sync(1, ["--expect-head", try #require(account.head["head"] as? String)])
        #expect(merged1.status == 0, "\(merged1.stderr)")
        #expect(head != account.head["head"] as? String)
        for device in 0..<2 { #expect(account.secret(device, service: "api") == .secret("from-\(first)"), "device \(device)") }
        let winner = first == 0 ? uploaded0 : copied
        #expect(account.liveRecords == [winner])
        let won = SyncAccount.items(merged0, first == 0 ? "conflict-won" : "conflict-lost")
        #expect(won.count == 1 && (won.first?["reason"] as? String)?.contains("written first") == true, "\(won)")
        #expect(SyncAccount.items(account.sync(0), "pushed").isEmpty && SyncAccount.items(account.sync(1), "pushed").isEmpty)
    }

    @Test func ofTwoChangesToOneItemTheFirstToReachTheCloudWins() throws {
        let account = try SyncAccount(devices: 2)
        account.add(0, service: "api", secret: "base")
        account.sync(0)
        account.sync(1)
        account.devices[0].run(["update", "-s", "api", "--sync", "yes", "--set-password", "from-0"])
        account.devices[1].run(["update", "-s", "api", "--sync", "yes", "--set-password", "from-1"])
        account.sync(0)
        let late = account.sync(1)
        let lost = SyncAccount.items(late, "conflict-lost")
        #expect(lost.count == 1)
        #expect((lost.first?["reason"] as? String)?.contains("server record changed") == true)
        #expect(account.secret(1, service: "api") == "from-0")
        #expect(account.secret(0, service: "api") == "from-0")
    }

    @Test func aDeletionWinsOverAChangeMadeElsewhere() throws {
        let account = try SyncAccount(devices: 2)
        account.add(0, service: "api", secret: "base")
        account.sync(0)
        account.sync(1)
        account.devices[0].run(["delete", "-s", "api", "--sync", "yes"])
        account.devices[1].run(["update", "-s", "api", "--sync", "yes", "--set-password", "changed"])
        account.sync(0)
        account.sync(1)
        #expect(account.secret(1, service: "api") == .absent)
        #expect(account.liveRecords.isEmpty)
    }

    @Test func aPrimaryKeyChangeTravelsAsADeletionAndAnAddition() throws {
        let account = try SyncAccount(devices: 2)
        account.add(0, service: "api", secret: "s")
        account.sync(0)
        account.sync(1)
        let before = account.liveRecords
        account.devices[0].run(["update", "-s", "api", "--sync", "yes", "--set-account", "bob"])
        let pushed = SyncAccount.items(account.sync(0), "pushed")
        #expect((pushed.first?["reason"] as? String)?.contains("primary key changed") == true)
        #expect(account.liveRecords.count == 1 && account.liveRecords != before)
        let received = account.sync(1)
        #expect(SyncAccount.items(received, "deleted").count == 1 && SyncAccount.items(received, "pulled").count == 1)
        #expect(account.secret(1, service: "api", account: "bob") == "s")
        #expect(account.secret(1, service: "api", account: "alice") == .absent)
    }

    @Test func turningSyncOffDeletesTheOtherDevicesCopiesAndKeepsThisOne() throws {
        let account = try SyncAccount(devices: 3)
        account.add(0, service: "api", secret: "s")
        for device in 0..<3 { account.sync(device) }
        account.devices[0].run(["update", "-s", "api", "--sync", "yes", "--set-sync", "no"])
        let off = SyncAccount.items(account.sync(0), "deleted")
        #expect((off.first?["reason"] as? String)?.contains("synchronizable turned off") == true)
        for device in [1, 2] {
            account.sync(device)
            #expect(account.secret(device, service: "api") == .absent)
        }
        #expect(account.devices[0].run(["find", "-s", "api", "-w"]).stdout == "s")
    }

    @Test func anItemMadeThisDeviceOnlyIsDeletedElsewhereAndReportedAsStayingHere() throws {
        let account = try SyncAccount(devices: 2)
        account.add(0, service: "api", secret: "s")
        account.sync(0)
        account.sync(1)
        account.devices[0].run(["update", "-s", "api", "--sync", "yes", "--set-accessible", "after-first-unlock-this-device-only"])
        let run = account.sync(0)
        #expect((SyncAccount.items(run, "deleted").first?["reason"] as? String)?.contains("(cku)") == true)
        #expect(SyncAccount.items(run, "not-syncing").count == 1, "the same sync says it stays here")
        account.sync(1)
        #expect(account.secret(1, service: "api") == .absent)
        #expect(account.secret(0, service: "api") == "s")
    }

    @Test func classAItemsWaitWhileTheReceivingDeviceIsLocked() throws {
        let account = try SyncAccount(devices: 2)
        account.add(0, service: "when-unlocked", secret: "a", ["--accessible", "when-unlocked"])
        account.add(0, service: "after-first", secret: "c", ["--accessible", "after-first-unlock"])
        account.sync(0)
        #expect(account.devices[1].run(["device", "lock"], profile: nil).status == 0)
        let locked = account.sync(1)
        #expect(SyncAccount.items(locked, "waiting").count == 1)
        #expect(SyncAccount.items(locked, "pulled").count == 1)
        let missing = account.devices[1].run(["find", "-s", "when-unlocked", "--sync", "yes"])
        #expect(missing.status == 44, "not there yet: -25300, not -25308 (\(missing.stderr))")
        #expect(account.devices[1].run(["device", "unlock"], profile: nil).status == 0)
        #expect(SyncAccount.items(account.sync(1), "pulled").count == 1)
        #expect(account.secret(1, service: "when-unlocked") == "a")
    }

    @Test func theReportSaysWhatNeverSyncsAndWhichViewCarriesWhat() throws {
        let account = try SyncAccount(devices: 1)
        account.add(0, service: "bound", secret: "x", ["--accessible", "when-unlocked-this-device-only"])
        account.devices[0].run(["device", "passcode", "set"], profile: nil)
        account.add(0, service: "passcode", secret: "x", ["--accessible", "when-passcode-set-this-device-only"])
        account.devices[0].add(["-s", "local"], secret: "x")
        account.add(0, service: "team", secret: "x")
        account.add(0, service: "shared", secret: "x", ["-g", "group.com.example"])
        let run = account.sync(0)
        let report = try #require(try run.json() as? [String: Any])
        #expect(report["notSynchronizable"] as? Int == 1)
        let never = SyncAccount.items(run, "not-syncing").compactMap { $0["reason"] as? String }
        #expect(never.count == 2)
        #expect(never.contains { $0.contains("(aku)") } && never.contains { $0.contains("(akpu)") })
        let views = Dictionary(
            uniqueKeysWithValues: SyncAccount.items(run, "pushed").map {
                (($0["attributes"] as? [String: Any])?["svce"] as? String ?? "", $0["view"] as? String ?? "")
            })
        #expect(views == ["team": "Applications", "shared": "Backstop"])
        let text = account.devices[0].run(
            ["sync", "--cloud", account.cloud, "--dry-run"], profile: nil, environment: ["KEYCHAINCTL_ACCOUNT_KEY_FILE": account.accountKey]
        )
        #expect(text.stdout.contains("would be not-syncing genp acct=alice"))
        #expect(!text.stdout.contains("x\n") && !run.stdout.contains("\"eA==\""), "no secret in the report")
    }

    @Test func aDryRunWritesNothingAnywhere() throws {
        let account = try SyncAccount(devices: 2)
        account.add(0, service: "api", secret: "s")
        let rehearsal = account.sync(0, ["--dry-run"])
        #expect(rehearsal.status == 0)
        #expect(SyncAccount.items(rehearsal, "pushed").count == 1)
        #expect(account.records.isEmpty)
        #expect(SyncAccount.items(account.sync(0), "pushed").count == 1)
        #expect(SyncAccount.items(account.sync(1, ["--dry-run"]), "pulled").count == 1)
        #expect(account.secret(1, service: "api") == .absent)
    }
}
