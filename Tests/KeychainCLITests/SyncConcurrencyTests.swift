import Foundation
import KeychainTestSupport
import Testing

/// Devices syncing at the same time, and syncs killed part way: nothing is lost, everything
/// converges.
@Suite struct SyncConcurrencyTests {
    /// Runs `script` once per device, all at once (`Sandbox.parallelShells`), with $CLOUD and the
    /// device's keychain and key.
    func parallel(_ account: SyncAccount, _ script: String) throws -> [Int32] {
        try Sandbox.parallelShells(
            account.devices.map {
                $0.baseEnvironment.merging([
                    "CLOUD": account.cloud, "KEYCHAINCTL_PROFILE": Sandbox.profiles + "/app.plist",
                    "KEYCHAINCTL_ACCOUNT_KEY_FILE": account.accountKey,
                ]) { $1 }
            }, script)
    }

    @Test func fourDevicesMakingFiftyChangesEachWithInterleavedSyncsConverge() throws {
        let account = try SyncAccount(devices: 4)
        // Each device adds 50 items of its own, changes a shared item every tenth step and deletes
        // one of its own every twentieth, syncing every fifth step.
        let script = """
            i=1
            while [ $i -le 50 ]; do
              printf "v$W-$i" | "$KC" add -s "d$W" -a "$i" --sync yes || exit 1
              if [ $((i % 10)) -eq 0 ]; then
                printf "shared-$W-$i" | "$KC" add -s shared -a alice --sync yes 2>/dev/null ||
                  "$KC" update -s shared -a alice --sync yes --set-password "shared-$W-$i" || exit 2
              fi
              if [ $((i % 20)) -eq 0 ]; then "$KC" delete -s "d$W" -a "$((i - 1))" --sync yes || exit 3; fi
              if [ $((i % 5)) -eq 0 ]; then "$KC" sync --cloud "$CLOUD" || exit 4; fi
              i=$((i + 1))
            done
            """
        #expect(try parallel(account, script) == [0, 0, 0, 0])
        for _ in 0..<2 {
            for device in 0..<4 { #expect(account.sync(device).status == 0) }
        }
        let contents = (0..<4).map { account.contents($0) }
        #expect(contents[0].count == 4 * 48 + 1, "every device's 48 kept items and the shared one")
        for device in 1..<4 { #expect(contents[device] == contents[0], "device \(device) differs") }
        #expect(account.records.count == contents[0].count)
        for device in 0..<4 {
            let quiet = account.sync(device)
            #expect(((try quiet.json()) as? [String: Any])?["unchanged"] as? Int == contents[0].count)
        }
    }

    /// A device's first sync, pulling 300 items in one transaction, killed at each step of it:
    /// the device holds none of them or all of them, verify is clean, and its next sync
    /// finishes the work (both devices then hold the same items).
    @Test(.enabled(if: CrashCheck.canWatch, "machine: root"))
    func aSyncKilledAtAnyStepIsFinishedByTheNextOne() throws {
        let account = try SyncAccount(devices: 2)
        var lines = ""
        for index in 0..<300 {
            lines +=
                "{\"svce\":\"bulk\",\"acct\":\"\(index)\",\"sync\":true,\"v_Data\":\"\(Data("\(index)".utf8).base64EncodedString())\"}\n"
        }
        let file = account.devices[0].folder + "/items.jsonl"
        try Data(lines.utf8).write(to: URL(fileURLWithPath: file))
        #expect(account.devices[0].run(["import", file, "--input-format", "jsonl"]).status == 0)
        #expect(account.sync(0).status == 0)
        #expect(account.records.count == 300)
        let expected = account.contents(0)
        let check = CrashCheck(
            sandbox: account.devices[1], arguments: ["sync", "--cloud", account.cloud],
            environment: ["KEYCHAINCTL_ACCOUNT_KEY_FILE": account.accountKey],
            state: { account.contents(1).joined(separator: " ") },
            afterKill: { event in
                #expect(account.sync(1).status == 0, "the sync after a kill at \(event)")
                #expect(account.contents(1) == expected, "after a kill at \(event) and one more sync")
                #expect(account.records.count == 300)
            }, alsoRestored: [account.home])
        let (_, old, new) = try check.run()
        #expect(old == "")
        #expect(new == expected.joined(separator: " ") && expected.count == 300)
    }

    /// A device's sync pushing 300 changed items (records written to the store, then its own
    /// commit), killed at each step: verify is clean, the next sync finishes the push without
    /// taking its own half-recorded records for another device's, and the other device then
    /// holds every change.
    @Test(.enabled(if: CrashCheck.canWatch, "machine: root"))
    func aSyncKilledWhilePushingIsFinishedByTheNextOne() throws {
        let account = try SyncAccount(devices: 2)
        let lines = (0..<300).map { index in
            "{\"svce\":\"bulk\",\"acct\":\"\(index)\",\"sync\":true,\"v_Data\":\"\(Data("\(index)".utf8).base64EncodedString())\"}\n"
        }
        let file = account.devices[0].folder + "/items.jsonl"
        try Data(lines.joined().utf8).write(to: URL(fileURLWithPath: file))
        #expect(account.devices[0].run(["import", file, "--input-format", "jsonl"]).status == 0)
        #expect(account.sync(0).status == 0 && account.sync(1).status == 0)
        #expect(
            account.devices[0].run(["update", "-s", "bulk", "--sync", "yes", "--set-data-stdin"], stdin: Data("changed".utf8)).status == 0)
        let changed = account.contents(0)
        #expect(changed.count == 300 && changed.allSatisfy { $0.hasSuffix("=" + Data("changed".utf8).base64EncodedString()) })
        let snapshots = try [account.devices[0], account.devices[1], account.home].map { ($0, try $0.snapshot()) }
        defer { for (_, copy) in snapshots { try? FileManager.default.removeItem(atPath: copy) } }
        let arguments = ["sync", "--cloud", account.cloud]
        let environment = ["KEYCHAINCTL_ACCOUNT_KEY_FILE": account.accountKey]
        let (whole, trace) = account.devices[0].watched(arguments, profile: nil, environment: environment)
        #expect(whole.status == 0, "\(whole.stderr)")
        #expect(trace.unsyncedEffects.isEmpty)
        let storeSteps = trace.events.filter { $0.isRenameOrUnlink && $0.target.contains(account.cloud) }.map(\.index)
        #expect(!storeSteps.isEmpty, "the push renames records into the store:\n\(trace)")
        #expect(storeSteps.allSatisfy { $0 <= trace.commit }, "every record is in the store before the keychain commits")
        for moment in trace.moments {
            for (sandbox, copy) in snapshots { try sandbox.restore(copy) }
            let event = trace.events[moment - 1]
            account.devices[0].runKilled(arguments, at: event, environment: environment)
            #expect(account.devices[0].run(["verify"], profile: nil).status == 0, "killed at \(event)")
            #expect(account.sync(0).status == 0, "the sync after a kill at \(event)")
            #expect(account.records.count == 300, "killed at \(event)")
            let quiet = account.sync(0)
            #expect(SyncAccount.items(quiet, "pulled").isEmpty && SyncAccount.items(quiet, "pushed").isEmpty, "killed at \(event)")
            #expect(account.sync(1).status == 0)
            #expect(account.contents(1) == changed, "killed at \(event)")
        }
    }
}
