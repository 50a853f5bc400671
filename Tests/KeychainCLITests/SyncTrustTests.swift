import Foundation
import KeychainCore
import KeychainFoundation
import Testing

/// A store that trusts no host (docs/SYNC.md, "Who can do what"): whoever carries the folder
/// cannot delete, rewind, replay or forge what the devices hold; a rotated account key and a
/// revoked device are cut off. Each attack runs through the real binary with two or three devices
/// and ends with the exact secrets every device holds; each has a control that shows the attack
/// working where the defence is absent (a version-1 store, or before a rotation or revocation).
@Suite struct SyncTrustTests {
    /// Two devices holding `api` (secret `v1`), pushed by device 0 and pulled by device 1.
    func synced(devices: Int = 2) throws -> SyncAccount {
        let account = try SyncAccount(devices: devices)
        account.add(0, service: "api", secret: "v1")
        #expect(account.sync(0).status == 0 && account.sync(1).status == 0)
        #expect(account.secret(1, service: "api") == "v1")
        return account
    }

    func removeRecordFiles(_ account: SyncAccount) throws {
        for name in account.records { try FileManager.default.removeItem(atPath: account.cloud + "/records/" + name) }
    }

    // MARK: Deletions are records

    @Test func deletedRecordFilesAreADamagedStoreAndEveryDeviceKeepsItsItem() throws {
        let account = try synced(devices: 3)
        let lost = try #require(account.records.first)
        try removeRecordFiles(account)
        let damaged = account.sync(1)
        #expect(damaged.status == 93, "\(damaged.stderr)")
        let failed = SyncAccount.items(damaged, "failed")
        #expect(failed.count == 1 && (failed.first?["reason"] as? String)?.contains("vanished") == true, "\(failed)")
        #expect((failed.first?["reason"] as? String)?.contains(lost) == true, "the record that vanished is named")
        #expect(account.secret(1, service: "api") == "v1", "kept on the device that found it gone")
        #expect(account.records == [lost], "and uploaded again")
        #expect(account.sync(0).status == 0)
        #expect(account.secret(0, service: "api") == "v1", "the device that created it keeps it")
        #expect(account.sync(2).status == 0)
        #expect(account.secret(2, service: "api") == "v1", "a new device gets it back")
        // A real deletion still reaches every device.
        #expect(account.devices[0].run(["delete", "-s", "api", "--sync", "yes"]).status == 0)
        for device in 0..<3 { #expect(account.sync(device).status == 0) }
        for device in 0..<3 { #expect(account.secret(device, service: "api") == .absent, "device \(device)") }
    }

    /// The control: in a version-1 store (as every store was before), the same removal deletes the
    /// item on every device, the one that created it included, and says nothing.
    @Test func controlInAVersion1StoreDeletedRecordFilesDeleteEveryCopy() throws {
        let account = try SyncAccount(version1Fixture: ())
        #expect(account.sync(1).status == 0)
        #expect(account.secret(1, service: "fixture", account: "kept") == "kept-secret")
        try removeRecordFiles(account)
        for device in [1, 0] { #expect(account.sync(device).status == 0) }
        for device in [1, 0] { #expect(account.secret(device, service: "fixture", account: "kept") == .absent) }
    }

    // MARK: A head every device checks

    @Test func anOlderCopyOfTheWholeStoreIsRefusedUntilAccepted() throws {
        let account = try synced()
        let older = account.home.folder + "/older"
        try FileManager.default.copyItem(atPath: account.cloud, toPath: older)
        #expect(account.devices[0].run(["update", "-s", "api", "--sync", "yes", "--set-password", "v2"]).status == 0)
        #expect(account.sync(0).status == 0 && account.sync(1).status == 0)
        let before = account.contents(1)
        try FileManager.default.removeItem(atPath: account.cloud)
        try FileManager.default.copyItem(atPath: older, toPath: account.cloud)
        let refused = account.sync(1)
        #expect(refused.status == 93 && refused.stdout.isEmpty)
        #expect(refused.stderr.contains("rewound") && refused.stderr.contains("nothing was applied or changed"), "\(refused.stderr)")
        #expect(account.contents(1) == before && account.secret(1, service: "api") == "v2")
        // The hint, followed as printed: the device takes the store as it is and restores its newer copy.
        let hint = try #require(refused.stderr.range(of: #"--expect-head [0-9]+:[0-9a-f]+"#, options: .regularExpression))
        let accepted = account.sync(1, refused.stderr[hint].split(separator: " ").map(String.init))
        #expect(accepted.status == 93, "the old record in it is reported: \(accepted.stdout)")
        #expect(SyncAccount.items(accepted, "failed").first.map { "\($0["reason"] ?? "")".contains("rolled back") } == true)
        #expect(account.secret(1, service: "api") == "v2")
        #expect(account.sync(1).status == 0, "once accepted, the store is in step")
        #expect(account.sync(0, ["--expect-head", try #require(account.head["head"] as? String)]).status == 0)
        #expect(account.secret(0, service: "api") == "v2")
    }

    /// A head that is gone, a link, a FIFO or another account's: named, nothing applied or changed
    /// on the device, never followed or waited on.
    @Test func aMissingOrHostileHeadChangesNothing() throws {
        let account = try synced()
        #expect(account.devices[0].run(["update", "-s", "api", "--sync", "yes", "--set-password", "v2"]).status == 0)
        #expect(account.sync(0).status == 0)
        let head = account.cloud + "/head"
        let saved = try Data(contentsOf: URL(fileURLWithPath: head))
        let stranger = try SyncAccount(devices: 0)
        let foreign = try Data(contentsOf: URL(fileURLWithPath: stranger.cloud + "/head"))
        let hostile: [(String, () throws -> Void)] = [
            ("missing", {}),
            ("a link", { try FileManager.default.createSymbolicLink(atPath: head, withDestinationPath: "/etc/passwd") }),
            ("a FIFO", { #expect(mkfifo(head, 0o600) == 0) }),
            ("another account's", { try foreign.write(to: URL(fileURLWithPath: head)) }),
            ("cut short", { try saved.prefix(saved.count / 2).write(to: URL(fileURLWithPath: head)) }),
        ]
        for (name, damage) in hostile {
            try? FileManager.default.removeItem(atPath: head)
            try damage()
            let run = account.sync(1)
            #expect(run.status == 93 && run.stderr.contains("head") && run.stdout.isEmpty, "\(name): \(run.status) \(run.stderr)")
            #expect(account.secret(1, service: "api") == "v1", "\(name): nothing applied")
        }
        try? FileManager.default.removeItem(atPath: head)
        try saved.write(to: URL(fileURLWithPath: head))
        #expect(account.sync(1).status == 0)
        #expect(account.secret(1, service: "api") == "v2")
    }

    /// A new device given the head out of band refuses a rewound store; the control, the same new
    /// device without it, takes the old secret.
    @Test func aNewDeviceGivenTheHeadRefusesARewoundStore() throws {
        let account = try synced(devices: 3)
        let older = account.home.folder + "/older"
        try FileManager.default.copyItem(atPath: account.cloud, toPath: older)
        #expect(account.devices[0].run(["update", "-s", "api", "--sync", "yes", "--set-password", "v2"]).status == 0)
        #expect(account.sync(0).status == 0)
        let head = try #require(account.head["head"] as? String)
        let printed = account.cloudCommand(["head"])
        #expect(printed.status == 0 && printed.stdout == head + "\n")
        try FileManager.default.removeItem(atPath: account.cloud)
        try FileManager.default.copyItem(atPath: older, toPath: account.cloud)
        let refused = account.sync(2, ["--expect-head", head])
        #expect(refused.status == 93 && refused.stderr.contains("does not pass through the head expected"), "\(refused.stderr)")
        #expect(account.secret(2, service: "api") == .absent)
        #expect(account.sync(2).status == 0, "control: without the head, the rewound store is all it knows")
        #expect(account.secret(2, service: "api") == "v1")
    }

    /// A replayed record file, for a device that never saw the newer one: the head lists the newer
    /// version. The control: the same replay in a version-1 store gives a new device the old secret.
    @Test func aReplayedRecordIsRefusedByADeviceThatNeverSawTheNewerOne() throws {
        let account = try synced(devices: 3)
        let name = try #require(account.records.first)
        let path = account.cloud + "/records/" + name
        let old = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(account.devices[0].run(["update", "-s", "api", "--sync", "yes", "--set-password", "v2"]).status == 0)
        #expect(account.sync(0).status == 0)
        try old.write(to: URL(fileURLWithPath: path))
        let fresh = account.sync(2)
        #expect(fresh.status == 93)
        #expect(SyncAccount.items(fresh, "failed").first.map { "\($0["reason"] ?? "")".contains("older than version 2") } == true)
        #expect(account.secret(2, service: "api") == .absent)
        #expect(account.sync(0).status == 93, "the writer sees the replay and uploads its copy again")
        #expect(account.sync(2).status == 0)
        #expect(account.secret(2, service: "api") == "v2")

        let control = try SyncAccount(version1Fixture: ())
        let kept = control.cloud + "/records/"
        let before = try control.records.map { ($0, try Data(contentsOf: URL(fileURLWithPath: kept + $0))) }
        #expect(control.devices[0].run(["update", "-s", "fixture", "-a", "kept", "--sync", "yes", "--set-password", "new"]).status == 0)
        #expect(control.sync(0).status == 0)
        for (file, bytes) in before { try bytes.write(to: URL(fileURLWithPath: kept + file)) }
        let newDevice = try Sandbox()
        let taken = newDevice.run(
            ["sync", "--cloud", control.cloud], profile: nil, environment: ["KEYCHAINCTL_ACCOUNT_KEY_FILE": control.accountKey])
        #expect(taken.status == 0)
        #expect(newDevice.run(["find", "-s", "fixture", "-a", "kept", "--sync", "yes", "-w"]).stdout == "kept-secret")
    }

    // MARK: Rotation cuts off

    @Test func aRotatedAccountKeyCutsOffADeviceStillHoldingTheOldOne() throws {
        let account = try synced(devices: 3)
        let oldKey = account.accountKey
        let newKey = account.home.folder + "/account-2.key"
        // Before the rotation, device 2 (old key) keeps a private copy of the store to write into.
        let privateCopy = account.home.folder + "/private"
        #expect(account.sync(2).status == 0)
        try FileManager.default.copyItem(atPath: account.cloud, toPath: privateCopy)
        let rotated = account.cloudCommand(["rekey", "--generate-account-key-file", newKey])
        #expect(rotated.status == 0 && rotated.stdout.contains("to epoch 2"), "\(rotated.stderr)")
        // Devices 0 and 1 take the new key; device 0 changes the secret.
        #expect(account.devices[0].run(["update", "-s", "api", "--sync", "yes", "--set-password", "after"]).status == 0)
        #expect(account.sync(0, accountKey: newKey).status == 0 && account.sync(1, accountKey: newKey).status == 0)
        #expect(account.secret(1, service: "api") == "after")
        // Device 2, old key: told of the rotation, reads nothing.
        let cut = account.sync(2, accountKey: oldKey)
        #expect(cut.status == 51 && cut.stderr.contains("was rotated at epoch 2"), "\(cut.stderr)")
        #expect(account.secret(2, service: "api") == "v1")
        // What it writes with the old key (into its copy, then into the store) is refused by the others.
        account.add(2, service: "planted", secret: "from-old-key")
        #expect(account.sync(2, cloud: privateCopy, accountKey: oldKey).status == 0)
        let planted = Set(try FileManager.default.contentsOfDirectory(atPath: privateCopy + "/records")).subtracting(account.records)
        let file = try #require(planted.first)
        try FileManager.default.copyItem(atPath: privateCopy + "/records/" + file, toPath: account.cloud + "/records/" + file)
        let refused = account.sync(1, accountKey: newKey)
        #expect(refused.status == 93 && SyncAccount.items(refused, "failed").count == 1)
        #expect(account.secret(1, service: "planted") == .absent)
        // The control: the same kind of write, before the rotation, reached the other devices.
        #expect(account.sync(2, cloud: privateCopy, accountKey: oldKey).status == 0)
        let before = try SyncAccount(devices: 2)
        before.add(1, service: "planted", secret: "x")
        #expect(before.sync(1).status == 0 && before.sync(0).status == 0)
        #expect(before.secret(0, service: "planted") == "x")
    }

    /// `cloud rekey` killed at each rename it makes (the marker, the first and last record, the
    /// head): run again with the same keys it finishes, and every device syncs with the new key
    /// and holds its secrets; the old key opens nothing after any kill past the marker.
    @Test(.enabled(if: CrashCheck.canWatch, "machine: root"))
    func aRotationKilledAtAnyStepIsFinishedByRunningItAgain() throws {
        let account = try synced()
        account.add(1, service: "second", secret: "s2")
        #expect(account.sync(1).status == 0 && account.sync(0).status == 0)
        let newKey = account.home.folder + "/new-account.key"
        #expect(
            account.home.run(["cloud", "init", account.home.folder + "/scratch", "--generate-account-key-file", newKey], profile: nil)
                .status == 0)
        let rekey = ["cloud", "rekey", "--cloud", account.cloud, "--new-account-key-file", newKey]
        let environment = ["KEYCHAINCTL_ACCOUNT_KEY_FILE": account.accountKey]
        let snapshots = try [account.devices[0], account.devices[1], account.home].map { ($0, try $0.snapshot()) }
        defer { for (_, copy) in snapshots { try? FileManager.default.removeItem(atPath: copy) } }
        let (whole, trace) = account.home.watched(rekey, profile: nil, environment: environment)
        #expect(whole.status == 0, "\(whole.stderr)")
        let renames = trace.events.filter { $0.isRenameOrUnlink && $0.target.contains(account.cloud) }
        #expect(renames.count >= 4, "marker, two records, head:\n\(trace)")
        let chosen = [renames.first, renames.dropFirst().first, renames.dropLast().last, renames.last].compactMap { $0?.index }
        for event in renames where Set(chosen).contains(event.index) {
            for (sandbox, copy) in snapshots { try sandbox.restore(copy) }
            account.home.runKilled(rekey, at: event, environment: environment)
            let again = account.cloudCommand(["rekey", "--new-account-key-file", newKey])
            #expect(again.status == 0, "after a kill at \(event): \(again.stderr)")
            #expect(account.sync(0, accountKey: account.accountKey).status == 51, "the old key is refused after a kill at \(event)")
            for device in [0, 1] {
                #expect(account.sync(device, accountKey: newKey).status == 0, "device \(device) after a kill at \(event)")
                #expect(account.secret(device, service: "api") == "v1" && account.secret(device, service: "second") == "s2")
            }
        }
    }

    // MARK: Each device an identity

    /// The account key and a device key of its own let the forger write, but not as another device.
    @Test func aRecordForgedInAnotherDevicesNameIsRefused() throws {
        let account = try synced(devices: 3)
        #expect(account.sync(2).status == 0)
        let devices = account.deviceList
        let victim = try #require(devices["device0"])
        #expect(devices.count == 3 && devices.values.allSatisfy { !$0.revoked })
        let key = try accountKey(account.accountKey)
        let uuid = Bytes16.random()
        var forged = CloudRecord(
            uuid: uuid, tag: 1 << 24, itemClass: .genericPassword,
            attributes: [
                "svce": .string("forged"), "acct": .string("alice"), "agrp": .string("SKMME9E2Y8.com.example.app"), "pdmn": .string("ak"),
                "sync": .bool(true),
            ], secret: ItemSecret(data: SecretBytes(copying: Array("evil".utf8))),
            origin: try #require(Bytes16(Hex.decode(victim.id) ?? [])))
        forged.written = 1
        let forger = try #require(DeviceSigningKey(seed: SecretBytes.random(count: 32)))
        let sealed = forged.sealed(under: key, signer: forger)
        try Data(sealed).write(to: URL(fileURLWithPath: account.cloud + "/records/" + CloudStore.name(uuid)))
        // The forger holds the account key, so it lists its record in the head too.
        let headPath = account.cloud + "/head"
        var head = try #require(CloudHead.open(Array(try Data(contentsOf: URL(fileURLWithPath: headPath))), epoch: 1, accountKey: key))
        head.manifest[uuid] = CloudHead.Entry(tag: forged.tag, digest: CloudStore.digest(sealed), isTombstone: false)
        head.advance()
        try Data(head.sealed(under: key)).write(to: URL(fileURLWithPath: headPath))
        for device in [1, 2] {
            let run = account.sync(device)
            #expect(run.status == 93)
            #expect(
                SyncAccount.items(run, "failed").first.map { "\($0["reason"] ?? "")".contains("signature of device0") } == true,
                "\(run.stdout)")
            #expect(account.secret(device, service: "forged") == .absent)
        }
        // The control: in a version-1 store, the same record, unsigned, is applied as another device's.
        let control = try SyncAccount(version1Fixture: ())
        try Data(forged.sealed(under: try accountKey(control.accountKey), signer: nil)).write(
            to: URL(fileURLWithPath: control.cloud + "/records/" + CloudStore.name(uuid)))
        #expect(control.sync(1).status == 0)
        #expect(control.secret(1, service: "forged") == "evil")
    }

    /// Every change applied names the device that signed it.
    @Test func syncNamesTheVerifiedWriterOfEachChange() throws {
        let account = try synced()
        #expect(account.devices[0].run(["update", "-s", "api", "--sync", "yes", "--set-password", "v2"]).status == 0)
        #expect(account.sync(0).status == 0)
        let text = account.devices[1].run(
            ["sync", "--cloud", account.cloud], profile: nil, environment: ["KEYCHAINCTL_ACCOUNT_KEY_FILE": account.accountKey])
        #expect(text.stdout.contains(" by=device0: changed on another device"), "\(text.stdout)")
        let devices = account.cloudCommand(["devices"])
        #expect(devices.status == 0)
        #expect(
            devices.stdout.split(separator: "\n").map { $0.split(separator: "\t").first.map(String.init) ?? "" } == ["device0", "device1"])
    }

    /// Device 2 writes into a private copy of the store and its record is dropped into the store:
    /// accepted before `cloud revoke device2` (the control), refused by every device after, even
    /// re-sealed under a leaked new account key; device 2's own sync is refused.
    @Test func aRevokedDevicesLaterWritesAreRefusedByEveryOtherDevice() throws {
        let account = try synced(devices: 3)
        #expect(account.sync(2).status == 0)
        let privateCopy = account.home.folder + "/private"
        try FileManager.default.copyItem(atPath: account.cloud, toPath: privateCopy)
        func writePrivately(_ service: String) throws -> String {
            let before = Set(try FileManager.default.contentsOfDirectory(atPath: privateCopy + "/records"))
            account.add(2, service: service, secret: "from-2")
            #expect(account.sync(2, cloud: privateCopy).status == 0)
            let written = Set(try FileManager.default.contentsOfDirectory(atPath: privateCopy + "/records")).subtracting(before)
            return try #require(written.first { $0.count == 32 })
        }
        let early = try writePrivately("early")
        try FileManager.default.copyItem(atPath: privateCopy + "/records/" + early, toPath: account.cloud + "/records/" + early)
        let accepted = account.sync(1)
        #expect(accepted.status == 0 && SyncAccount.items(accepted, "pulled").first?["by"] as? String == "device2", "\(accepted.stdout)")
        #expect(account.secret(1, service: "early") == "from-2")

        let newKey = account.home.folder + "/account-2.key"
        let revoked = account.cloudCommand(["revoke", "device2", "--generate-account-key-file", newKey])
        #expect(revoked.status == 0 && revoked.stdout.contains("revoking device2"), "\(revoked.stdout)\(revoked.stderr)")
        #expect(account.cloudCommand(["devices", "--format", "json"], accountKey: newKey).stdout.contains("\"revoked\":true"))
        let late = try writePrivately("late")
        let sealed = try Data(contentsOf: URL(fileURLWithPath: privateCopy + "/records/" + late))
        let uuid = try #require(Bytes16(Hex.decode(late) ?? []))
        let leaked = try #require(
            CloudRecord.reseal(Array(sealed), uuid: uuid, from: accountKey(account.accountKey), to: accountKey(newKey)))
        try Data(leaked).write(to: URL(fileURLWithPath: account.cloud + "/records/" + late))
        for device in [1, 0] {
            let run = account.sync(device, accountKey: newKey)
            #expect(run.status == 93, "\(run.stderr)")
            #expect(
                SyncAccount.items(run, "failed").first.map { "\($0["reason"] ?? "")".contains("device2, a revoked device") } == true,
                "\(run.stdout)")
            #expect(account.secret(device, service: "late") == .absent)
            #expect(account.secret(device, service: "early") == "from-2", "what it wrote before its revocation stays")
            #expect(account.secret(device, service: "api") == "v1")
        }
        let own = account.sync(
            2,
            [
                "--expect-head",
                try #require(account.cloudCommand(["head"], accountKey: newKey).stdout.split(separator: "\n").first.map(String.init)),
            ], accountKey: newKey)
        #expect(own.status == 51 && own.stderr.contains("was revoked"), "\(own.stderr)")
    }

    private func accountKey(_ file: String) throws -> SecretBytes {
        let text = try String(contentsOfFile: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        return try #require(SecretBytes(copying: Array(text.utf8)).base64Decoded(strict: true))
    }
}

/// The cloud commands' refusals: each names what is wrong, changes nothing, and a hint it prints
/// is one that works when followed.
@Suite struct CloudCommandRefusalTests {
    @Test func usageErrorsAndTheirHints() throws {
        let account = try SyncAccount(devices: 1)
        #expect(account.sync(0).status == 0)
        let key = ["KEYCHAINCTL_ACCOUNT_KEY_FILE": account.accountKey]
        let refusals: [([String], Int32, String)] = [
            (["cloud", "rekey", "--cloud", account.cloud], 64, "needs the new account key"),
            (["cloud", "rekey", "--cloud", account.cloud, "--new-account-key-file", account.accountKey], 78, "is the current one"),
            (
                ["cloud", "revoke", "--cloud", account.cloud, "--generate-account-key-file", account.home.folder + "/x.key"], 64,
                "needs the device"
            ),
            (["cloud", "head"], 64, "needs --cloud DIR"),
            (["cloud", "devices", "--cloud", account.cloud, "extra"], 64, "takes no operand"),
            (["sync", "--cloud", account.cloud, "--device-name", "a b"], 64, "--device-name takes"),
            (["sync", "--cloud", account.cloud, "--expect-head", "12"], 64, "--expect-head takes"),
            (["cloud", "head", "--cloud", account.cloud, "--new-account-key-file", account.accountKey], 64, "goes with cloud rekey"),
        ]
        let before = account.records
        for (arguments, status, text) in refusals {
            let run = account.devices[0].run(arguments, profile: nil, environment: key)
            #expect(run.status == status && run.stderr.contains(text), "\(arguments): \(run.status) \(run.stderr)")
        }
        #expect(account.records == before && account.sync(0).status == 0, "nothing changed")
        // Revoking a device that is not listed names those that are, and generates no key.
        let newKey = account.home.folder + "/new.key"
        let unknown = account.cloudCommand(["revoke", "laptop", "--generate-account-key-file", newKey])
        #expect(unknown.status == 78 && unknown.stderr.contains("(device0)"), "\(unknown.stderr)")
        #expect(!FileManager.default.fileExists(atPath: newKey), "no key file is left for a refused rotation")
        #expect(account.sync(0).status == 0, "the old key still opens the store")
    }

    /// A version-1 store has no head or devices: `cloud head` says so and how to upgrade; the
    /// command it prints upgrades it, and `cloud head` then works.
    @Test func aVersion1StoreNamesItsUpgrade() throws {
        let account = try SyncAccount(version1Fixture: ())
        let refused = account.cloudCommand(["head"])
        #expect(refused.status == 78 && refused.stderr.contains("is a version-1 cloud store"), "\(refused.stderr)")
        let command = try #require(
            refused.stderr.range(of: #"keychainctl cloud upgrade --cloud [^']+"#, options: .regularExpression).map {
                String(refused.stderr[$0])
            })
        let upgraded = account.home.run(
            command.split(separator: " ").dropFirst().map(String.init), profile: nil,
            environment: ["KEYCHAINCTL_ACCOUNT_KEY_FILE": account.accountKey])
        #expect(upgraded.status == 0, "\(upgraded.stderr)")
        let head = account.cloudCommand(["head"])
        #expect(head.status == 0 && head.stdout.hasPrefix("1:"), "\(head.stdout)\(head.stderr)")
    }
}
