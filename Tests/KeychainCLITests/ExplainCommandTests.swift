import CommandLineKit
import Foundation
import KeychainCore
import Testing

/// Through the binary: `explain` text and JSON, --strict, and no secret in sight.
@Suite struct ExplainCommandTests {
    /// The worked case of KeychainAccess PR#459: the app stored the token under its
    /// own bundle identifier as the service; the extension asks with its own.
    static func workedCase() throws -> Sandbox {
        let sandbox = try Sandbox()
        let add = sandbox.add(
            ["-a", "token", "-s", "com.example.app", "-g", "SKMME9E2Y8.com.example.shared", "--accessible", "after-first-unlock"],
            secret: "tok-SECRET-1")
        #expect(add.status == 0)
        #expect(
            sandbox.add(["-a", "ci", "-s", "com.example.app", "--sync", "yes", "-g", "group.com.example"], secret: "ci-SECRET-2").status
                == 0)
        return sandbox
    }

    @Test(arguments: [("text", "explain-share.txt"), ("json", "explain-share.json")])
    func workedCaseMatchesGolden(_ format: String, _ file: String) throws {
        let sandbox = try Self.workedCase()
        let run = sandbox.run(
            ["explain", "-s", "com.example.app.share", "-a", "token", "--format", format], profile: "share-extension.plist")
        #expect(run.status == 0)
        #expect(!run.stdout.contains("SECRET"))
        try GoldenFile.check(GoldenFile.normalized(run.stdout), file)
    }

    /// An item a program stored with no profile is in that program's group: explain names the
    /// program, and its fix, run as printed in the shell (a name with a leading '-' included),
    /// gives the profile that finds the item.
    @Test(arguments: ["myserver", "-odd"])
    func aProgramsItemIsExplainedAsTheProgramsAndFoundAsPrinted(_ program: String) throws {
        let sandbox = try Sandbox()
        let path = try sandbox.pathWithKeychainctl()
        let shown = sandbox.run(["profile", "show", "--program=" + program], profile: nil)
        let stored = sandbox.folder + "/stored.plist"
        try #require(FileManager.default.createFile(atPath: stored, contents: shown.stdoutData))
        let add = sandbox.run(["add", "-s", "api", "-a", "bot", "--profile", stored], profile: nil, stdin: Data("SECRET-3".utf8))
        #expect(add.status == 0, "\(add.stderr)")
        let explained = sandbox.run(["explain", "-s", "api", "-a", "bot"], profile: nil)
        #expect(explained.stdout.contains("the group of the program \(program) when it is given no profile"), "\(explained.stdout)")
        let fix = try #require(
            explained.stdout.components(separatedBy: "\n").first { $0.hasPrefix("  fix: act as that program: ") }, "\(explained.stdout)")
        let parts = fix.dropFirst("  fix: act as that program: ".count).components(separatedBy: ", then pass ")
        try #require(parts.count == 2, "\(fix)")
        let made = sandbox.run(
            ["-c", parts[0]], profile: nil, environment: ["PATH": path], executable: "/bin/sh",
            inFolder: true)
        #expect(made.status == 0, "\(parts[0]): \(made.stderr)")
        let words = parts[1].split(separator: " ").map(String.init)
        let again = sandbox.run(["explain", "-s", "api", "-a", "bot", "--format", "json"] + words, profile: nil, inFolder: true)
        let predicted = (try again.json() as? [String: Any])?["predicted"] as? [String: Any]
        #expect(predicted?["status"] as? Int == 0, "\(words): \(again.stdout) \(again.stderr)")
    }

    @Test func jsonHasTheContractsKeys() throws {
        let sandbox = try Self.workedCase()
        let run = sandbox.run(["explain", "-s", "com.example.app", "--format", "json"], profile: "widget.plist")
        let object = try #require(try run.json() as? [String: Any])
        for key in ["predicted", "candidates", "query", "profile", "scope", "omitted"] { #expect(object[key] != nil, "\(key)") }
        let predicted = try #require(object["predicted"] as? [String: Any])
        #expect(predicted["status"] as? Int == -25300)
        #expect(predicted["name"] as? String == "errSecItemNotFound")
        let candidates = try #require(object["candidates"] as? [[String: Any]])
        let verdicts = candidates.compactMap { $0["verdict"] as? String }
        #expect(verdicts.sorted() == ["hidden", "hidden"])
        let codes = candidates.flatMap { ($0["reasons"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String } }
        #expect(Set(codes) == ["group-not-entitled", "sync-filter"])
    }

    @Test func strictExitsWithThePredictedStatusAndPlainExitIsZero() throws {
        let sandbox = try Self.workedCase()
        let query = ["explain", "-s", "com.example.app.share", "-a", "token"]
        #expect(sandbox.run(query, profile: "share-extension.plist").status == 0)
        let strict = sandbox.run(query + ["--strict"], profile: "share-extension.plist")
        #expect(strict.status == 44)
        #expect(strict.stderr.isEmpty)
        #expect(sandbox.run(["explain", "-s", "com.example.app", "-a", "token", "--strict"], profile: "share-extension.plist").status == 0)
        let unentitled = sandbox.run(["explain", "-g", "SKMME9E2Y8.com.example.shared", "--strict"], profile: "widget.plist")
        #expect(unentitled.status == 30)
        #expect(unentitled.stdout.contains("BLOCKED"))
    }

    @Test func predictionsMatchTheRealCommand() throws {
        let sandbox = try Self.workedCase()
        #expect(sandbox.run(["device", "lock"]).status == 0)
        #expect(sandbox.add(["-a", "locked", "-s", "com.example.app", "-g", "SKMME9E2Y8.com.example.shared"], secret: "x").status == 36)
        let cases: [(String, [String])] = [
            ("share-extension.plist", ["-s", "com.example.app"]),
            ("share-extension.plist", ["-s", "com.example.app", "--sync", "any"]),
            ("widget.plist", ["-s", "com.example.app", "--sync", "any"]),
            ("app.plist", ["-a", "token"]),
            ("widget.plist", ["-g", "SKMME9E2Y8.com.example.shared"]),
        ]
        for (profile, query) in cases {
            let real = sandbox.run(["find"] + query, profile: profile).status
            let predicted = sandbox.run(["explain", "--strict"] + query, profile: profile).status
            #expect(real == predicted, "\(profile) \(query)")
        }
        #expect(sandbox.run(["explain", "--operation", "add", "-a", "new", "--strict"]).status == 36)
    }

    /// A fix is checked against what the target may use: the share extension is never told to
    /// query the app's own group (that query is -34018), and an add is never told to change its query.
    /// An entitlements fix explain prints, followed: the group it names is added where it says, in
    /// a copy of the widget's profile; lint then finds no error, and the widget's find succeeds.
    @Test func anEntitlementsFixWorksOnceApplied() throws {
        let sandbox = try Sandbox()
        #expect(sandbox.add(["-s", "api.example.com", "-a", "alice"], secret: "app-secret").status == 0)
        let widget = sandbox.folder + "/widget.plist"
        try FileManager.default.copyItem(atPath: Sandbox.profiles + "/widget.plist", toPath: widget)
        let explained = sandbox.run(["explain", "-s", "api.example.com", "--profile", widget, "--format", "json"], profile: nil)
        let text = explained.stdout
        let pattern = "add ([A-Za-z0-9.]+) to this target's ([a-z.-]+)"
        let match = try #require(text.firstMatch(of: try Regex(pattern)), "\(text)")
        let group = String(try #require(match.output[1].substring))
        let key = String(try #require(match.output[2].substring))
        #expect(group == "SKMME9E2Y8.com.example.app" && key == "keychain-access-groups", "\(group) \(key)")
        let script = """
            import plistlib, sys
            path, key, group = sys.argv[1:4]
            data = plistlib.load(open(path, "rb"))
            data[key] = data.get(key, []) + [group]
            plistlib.dump(data, open(path, "wb"))
            """
        #expect(sandbox.run(["-c", script, widget, key, group], profile: nil, executable: "/usr/bin/python3").status == 0)
        let lint = sandbox.run(
            ["lint", "--target", "app=\(Sandbox.profiles)/app.plist", "--target", "widget=\(widget)", "--format", "json"], profile: nil)
        let findings = try #require(try lint.json() as? [String: Any])["findings"] as? [[String: Any]] ?? []
        #expect(!findings.contains { $0["severity"] as? String == "error" }, "\(findings)")
        #expect(sandbox.run(["find", "-s", "api.example.com", "-w", "--profile", widget], profile: nil).stdout == "app-secret")
        // An app group is never advised into keychain-access-groups, where it is KC001.
        #expect(Keychain.entitlementListing("group.com.example") == "com.apple.security.application-groups")
    }

    @Test func fixesNeverNameAGroupTheTargetCannotUse() throws {
        let sandbox = try Sandbox()
        #expect(sandbox.add(["-a", "session", "-s", "com.example.api"], secret: "s3", profile: "app.plist").status == 0)
        let share = sandbox.run(["explain", "-g", "com.example.shared"], profile: "share-extension.plist")
        #expect(share.stdout.contains("NEAR MISS"))
        #expect(!share.stdout.contains("query with agrp=\"SKMME9E2Y8.com.example.app\""))
        #expect(share.stdout.contains("this target may not read SKMME9E2Y8.com.example.app"))
        // Followed, the old advice fails as predicted: the check is about a real refusal.
        #expect(sandbox.run(["find", "-g", "SKMME9E2Y8.com.example.app"], profile: "share-extension.plist").status == 30)
        // The app itself may read its group: for it the query is the fix.
        let app = sandbox.run(["explain", "-g", "com.example.app"], profile: "app.plist")
        #expect(app.stdout.contains("query with agrp=\"SKMME9E2Y8.com.example.app\""))
        let add = sandbox.run(
            ["explain", "--operation", "add", "-a", "other", "-s", "com.example.api"], profile: "app.plist")
        #expect(!add.stdout.contains("query with"))
    }

    @Test(arguments: [["--operation", "move"], ["--candidates", "0"], ["--candidates", "many"]])
    func badWordsAreUsageErrors(_ arguments: [String]) throws {
        let sandbox = try Sandbox()
        #expect(sandbox.run(["explain"] + arguments).status == 64)
    }
}

extension ExplainCommandTests {
    /// A query that names the item's group without its Team ID prefix gets the reason that says
    /// so, and the fix that adds it.
    @Test func aGroupWithoutItsPrefixIsNamedAsSuch() throws {
        let sandbox = try Sandbox()
        #expect(sandbox.run(["add", "-s", "api", "-a", "a", "-g", "SKMME9E2Y8.com.example.shared"], stdin: Data("x".utf8)).status == 0)
        let run = sandbox.run(["explain", "-s", "api", "-g", "com.example.shared", "--format", "json"])
        #expect(run.status == 0 && run.stdout.contains("\"code\":\"group-missing-prefix\""), "\(run.stdout)")
        let text = sandbox.run(["explain", "-s", "api", "-g", "com.example.shared"])
        #expect(text.stdout.contains("fix: query with agrp=\"SKMME9E2Y8.com.example.shared\""))
        // Another group entirely is an attribute mismatch, not a missing prefix.
        let other = sandbox.run(["explain", "-s", "api", "-g", "group.com.example", "--format", "json"])
        #expect(!other.stdout.contains("group-missing-prefix"))
    }
}
