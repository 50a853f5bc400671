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

    /// explain's fix for the Example bundle's widget, which cannot read what the app adds, is
    /// lint's fix for the build, and both of its ways work as printed: one Team-prefixed group put
    /// first in every target's keychain-access-groups (copies of the three targets' signed
    /// entitlements) leaves lint --strict with nothing to report, the item moved there with
    /// migrate-group is read by the widget; or the app passes the group the widget reads as
    /// kSecAttrAccessGroup, and the widget reads that. (It said to add the app's own group to the
    /// widget, which made the widget's adds land there and left four lint warnings.)
    @Test func explainsFixIsLintsAndWorksBothWays() throws {
        let sandbox = try Sandbox()
        let ipa = Fixtures.bundles + "/Example.ipa"
        let plugIns = ipa + "/Payload/Example.app/PlugIns"
        #expect(
            sandbox.run(["add", "-s", "api.example.com", "-a", "alice", "--profile", ipa], profile: nil, stdin: Data("app-secret".utf8))
                .status == 0)
        let explained = sandbox.run(["explain", "-s", "api.example.com", "--profile", plugIns + "/Widget.appex"], profile: nil)
        let fix = try #require(explained.stdout.components(separatedBy: "fix: ").dropFirst().first?.split(separator: "\n").first)
        let match = try #require(
            fix.firstMatch(
                of: try Regex("^list one Team-prefixed group, such as ([A-Z0-9]+\\.shared), first in every target's keychain-access-groups")
            ),
            "\(explained.stdout)")
        let shared = String(try #require(match.output[1].substring))
        #expect(fix.contains("pass a group it reads (group.com.example) as kSecAttrAccessGroup"), "\(fix)")
        #expect(fix.hasSuffix("then move this item there with migrate-group"), "\(fix)")

        // The first way, followed on copies of what the build signed.
        let targets = [
            ("app", "com.example.app", ipa), ("share", "com.example.app.share", plugIns + "/Share.appex"),
            ("widget", "com.example.app.widget", plugIns + "/Widget.appex"),
        ]
        var lint = ["lint", "--strict"]
        for (name, identifier, bundle) in targets {
            let file = sandbox.folder + "/\(name).plist"
            let shown = sandbox.run(["profile", "show", "--profile", ipa, "--target", identifier], profile: nil)
            #expect(shown.status == 0, "\(shown.stderr)")
            try shown.stdoutData.write(to: URL(fileURLWithPath: file))
            let first = """
                import plistlib, sys
                path, group = sys.argv[1:3]
                data = plistlib.load(open(path, "rb"))
                data["keychain-access-groups"] = [group] + data.get("keychain-access-groups", [])
                plistlib.dump(data, open(path, "wb"))
                """
            #expect(sandbox.run(["-c", first, file, shared], profile: nil, executable: "/usr/bin/python3").status == 0)
            lint += ["--target", "\(name)=\(file)", "--provisioning", "\(name)=\(bundle)"]
        }
        let linted = sandbox.run(lint, profile: nil)
        #expect(linted.status == 0 && linted.stdout == "no findings in 6 files\n", "\(linted.stdout)")
        let app = sandbox.folder + "/app.plist"
        let widget = sandbox.folder + "/widget.plist"
        let moved = sandbox.run(["migrate-group", "--from", "SKMME9E2Y8.com.example.app", "--to", shared, "--profile", app], profile: nil)
        #expect(moved.status == 0, "\(moved.stderr)")
        #expect(sandbox.run(["find", "-s", "api.example.com", "-w", "--profile", widget], profile: nil).stdout == "app-secret")
        // New adds of the fixed app land in the shared group, where the fixed widget reads them.
        #expect(
            sandbox.run(["add", "-s", "later", "-a", "bob", "--profile", app], profile: nil, stdin: Data("later-secret".utf8)).status == 0)
        #expect(sandbox.run(["find", "-s", "later", "-w", "--profile", widget], profile: nil).stdout == "later-secret")

        // The second way, with the build as it is: the app passes the group the widget reads.
        #expect(
            sandbox.run(
                ["add", "-s", "passed", "-a", "carol", "-g", "group.com.example", "--profile", ipa], profile: nil,
                stdin: Data("passed-secret".utf8)
            ).status == 0)
        #expect(
            sandbox.run(["find", "-s", "passed", "-w", "--profile", plugIns + "/Widget.appex"], profile: nil).stdout == "passed-secret")
        // Lint, told the code passes that group, finds nothing either; told nothing, it warns.
        let declared = sandbox.run(["lint", "--app", ipa, "--code-group", "group.com.example", "--strict"], profile: nil)
        #expect(declared.status == 0 && declared.stdout == "no findings in 6 files\n", "\(declared.stdout)")
        #expect(sandbox.run(["lint", "--app", ipa, "--strict"], profile: nil).status == 65)
        // A group only the app reads, passed by the code, shares nothing: the warnings stay.
        let privateGroup = sandbox.run(["lint", "--app", ipa, "--code-group", "SKMME9E2Y8.com.example.app", "--strict"], profile: nil)
        #expect(privateGroup.status == 65 && privateGroup.stdout.contains("KC003"), "\(privateGroup.stdout)")
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
