import Foundation
import Testing

@testable import KeychainCore

/// migrate-group through the binary: with the app and widget profiles, its report, and atomicity
/// under SIGKILL.
@Suite struct MigrateGroupTests {
    static let app = "SKMME9E2Y8.com.example.app"
    static let shared = "SKMME9E2Y8.com.example.shared"

    @Test func movesReportsAndRefusesThroughTheBinary() throws {
        let sandbox = try Sandbox()
        for account in ["a", "b"] { sandbox.add(["-s", "svc", "-a", account], secret: "secret-\(account)") }
        sandbox.add(["-s", "svc", "-a", "b", "-g", Self.shared], secret: "target-b")
        // The widget can write neither group.
        let widget = sandbox.run(["migrate-group", "--from", Self.app, "--to", Self.shared], profile: "widget.plist")
        #expect(widget.status == 30)
        #expect(widget.stderr.contains("SKMME9E2Y8.com.example.app.widget, group.com.example"))
        // A conflict fails by default, names the item, and changes nothing.
        let refused = sandbox.run(["migrate-group", "--from", Self.app, "--to", Self.shared, "--format", "json"])
        #expect(refused.status == 45)
        let refusedReport = try #require(try refused.json() as? [String: Any])
        #expect((refusedReport["moved"] as? [Any])?.isEmpty == true)
        #expect((refusedReport["conflicts"] as? [[String: Any]])?.first?["acct"] as? String == "b")
        #expect((try refused.jsonError()["hint"] as? String)?.contains("acct=b") == true)
        #expect(sandbox.run(["find", "-s", "svc", "-a", "a", "-g", Self.app]).status == 0)
        // A dry run prints the plan.
        let dry = sandbox.run(["migrate-group", "--from", Self.app, "--to", Self.shared, "--on-conflict", "skip", "--dry-run"])
        #expect(dry.stdout.contains("would be moved: genp acct=a svce=svc"))
        #expect(dry.stdout.contains("would be skipped: genp acct=b svce=svc"))
        #expect(!dry.stdout.contains("secret"))
        // skip moves the rest; the share extension now reads it.
        let moved = sandbox.run(["migrate-group", "--from", Self.app, "--to", Self.shared, "--on-conflict", "skip", "--format", "json"])
        #expect(moved.status == 0)
        let report = try #require(try moved.json() as? [String: Any])
        #expect(Set(report.keys) == ["moved", "copied", "skipped", "replaced", "conflicts", "dryRun", "damaged"])
        #expect((report["moved"] as? [[String: Any]])?.count == 1)
        #expect((report["skipped"] as? [[String: Any]])?.count == 1)
        #expect(sandbox.run(["find", "-s", "svc", "-a", "a", "-w"], profile: "share-extension.plist").stdout == "secret-a")
        // Usage and parameter errors.
        #expect(sandbox.run(["migrate-group", "--from", Self.app]).status == 64)
        #expect(sandbox.run(["migrate-group", "--from", Self.app, "--to", Self.shared, "--on-conflict", "merge"]).status == 64)
        #expect(sandbox.run(["migrate-group", "--from", Self.shared, "--to", Self.shared]).status == 206)
        #expect(sandbox.run(["migrate-group", "--from", "group.com.example", "--to", Self.shared]).status == 44)
    }

    /// How many items each group holds, checking that every secret opens and is the right one.
    static func census(_ sandbox: Sandbox) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for group in [app, shared] {
            let run = sandbox.run(["find", "-g", group, "--limit", "all", "--return", "attributes,data", "--format", "json"])
            if run.status == 44 {
                counts[group] = 0
                continue
            }
            #expect(run.status == 0, "\(run.stderr)")
            let items = try #require(try run.json() as? [[String: Any]])
            for item in items {
                let account = (item["acct"] as? String ?? "").replacingOccurrences(of: "acct-", with: "")
                let secret = Data(base64Encoded: item["v_Data"] as? String ?? "").map { String(decoding: $0, as: UTF8.self) }
                #expect(secret == "secret-\(account)")
            }
            counts[group] = items.count
        }
        return counts
    }

    /// A migration killed at each step of its transaction leaves every item in the old group or
    /// every item in the new one, each secret whole.
    @Test(.enabled(if: CrashCheck.canWatch, "machine: root"))
    func killedMigrationsLeaveAllOrNothing() throws {
        let sandbox = try Sandbox()
        let total = 300
        try sandbox.fill(count: total, group: Self.app)
        let check = CrashCheck(
            sandbox: sandbox,
            arguments: ["migrate-group", "--from", Self.app, "--to", Self.shared, "--profile", Sandbox.profiles + "/app.plist"],
            state: {
                ((try? Self.census(sandbox)) ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            })
        let (_, old, new) = try check.run()
        #expect(old == "\(Self.app)=\(total) \(Self.shared)=0")
        #expect(new == "\(Self.app)=0 \(Self.shared)=\(total)")
    }
}
