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

    @Test func aSyncKilledAtAnyMomentIsFinishedByTheNextOne() throws {
        let account = try SyncAccount(devices: 2)
        var lines = ""
        for index in 0..<300 {
            lines +=
                "{\"svce\":\"bulk\",\"acct\":\"\(index)\",\"sync\":true,\"v_Data\":\"\(Data("\(index)".utf8).base64EncodedString())\"}\n"
        }
        let file = account.devices[0].folder + "/items.jsonl"
        try Data(lines.utf8).write(to: URL(fileURLWithPath: file))
        #expect(account.devices[0].run(["import", file, "--input-format", "jsonl"]).status == 0)
        var interrupted = 0
        var attempt = 0
        // Each round changes an item and kills the sync after a random delay: six rounds at least,
        // and more (up to 24) until three syncs were cut short, since a fast build may finish
        // before a late kill.
        while attempt < 6 || (interrupted < 3 && attempt < 24) {
            defer { attempt += 1 }
            account.devices[0].run(["update", "-s", "bulk", "-a", "\(attempt)", "--sync", "yes", "--set-password", "changed-\(attempt)"])
            let killed = try account.devices[0].killMidway(
                ["sync", "--cloud", account.cloud], environment: ["KEYCHAINCTL_ACCOUNT_KEY_FILE": account.accountKey],
                after: KillMidway.logUniform(1_000.0, 400_000.0))
            if killed { interrupted += 1 }
        }
        #expect(interrupted > 0, "no sync was interrupted: the kills all came after it finished")
        #expect(account.sync(0).status == 0)
        #expect(account.devices[0].run(["verify"], profile: nil).status == 0)
        #expect(account.records.count == 300)
        #expect(account.sync(1).status == 0)
        #expect(account.contents(1) == account.contents(0))
        #expect(account.contents(1).contains("bulk/5=\(Data("changed-5".utf8).base64EncodedString())"))
        let quiet = account.sync(0)
        #expect(SyncAccount.items(quiet, "pushed").isEmpty && SyncAccount.items(quiet, "pulled").isEmpty)
    }
}
