import CommandLineKit
import Foundation
import Testing

/// Through the binary: `--team-change` on explain and matrix (lint's KC016 is in
/// LintCommandTests): the prediction is what the new team's build gets, and the plan it prints
/// keeps the items.
@Suite struct TeamChangeCommandTests {
    /// app.plist as ZZZZZ99999 signs it after the transfer.
    static func transferredProfile(in sandbox: Sandbox) throws -> String {
        let text = try String(contentsOfFile: Sandbox.profiles + "/app.plist", encoding: .utf8)
        let path = sandbox.folder + "/app-ZZZZZ99999.plist"
        try text.replacingOccurrences(of: "SKMME9E2Y8", with: "ZZZZZ99999").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func stocked() throws -> Sandbox {
        let sandbox = try Sandbox()
        #expect(sandbox.add(["-a", "wallet", "-s", "keys"], secret: "w-SECRET").status == 0)
        #expect(sandbox.add(["-a", "token", "-s", "api", "-g", "SKMME9E2Y8.com.example.shared"], secret: "t-SECRET").status == 0)
        #expect(sandbox.add(["-a", "shared", "-s", "api", "-g", "group.com.example"], secret: "s-SECRET").status == 0)
        return sandbox
    }

    @Test func explainPredictsWhatTheNewTeamsBuildGets() throws {
        let sandbox = try Self.stocked()
        let transferred = try Self.transferredProfile(in: sandbox)
        for query in [["-a", "wallet"], ["-a", "token"], ["-a", "shared"], ["-s", "api", "--limit", "all"]] {
            let real = sandbox.run(["find"] + query + ["--profile", transferred], profile: nil)
            let predicted = sandbox.run(["explain", "--strict", "--team-change", "ZZZZZ99999"] + query)
            #expect(real.status == predicted.status, "\(query)")
        }
        let run = sandbox.run(["explain", "-a", "wallet", "--team-change", "ZZZZZ99999"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("signed by ZZZZZ99999 · reads ZZZZZ99999.com.example.app"))
        #expect(run.stdout.contains("lost: SKMME9E2Y8.com.example.app (1 item), SKMME9E2Y8.com.example.shared (1 item)"))
        #expect(run.stdout.contains("kept: group.com.example (1 item)"))
        #expect(run.stdout.contains("HIDDEN     is in SKMME9E2Y8.com.example.app: the same group name under another App ID prefix"))
        #expect(!run.stdout.contains("SECRET"))
    }

    /// The plan, run as printed by the old team's build, leaves every item findable by the new one.
    @Test func thePlanKeepsTheItems() throws {
        let sandbox = try Self.stocked()
        let transferred = try Self.transferredProfile(in: sandbox)
        #expect(sandbox.run(["find", "-a", "wallet", "--profile", transferred], profile: nil).status == 44)
        let explain = sandbox.run(["explain", "-a", "wallet", "--team-change", "ZZZZZ99999", "--format", "json"])
        let object = try #require(try explain.json() as? [String: Any])
        let report = try #require(object["teamChange"] as? [String: Any])
        #expect(report["from"] as? String == "SKMME9E2Y8")
        #expect(report["destination"] as? String == "group.com.example")
        let plan = try #require(report["plan"] as? [String])
        #expect(plan.count == 2)
        for command in plan {
            let words = command.split(separator: " ").map(String.init)
            #expect(words.first == "keychainctl")
            let moved = sandbox.run(Array(words.dropFirst()), profile: nil)
            #expect(moved.status == 0, "\(command): \(moved.stderr)")
        }
        for (account, secret) in [("wallet", "w-SECRET"), ("token", "t-SECRET"), ("shared", "s-SECRET")] {
            let found = sandbox.run(["find", "-a", account, "-w", "--profile", transferred], profile: nil)
            #expect(found.status == 0, "\(account)")
            #expect(found.stdout == secret, "find -w prints the secret as stored")
        }
        let after = sandbox.run(["explain", "-a", "wallet", "--team-change", "ZZZZZ99999", "--strict"])
        #expect(after.status == 0)
    }

    @Test func matrixAddsTheNewTeamsColumns() throws {
        let sandbox = try Self.stocked()
        let run = sandbox.run(
            [
                "matrix", "--profile", "app=\(Sandbox.profiles)/app.plist", "--profile", "widget=\(Sandbox.profiles)/widget.plist",
                "--team-change", "ZZZZZ99999", "--format", "json",
            ], profile: nil)
        #expect(run.status == 0, "\(run.stderr)")
        let object = try #require(try run.json() as? [String: Any])
        let profiles = try #require(object["profiles"] as? [[String: Any]])
        #expect(profiles.compactMap { $0["name"] as? String } == ["app", "widget", "app@ZZZZZ99999", "widget@ZZZZZ99999"])
        #expect(profiles[2]["signedBy"] as? String == "ZZZZZ99999")
        #expect(profiles[2]["default"] as? String == "ZZZZZ99999.com.example.app")
        let widgetChange = try #require(profiles[1]["teamChange"] as? [String: Any])
        #expect((widgetChange["plan"] as? [String])?.isEmpty == true, "the widget's own group holds nothing")
        let rows = try #require(object["rows"] as? [[String: Any]])
        // Per item: can app read it now, can app@ZZZZZ99999 read it after.
        let reads = rows.map { row -> [Bool] in
            let cells = row["cells"] as? [[String: Any]] ?? []
            return [cells[0]["read"] as? Bool ?? false, cells[2]["read"] as? Bool ?? false]
        }
        #expect(reads == [[true, false], [true, false], [true, true]])
        let text = sandbox.run(
            ["matrix", "--profile", "app=\(Sandbox.profiles)/app.plist", "--team-change", "ZZZZZ99999"], profile: nil)
        #expect(text.stdout.contains("team change SKMME9E2Y8 → ZZZZZ99999"))
        #expect(text.stdout.contains("  app (signed by SKMME9E2Y8):\n    lost: SKMME9E2Y8.com.example.app (1 item)"))
    }

    @Test(arguments: [
        ["explain", "--team-change", "zzzzz99999"], ["explain", "--team-change", "SKMME9E2Y8.com"],
        ["matrix", "--profile", "a=/x/app.plist", "--team-change", "ABC"], ["lint", "--target", "a=/x/app.plist", "--team-change", ""],
    ])
    func aTeamIDThatIsNotOneIsAUsageError(_ arguments: [String]) throws {
        let run = try Sandbox().run(arguments, profile: arguments[0] == "explain" ? "app.plist" : nil)
        #expect(run.status == 64)
        #expect(run.stderr.contains("--team-change"))
    }
}
