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
        #expect(account.secret(1, service: "theirs") == nil)
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
        let run = account.sync(1)
        let failed = SyncAccount.items(run, "failed")
        #expect(failed.count == 2, "the link and the huge file: \(failed)")
        #expect(failed.contains { $0["exit"] as? Int == 74 }, "a link cannot be read")
        #expect(failed.contains { $0["exit"] as? Int == 93 }, "a file larger than any record is not one")
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
        #expect(account.secret(1, service: "one") == nil)
        let notStore = account.devices[1].run(
            ["sync", "--cloud", account.home.folder, "--account-key-file", account.accountKey], profile: nil)
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
}

extension SyncAccount {
    /// Edits device `index`'s keychain file without its key (`Sandbox.editKeychain`).
    func editKeychainOf(_ index: Int, _ statements: String) { devices[index].editKeychain(statements) }
}
