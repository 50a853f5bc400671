import Foundation
import Testing

/// `sync` against a cloud store or a keychain someone without the keys edited: every bad record is
/// named and skipped while the rest syncs; a wrong key changes nothing.
@Suite struct SyncHostileTests {
    /// An account with two items in the cloud, pushed by device 0.
    func seeded() throws -> SyncAccount {
        let account = try SyncAccount(devices: 2)
        account.add(0, service: "one", secret: "1")
        account.add(0, service: "two", secret: "2")
        #expect(account.sync(0).status == 0)
        #expect(account.records.count == 2)
        return account
    }

    @Test func aRecordThatDoesNotOpenIsNamedSkippedAndTheRestSyncs() throws {
        let damages: [(String, (Data) -> Data?)] = [
            ("truncated", { $0.prefix($0.count / 2) }),
            (
                "flipped",
                { data in
                    var copy = data; copy[copy.count - 1] ^= 1; return copy
                }
            ),
            ("empty", { _ in Data() }),
        ]
        for (name, damage) in damages {
            let account = try seeded()
            let victim = account.records[0]
            let path = account.cloud + "/records/" + victim
            let original = try Data(contentsOf: URL(fileURLWithPath: path))
            try #require(damage(original)).write(to: URL(fileURLWithPath: path))
            let run = account.sync(1)
            #expect(run.status == 93, "\(name): \(run.stderr)")
            let failed = SyncAccount.items(run, "failed")
            #expect(failed.count == 1 && failed.first?["exit"] as? Int == 93, "\(name)")
            #expect((failed.first?["reason"] as? String)?.contains(victim) == true, "\(name): the record is named")
            #expect(SyncAccount.items(run, "pulled").count == 1, "\(name): the other record still arrives")
            #expect(account.records.count == 2, "\(name): nothing deleted because of it")
        }
    }

    @Test func aRecordRenamedToAnotherUUIDOrFromAnotherAccountDoesNotOpen() throws {
        let account = try seeded()
        let (first, second) = (account.records[0], account.records[1])
        let records = account.cloud + "/records/"
        // A copy of one record under the name of the other: the UUID is bound into the seal.
        try FileManager.default.removeItem(atPath: records + second)
        try FileManager.default.copyItem(atPath: records + first, toPath: records + second)
        let renamed = account.sync(1)
        #expect(renamed.status == 93)
        #expect(SyncAccount.items(renamed, "failed").count == 1 && SyncAccount.items(renamed, "pulled").count == 1)
        // A record of another account, under a fresh name.
        let stranger = try SyncAccount(devices: 1)
        stranger.add(0, service: "theirs", secret: "x")
        stranger.sync(0)
        let theirs = try #require(stranger.records.first)
        try FileManager.default.copyItem(atPath: stranger.cloud + "/records/" + theirs, toPath: records + theirs)
        let foreign = account.sync(1)
        #expect(foreign.status == 93)
        #expect(SyncAccount.items(foreign, "failed").contains { ($0["reason"] as? String)?.contains(theirs) == true })
        #expect(account.secret(1, service: "theirs") == .absent)
    }

    @Test func oddFilesInTheStoreAreNotRecordsAndAHugeOneIsRefused() throws {
        let account = try seeded()
        let records = account.cloud + "/records/"
        try Data("x".utf8).write(to: URL(fileURLWithPath: records + "README"))
        try Data("x".utf8).write(to: URL(fileURLWithPath: records + String(repeating: "A", count: 32)))
        try FileManager.default.createSymbolicLink(atPath: records + String(repeating: "b", count: 32), withDestinationPath: "/etc/passwd")
        let huge = records + String(repeating: "c", count: 32)
        #expect(FileManager.default.createFile(atPath: huge, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: huge))
        try handle.truncate(atOffset: 40 << 20)
        try handle.close()
        // A FIFO under a record's name never hangs the sync (it would hold both locks for ever).
        #expect(mkfifo(records + String(repeating: "d", count: 32), 0o600) == 0)
        let run = account.sync(1)
        let failed = SyncAccount.items(run, "failed")
        #expect(failed.count == 3, "the link, the FIFO and the huge file: \(failed)")
        #expect(failed.filter { ($0["reason"] as? String)?.contains("not a regular file") == true }.count == 2, "\(failed)")
        #expect(failed.allSatisfy { $0["exit"] as? Int == 93 }, "links, FIFOs and oversized files are not records")
        #expect(run.status == 93)
        #expect(SyncAccount.items(run, "pulled").count == 2)
    }

    @Test func aWrongAccountKeyOrAStoreThatIsNotOneChangesNothing() throws {
        let account = try seeded()
        let wrong = account.home.folder + "/wrong.key"
        #expect(
            account.home.run(["cloud", "init", account.home.folder + "/c2", "--generate-account-key-file", wrong], profile: nil).status == 0
        )
        let refused = account.devices[1].run(
            ["sync", "--cloud", account.cloud, "--account-key-file", wrong], profile: nil)
        #expect(refused.status == 51, "\(refused.stderr)")
        #expect(account.secret(1, service: "one") == .absent)
        let empty = account.home.folder + "/empty"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let notStore = account.devices[1].run(["sync", "--cloud", empty, "--account-key-file", account.accountKey], profile: nil)
        #expect(notStore.status == 74 && notStore.stderr.contains("not a keychainctl cloud store"))
        let noKey = account.devices[1].run(["sync", "--cloud", account.cloud], profile: nil)
        #expect(noKey.status == 78)
        #expect(account.home.run(["cloud", "init", account.cloud, "--account-key-file", account.accountKey], profile: nil).status == 74)
    }

    @Test func anEditedSyncStateIsRefusedAndNothingSyncs() throws {
        let account = try seeded()
        account.editKeychainOf(
            0,
            """
            v = bytearray(db.execute("SELECT value FROM keychain_meta WHERE name = 'sync_state'").fetchone()[0])
            v[-1] ^= 1
            db.execute("UPDATE keychain_meta SET value = ? WHERE name = 'sync_state'", (bytes(v),))
            """)
        let run = account.sync(0)
        #expect(run.status == 74 && run.stderr.contains("sync state does not open"), "\(run.stderr)")
        #expect(account.records.count == 2)
        // Deleting the state makes the device start afresh: its items collide with their own
        // records, which are uploaded, so the cloud copies win and nothing is lost.
        account.editKeychainOf(0, "db.execute(\"DELETE FROM keychain_meta WHERE name = 'sync_state'\")")
        #expect(account.sync(0).status == 0)
        #expect(account.secret(0, service: "one") == "1" && account.records.count == 2)
    }

    @Test func aVersion4FileSyncsAndBecomesVersion5AndCannotBeTurnedBack() throws {
        let account = try SyncAccount(devices: 1)
        account.add(0, service: "one", secret: "1")
        let version = "print(db.execute('SELECT version FROM schema_version').fetchone()[0])"
        account.editKeychainOf(0, "db.execute('UPDATE schema_version SET version = 4')")
        #expect(account.devices[0].editKeychain(version).stdout == "4\n")
        #expect(account.sync(0).status == 0)
        #expect(account.devices[0].editKeychain(version).stdout == "5\n")
        // A file that holds a sync state cannot pass for version 4 (whose readers would not keep it).
        account.editKeychainOf(0, "db.execute('UPDATE schema_version SET version = 4')")
        let refused = account.devices[0].run(["find", "-s", "one", "--sync", "yes"])
        #expect(refused.status == 74 && refused.stderr.contains("unexpected keychain_meta entries"), "\(refused.stderr)")
    }

    @Test func aRekeyedKeychainKeepsSyncing() throws {
        let account = try seeded()
        let sandbox = account.devices[0]
        #expect(sandbox.run(["rekey", "--generate-key-file", sandbox.keyFile, "--force"], profile: nil).status == 0)
        let after = account.sync(0)
        #expect(after.status == 0, "\(after.stderr)")
        #expect(SyncAccount.items(after, "pushed").isEmpty, "a re-sealed row with the same content is not a change")
    }

    /// A store holder without the account key puts an older record back: a rotated secret must not
    /// come back, nor a deleted item. Each is reported as rolled back (exit 93, the record named),
    /// never applied, and the device holding the newer version restores it in the cloud.
    @Test func anOlderRecordPutBackIsARollbackNeverApplied() throws {
        let account = try SyncAccount(devices: 3)
        account.add(0, service: "deploy", secret: "OLD-LEAKED-TOKEN")
        #expect(account.sync(0).status == 0 && account.sync(1).status == 0)
        let records = account.cloud + "/records/"
        let uuid = try #require(account.records.first)
        let old = try Data(contentsOf: URL(fileURLWithPath: records + uuid))
        #expect(
            account.devices[0].run(["update", "-s", "deploy", "-a", "alice", "--sync", "yes", "--set-password", "NEW-ROTATED-TOKEN"]).status
                == 0)
        #expect(account.sync(0).status == 0 && account.sync(1).status == 0)
        #expect(account.secret(1, service: "deploy") == "NEW-ROTATED-TOKEN")
        try old.write(to: URL(fileURLWithPath: records + uuid))
        let rolled = account.sync(1)
        #expect(rolled.status == 93, "\(rolled.stderr)")
        let failed = SyncAccount.items(rolled, "failed")
        #expect(failed.count == 1 && (failed.first?["reason"] as? String)?.contains("rolled back") == true, "\(failed)")
        #expect((failed.first?["reason"] as? String)?.contains(uuid) == true, "the record is named")
        #expect(account.secret(1, service: "deploy") == "NEW-ROTATED-TOKEN")
        // Device 1 uploaded its newer copy again: a new device gets the rotated secret.
        #expect(account.sync(2).status == 0)
        #expect(account.secret(2, service: "deploy") == "NEW-ROTATED-TOKEN")

        // Deleted everywhere, then put back: not re-added, and deleted again.
        #expect(account.devices[1].run(["delete", "-s", "deploy", "-a", "alice", "--sync", "yes"]).status == 0)
        for device in [1, 0, 2] { #expect(account.sync(device).status == 0) }
        #expect(account.liveRecords.isEmpty && account.records == [uuid], "the deletion is a record")
        let tombstone = try Data(contentsOf: URL(fileURLWithPath: records + uuid))
        try old.write(to: URL(fileURLWithPath: records + uuid))
        let resurrected = account.sync(0)
        #expect(resurrected.status == 93, "\(resurrected.stderr)")
        let reason = SyncAccount.items(resurrected, "failed").first?["reason"] as? String ?? ""
        #expect(reason.contains("rolled back") && reason.contains("deletion record was written again"), "\(reason)")
        #expect(account.secret(0, service: "deploy") == .absent)
        #expect(account.liveRecords.isEmpty, "the record put back is deleted again")
        #expect(try Data(contentsOf: URL(fileURLWithPath: records + uuid)) != old, "a new deletion record replaced the old copy")
        #expect(tombstone.count < old.count)
        for device in [1, 2] {
            #expect(account.sync(device).status == 0)
            #expect(account.secret(device, service: "deploy") == .absent)
        }
    }

    /// The store's own files are opened without following links: a `.lock` or a `records` folder
    /// that is a symbolic link is refused (exit 93, named), and the link's target is never created.
    @Test func linksInTheStoreAreRefusedNotFollowed() throws {
        let account = try seeded()
        let target = account.home.folder + "/created-by-lock"
        try? FileManager.default.removeItem(atPath: account.cloud + "/.lock")
        try FileManager.default.createSymbolicLink(atPath: account.cloud + "/.lock", withDestinationPath: target)
        let locked = account.sync(1)
        #expect(locked.status == 93 && locked.stderr.contains(".lock is not a regular file"), "\(locked.stderr)")
        #expect(!FileManager.default.fileExists(atPath: target))
        try FileManager.default.removeItem(atPath: account.cloud + "/.lock")
        let elsewhere = account.home.folder + "/elsewhere"
        try FileManager.default.moveItem(atPath: account.cloud + "/records", toPath: elsewhere)
        try FileManager.default.createSymbolicLink(atPath: account.cloud + "/records", withDestinationPath: elsewhere)
        let linked = account.sync(1)
        #expect(linked.status == 93 && linked.stderr.contains("records is not a folder"), "\(linked.stderr)")
        #expect(account.secret(1, service: "one") == .absent)
    }

    /// An account key file kept inside the store would travel with it (and into a git remote's
    /// history): `cloud init` and `sync` refuse it (exit 78), naming it.
    @Test func anAccountKeyInsideTheStoreIsRefused() throws {
        let account = try seeded()
        let home = account.home
        let made = home.run(
            ["cloud", "init", home.folder + "/c2", "--generate-account-key-file", home.folder + "/c2/account.key"], profile: nil)
        #expect(made.status == 78 && made.stderr.contains("c2/account.key is inside the cloud store"), "\(made.stderr)")
        #expect(!FileManager.default.fileExists(atPath: home.folder + "/c2/account.key"))
        let inside = account.cloud + "/account.key"
        try FileManager.default.copyItem(atPath: account.accountKey, toPath: inside)
        let refused = account.devices[1].run(["sync", "--cloud", account.cloud, "--account-key-file", inside], profile: nil)
        #expect(refused.status == 78 && refused.stderr.contains("inside the cloud store"), "\(refused.stderr)")
        let dotted = account.devices[1].run(
            ["sync", "--cloud", account.cloud + "/records/..", "--account-key-file", account.cloud + "/./account.key"], profile: nil)
        #expect(dotted.status == 78, "\(dotted.stderr)")
    }
}

extension SyncAccount {
    /// Edits device `index`'s keychain file without its key (`Sandbox.editKeychain`).
    func editKeychainOf(_ index: Int, _ statements: String) { devices[index].editKeychain(statements) }
}
