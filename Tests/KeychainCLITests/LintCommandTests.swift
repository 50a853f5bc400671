import Foundation
import Testing

/// Through the binary: lint's reports, exit statuses and hostile inputs.
@Suite struct LintCommandTests {
    static let p = Sandbox.profiles
    @Test(arguments: [
        (Fixtures.seed, "text", "lint-seed.txt"), (Fixtures.broken, "text", "lint-broken.txt"),
        (Fixtures.broken, "json", "lint-broken.json"),
    ])
    func reportsMatchGolden(_ arguments: [String], _ format: String, _ file: String) throws {
        let sandbox = try Sandbox(initialize: false)
        let run = sandbox.run(arguments + ["--format", format], profile: nil)
        #expect(run.status == (arguments == Fixtures.seed ? 0 : 65), "\(run.stderr)")
        #expect(run.stderr.isEmpty)
        try GoldenFile.check(GoldenFile.normalized(run.stdout), file)
    }

    /// KEYCHAINCTL_PLATFORM decides lint's rules as it decides every command's: an unknown word is
    /// unusable configuration (exit 78, as `groups` says it), never linting as if it were unset.
    @Test func anUnknownPlatformVariableIsRefusedAsByEveryCommand() throws {
        let sandbox = try Sandbox(initialize: false)
        let lint = sandbox.run(Fixtures.seed, profile: nil, environment: ["KEYCHAINCTL_PLATFORM": "andriod"])
        let groups = sandbox.run(["groups"], environment: ["KEYCHAINCTL_PLATFORM": "andriod"])
        #expect(lint.status == 78)
        #expect(lint.stdout.isEmpty)
        #expect(lint.stderr.contains("KEYCHAINCTL_PLATFORM is 'andriod'; use ios or macos."))
        #expect(groups.status == 78)
        #expect(lint.stderr == groups.stderr)
        // A known word is applied: the iOS profiles cannot sign a macOS build.
        let macOS = sandbox.run(Fixtures.seed, profile: nil, environment: ["KEYCHAINCTL_PLATFORM": "macos"])
        #expect(macOS.status == 65)
        #expect(macOS.stdout.contains("dev-app.mobileprovision: Platform \"iOS\": the profile is for ios"))
        #expect(sandbox.run(Fixtures.seed, profile: nil, environment: ["KEYCHAINCTL_PLATFORM": "ios"]).status == 0)
    }

    @Test func sarifIsVersion2_1_0WithTheRuleTableAndOneResultPerFinding() throws {
        let sandbox = try Sandbox(initialize: false)
        let json = sandbox.run(Fixtures.broken + ["--format", "json"], profile: nil)
        let findings = try #require((try json.json() as? [String: Any])?["findings"] as? [[String: Any]])
        let run = sandbox.run(Fixtures.broken + ["--format", "sarif"], profile: nil)
        #expect(run.status == 65)
        let sarif = try #require(try run.json() as? [String: Any])
        #expect(sarif["version"] as? String == "2.1.0")
        let runs = try #require(sarif["runs"] as? [[String: Any]])
        let driver = try #require((runs[0]["tool"] as? [String: Any])?["driver"] as? [String: Any])
        let rules = try #require(driver["rules"] as? [[String: Any]])
        #expect(rules.count == 19)
        let results = try #require(runs[0]["results"] as? [[String: Any]])
        #expect(results.count == findings.count)
        for (result, finding) in zip(results, findings) {
            #expect(result["ruleId"] as? String == finding["id"] as? String)
            let index = try #require(result["ruleIndex"] as? Int)
            #expect(rules[index]["id"] as? String == finding["id"] as? String)
            #expect(["error", "warning", "note"].contains(result["level"] as? String ?? ""))
            let uri = ((result["locations"] as? [[String: Any]])?.first?["physicalLocation"] as? [String: Any])
                .flatMap { ($0["artifactLocation"] as? [String: Any])?["uri"] as? String }
            #expect(uri == finding["file"] as? String)
        }
    }

    @Test(arguments: [
        ["lint"],
        ["lint", "--target", "a=/x/a.plist", "--target", "a=/x/b.plist"],
        ["lint", "--target", "a=/x/a.plist", "--source", "b=/x/a.entitlements"],
        ["lint", "--target", "a=/x/a.plist", "--format", "xml"],
        ["lint", "--target", "a=/x/a.plist", "--now", "yesterday"],
        ["lint", "--target", "a=/x/a.plist", "--profile", "/x/a.plist"],
    ])
    func usageErrorsAre64(_ arguments: [String]) throws {
        let run = try Sandbox(initialize: false).run(arguments, profile: nil)
        #expect(run.status == 64, "\(arguments): \(run.stderr)")
    }

    /// Unreadable and hostile inputs: exit 78 naming the file, never a crash or a hang.
    @Test func unreadableAndHostileFilesAre78NamingTheFile() throws {
        let sandbox = try Sandbox(initialize: false)
        let folder = sandbox.folder
        let signed = try Data(contentsOf: URL(fileURLWithPath: Self.p + "/dev-app.mobileprovision"))
        let files: [(String, Data)] = [
            ("truncated.mobileprovision", signed.prefix(signed.count / 3)),
            ("deep.plist", Data(("<plist><dict><key>k</key>" + String(repeating: "<array>", count: 10_000) + "</plist>").utf8)),
            ("bad-utf8.plist", Data([0x3C, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x3E, 0xFF, 0xFE])),
            ("huge.plist", Data(count: 9 * 1024 * 1024)),
            ("bad-offsets.plist", Data("bplist00".utf8) + Data(repeating: 0xFF, count: 40)),
        ]
        for (name, bytes) in files {
            try bytes.write(to: URL(fileURLWithPath: "\(folder)/\(name)"))
            for arguments in [
                ["lint", "--target", "a=\(folder)/\(name)"],
                ["lint", "--target", "a=\(Self.p)/app.plist", "--provisioning", "a=\(folder)/\(name)"],
            ] {
                let run = sandbox.run(arguments, profile: nil, timeout: 30)
                #expect(run.status == 78, "\(name): \(run.stderr)")
                #expect(run.stderr.contains(name))
            }
        }
        let missing = sandbox.run(["lint", "--target", "a=\(folder)/absent.plist", "--format", "sarif"], profile: nil)
        #expect(missing.status == 78)
        #expect((try? missing.jsonError())?["exit"] as? Int == 78)  // errors as JSON beside a SARIF report
    }
}

extension LintCommandTests {
    /// A built app, archive or .ipa given in any form lints every target inside it, as --app does:
    /// a CI gate written with --target, --profile or a bare path fails on the mistakes between the
    /// app and its extensions instead of passing on the main target alone ("no findings in 2
    /// files" before). --app and the operand together are a usage error; --help leads with --app.
    @Test func aBuiltAppInAnyFormLintsEveryTarget() throws {
        let sandbox = try Sandbox(initialize: false)
        let ipa = Fixtures.bundles + "/Example.ipa"
        let byApp = sandbox.run(["lint", "--app", ipa, "--strict"], profile: nil)
        #expect(byApp.status == 65 && byApp.stdout.contains("PlugIns/Widget.appex"), "\(byApp.stdout)")
        let forms: [[String]] = [
            ["--target", "app=" + ipa], ["--profile", "app=" + ipa], [ipa], ["--target", "app=" + Fixtures.bundles + "/Example.xcarchive"],
            ["--target", "app=" + Fixtures.bundles + "/Example.app/"],
        ]
        for form in forms {
            let run = sandbox.run(["lint"] + form + ["--strict"], profile: nil)
            #expect(run.status == 65, "\(form): \(run.stdout)")
            #expect(run.stdout.hasSuffix("4 warnings in 6 files\n") && run.stdout.contains("Share.appex"), "\(form): \(run.stdout)")
        }
        let both = sandbox.run(["lint", "--app", ipa, ipa], profile: nil)
        #expect(both.status == 64 && both.stderr.contains("--app PATH or as its operand"), "\(both.stderr)")
        let help = sandbox.run(["lint", "--help"], profile: nil)
        let options = help.stdout.components(separatedBy: "OPTIONS:\n").last ?? ""
        #expect(options.split(separator: "\n").first?.contains("--app") == true, "\(help.stdout)")
    }

    /// The debugging guide's rule table is the code's.
    /// A well-formed code group no target claims is KC021; --strict (or --warnings-as-errors) makes
    /// warnings fail the run too.
    @Test func codeGroupsNoTargetClaimsAndStrictness() throws {
        let sandbox = try Sandbox(initialize: false)
        let widget = ["lint", "--target", "widget=\(Self.p)/widget.plist"]
        let unclaimed = sandbox.run(widget + ["--code-group", "SKMME9E2Y8.com.nothing"], profile: nil)
        #expect(unclaimed.status == 65 && unclaimed.stdout.contains("error[KC021]"), "\(unclaimed.stdout)")
        let claimed = sandbox.run(widget + ["--code-group", "group.com.example"], profile: nil)
        #expect(claimed.status == 0 && !claimed.stdout.contains("KC021"), "\(claimed.stdout)")
        let pair = ["lint", "--target", "app=\(Self.p)/app.plist", "--target", "share=\(Self.p)/share-extension.plist"]
        #expect(sandbox.run(pair, profile: nil).status == 0, "warnings alone pass")
        #expect(sandbox.run(pair + ["--strict"], profile: nil).status == 65)
        #expect(sandbox.run(pair + ["--warnings-as-errors"], profile: nil).status == 65)
    }

    /// Advice that survives being followed: each KC003 and KC012 fix that names a group to put
    /// first is applied to copies of the targets' profiles, and lint is run again: the finding is
    /// gone and no error appears. The G3 targets share only an app group, which cannot go first
    /// (the control: putting it there is KC001), so their fix names a Team-prefixed group.
    @Test(arguments: [["app", "widget"], ["app", "share-extension"], ["app", "widget", "share-extension"]])
    func everyGroupFixLintsCleanOnceApplied(targets: [String]) throws {
        let sandbox = try Sandbox(initialize: false)
        for name in targets {
            try FileManager.default.copyItem(atPath: Sandbox.profiles + "/\(name).plist", toPath: sandbox.folder + "/\(name).plist")
        }
        func lint() throws -> [[String: Any]] {
            let run = sandbox.run(
                ["lint", "--format", "json"] + targets.flatMap { ["--target", "\($0)=\(sandbox.folder)/\($0).plist"] }, profile: nil)
            return try #require(try run.json() as? [String: Any], "\(run.stderr)")["findings"] as? [[String: Any]] ?? []
        }
        /// Puts `group` first in the keychain-access-groups of the targets `names`.
        func putFirst(_ group: String, in names: [String]) {
            for name in names {
                let script = """
                    import plistlib, sys
                    path, group = sys.argv[1], sys.argv[2]
                    data = plistlib.load(open(path, "rb"))
                    groups = [g for g in data.get("keychain-access-groups", []) if g != group]
                    data["keychain-access-groups"] = [group] + groups
                    plistlib.dump(data, open(path, "wb"))
                    """
                let edited = sandbox.run(
                    ["-c", script, sandbox.folder + "/\(name).plist", group], profile: nil, executable: "/usr/bin/python3")
                #expect(edited.status == 0, "\(edited.stderr)")
            }
        }
        let before = try lint()
        let fixes = before.filter { ["KC003", "KC012"].contains($0["id"] as? String) }
        #expect(!fixes.isEmpty, "the case has a default-group finding")
        // The group each fix names to put first (the KC012 one applies to every target).
        let named = try fixes.map { finding -> String in
            let fix = try #require(finding["fix"] as? String)
            let marker = fix.contains("such as ") ? "such as " : "put "
            return String(try #require(fix.components(separatedBy: marker).dropFirst().first).prefix { $0 != " " && $0 != "," })
        }
        #expect(Set(named).count == 1, "one group for every target: \(named)")
        #expect(!named[0].hasPrefix("group."), "an app group cannot be put first: \(fixes)")
        putFirst(named[0], in: targets)
        let after = try lint()
        #expect(!after.contains { ["KC003", "KC012"].contains($0["id"] as? String) }, "\(after)")
        #expect(!after.contains { $0["severity"] as? String == "error" }, "following the advice made an error: \(after)")
        // The control: the advice this replaced (the app group first) is an error.
        if targets.contains("widget") {
            putFirst("group.com.example", in: ["app"])
            #expect(try lint().contains { $0["id"] as? String == "KC001" })
        }
    }

    @Test func theGuidesRuleTableIsTheRuleTable() throws {
        let readme = try String(contentsOfFile: Sandbox.packageRoot + "/docs/DEBUGGING.md", encoding: .utf8)
        let sandbox = try Sandbox(initialize: false)
        let run = sandbox.run(Fixtures.broken + ["--format", "sarif"], profile: nil)
        let runs = try #require((try run.json() as? [String: Any])?["runs"] as? [[String: Any]])
        let rules = try #require(((runs[0]["tool"] as? [String: Any])?["driver"] as? [String: Any])?["rules"] as? [[String: Any]])
        for rule in rules {
            let id = try #require(rule["id"] as? String)
            let level = (rule["defaultConfiguration"] as? [String: Any])?["level"] as? String
            let row = "| \(id) | \(level == "note" ? "info" : level ?? "") | \(rule["name"] as? String ?? "") |"
            #expect(readme.contains(row), "docs/DEBUGGING.md lacks \(row)")
        }
        #expect(readme.components(separatedBy: "\n").filter { $0.hasPrefix("| KC0") }.count == rules.count)
    }
}
