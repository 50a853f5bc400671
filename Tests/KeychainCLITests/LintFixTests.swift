import Foundation
import Testing

/// Every fix lint prints, followed: the edits its JSON states are made to copies of the files (as a
/// script would, with Python's plistlib), lint runs again, and the finding is gone with no new error.
/// A finding without edits must be one whose fix lies outside the files.
@Suite struct LintFixTests {
    static let p = Sandbox.profiles
    static let cases = Sandbox.packageRoot + "/Fixtures/Cases"

    /// Entitlements that break most file rules at once, on iOS.
    static let brokenClaims = """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict>
        <key>application-identifier</key><string>SKMME9E2Y8.com.example.app</string>
        <key>keychain-access-groups</key><array>
        <string>SKMME9E2Y8.com.example.app</string><string>com.example.noprefix</string><string>group.com.example.misplaced</string>
        <string>.com.example.dot</string><string>skmme9e2y8.com.example.lower</string>
        <string>SKMME9E2Y8.SKMME9E2Y8.com.example.twice</string><string>SKMME9E2Y8.group.com.example.prefixed</string>
        <string>SKMME9E2Y8.com.example.app</string><string>$(AppIdentifierPrefix)com.example.variable</string>
        </array>
        <key>com.apple.security.application-groups</key><array><string>com.example.notagroup</string></array>
        </dict></plist>
        """

    /// Each lint call whose fixes are followed: the case library's, the guide's seed and broken apps,
    /// and the fixtures each breaking one rule. `{broken}` is `brokenClaims` written to a file.
    static let calls: [(name: String, folder: String, arguments: [String])] =
        caseCalls + [
            ("seed", p, Array(Fixtures.seed.dropFirst())),
            ("broken", p, Array(Fixtures.broken.dropFirst())),
            ("claims", p, ["--target", "app={broken}", "--code-group", "$(AppIdentifierPrefix)com.example.shared"]),
            ("app and widget", p, ["--target", "app=app.plist", "--target", "widget=widget.plist"]),
            ("widget and share", p, ["--target", "widget=widget.plist", "--target", "share=share-extension.plist"]),
            ("app clip", p, ["--target", "clip=app-clip-shared.plist"]),
            ("legacy prefix", p, ["--target", "app=legacy-prefix.plist"]),
            ("non-string", p, ["--target", "app=non-string-array.plist"]),
            ("token on macOS", p, ["--platform", "macos", "--target", "mac=token-reader.plist"]),
            (
                "code groups", p,
                [
                    "--target", "app=app.plist", "--code-group", "com.example.shared", "--code-group", ".com.example.dot", "--code-group",
                    "SKMME9E2Y8.com.example.elsewhere",
                ]
            ),
        ]

    /// The case library's lint commands, run from their folders.
    static let caseCalls: [(name: String, folder: String, arguments: [String])] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: cases)) ?? []
        return names.sorted().compactMap { name in
            guard let command = try? String(contentsOfFile: "\(cases)/\(name)/command.sh", encoding: .utf8) else { return nil }
            let words = command.split(whereSeparator: \.isWhitespace).map(String.init)
            guard words.starts(with: ["keychainctl", "lint"]) else { return nil }
            return (name, "\(cases)/\(name)", Array(words.dropFirst(2)))
        }
    }()

    /// Rules whose fixes lie outside the entitlements files: signing, a provisioning profile, a
    /// build setting, code (a per-reader group), or a decision only the developer can make.
    static let fixedOutsideTheFiles: Set<String> = [
        "KC002",  // in a source file: a build setting, --team-id or --provisioning resolves it
        "KC003",  // no group read by every reader: code passes a group per reader; another team: re-sign
        "KC007",  // targets under different App ID prefixes: re-sign under one team
        "KC009",  // an application identifier the profile does not allow: the profile is the one to change
        "KC013",  // macOS app groups without a profile: sign with one
        "KC014", "KC015",  // macOS: sign an app-like bundle with a provisioning profile
        "KC016",  // a team change: migrate before the transfer
        "KC018",  // an entitlement of the wrong type: which value was meant is the developer's to say
        "KC019", "KC020",  // the provisioning profile: regenerate or renew it
    ]

    @Test func theCaseLibraryHasLintCases() {
        #expect(Self.caseCalls.count >= 5, "\(Self.caseCalls.map(\.name))")
    }

    @Test(arguments: calls.map(\.name))
    func everyFixLintStatesAsEditsLeavesNoNewError(_ name: String) throws {
        let call = try #require(Self.calls.first { $0.name == name })
        let sandbox = try Sandbox(initialize: false)
        let before = try Self.lint(call, in: sandbox, copy: "before")
        #expect(!before.isEmpty, "\(name) finds nothing to fix")
        var followed = 0
        for (number, finding) in before.enumerated() {
            let edits = finding["edits"] as? [[String: Any]] ?? []
            guard !edits.isEmpty else {
                #expect(
                    Self.fixedOutsideTheFiles.contains(finding["id"] as? String ?? ""),
                    "\(name): a fix of \(finding["id"] ?? "?") states no edit: \(finding["fix"] ?? "")")
                continue
            }
            let after = try Self.lint(call, in: sandbox, copy: "fix\(number)", edits: edits)
            let same = after.filter { Self.identity($0) == Self.identity(finding) }
            #expect(same.isEmpty, "\(name): following \(finding["fix"] ?? "") left \(same)")
            let known = Set(before.map(Self.identity))
            let new = after.filter { $0["severity"] as? String == "error" && !known.contains(Self.identity($0)) }
            #expect(new.isEmpty, "\(name): following \(finding["fix"] ?? "") (\(edits)) made \(new)")
            followed += 1
        }
        #expect(followed > 0 || before.allSatisfy { ($0["edits"] as? [Any])?.isEmpty ?? true }, "\(name): no fix followed")
    }

    /// The rules whose every fix the calls above follow as edits: all of them but the ones whose fix
    /// lies outside the files (where a rule has both kinds, such as KC013, an edit is still followed).
    @Test func theCallsCoverEveryRuleWithAnEdit() throws {
        var covered: Set<String> = []
        for call in Self.calls {
            let sandbox = try Sandbox(initialize: false)
            for finding in try Self.lint(call, in: sandbox, copy: "coverage") where !((finding["edits"] as? [Any])?.isEmpty ?? true) {
                covered.insert(finding["id"] as? String ?? "")
            }
        }
        for rule in ["KC001", "KC002", "KC003", "KC004", "KC007", "KC009", "KC010", "KC011", "KC012", "KC013", "KC017", "KC018", "KC021"] {
            #expect(covered.contains(rule), "no call follows an edit of \(rule)")
        }
    }

    /// A finding's identity across runs: its rule, target, entitlement and value (not its index,
    /// which an edit may shift).
    static func identity(_ finding: [String: Any]) -> String {
        ["id", "target", "key", "value"].map { "\(finding[$0] ?? "")" }.joined(separator: "|")
    }

    /// Lint `call` over copies of its files in `copy` (with `edits` made to them first); the findings.
    static func lint(
        _ call: (name: String, folder: String, arguments: [String]), in sandbox: Sandbox, copy: String, edits: [[String: Any]] = []
    ) throws -> [[String: Any]] {
        let folder = sandbox.folder + "/" + copy
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // Copy each file an argument names, and point the argument at the copy.
        var arguments: [String] = []
        var copies: [String: String] = [:]
        for (position, argument) in call.arguments.enumerated() {
            let previous = position > 0 ? call.arguments[position - 1] : ""
            guard ["--target", "--source", "--provisioning"].contains(previous), let equals = argument.firstIndex(of: "=") else {
                arguments.append(argument)
                continue
            }
            let path = String(argument[argument.index(after: equals)...])
            let copied =
                "\(folder)/\(copies.count)-\((path as NSString).lastPathComponent.replacingOccurrences(of: "{broken}", with: "broken.plist"))"
            if path == "{broken}" {
                try brokenClaims.write(toFile: copied, atomically: true, encoding: .utf8)
            } else {
                try FileManager.default.copyItem(atPath: path.hasPrefix("/") ? path : "\(call.folder)/\(path)", toPath: copied)
            }
            copies[path == "{broken}" ? "{broken}" : path] = copied
            arguments.append(argument[...equals] + copied)
        }
        // The edits name the files as the first run printed them: the copies of "before".
        let original = sandbox.folder + "/before/"
        var fileEdits: [[String: Any]] = []
        for edit in edits {
            var edit = edit
            let file = edit["file"] as? String ?? ""
            if file == "--code-group" {
                let index = try #require(edit["index"] as? Int)
                let positions = arguments.indices.filter { $0 > 0 && arguments[$0 - 1] == "--code-group" }
                try #require(edit["action"] as? String == "replace", "a code group is only replaced")
                arguments[positions[index]] = try #require(edit["value"] as? String)
                continue
            }
            #expect(file.hasPrefix(original), "an edit names \(file), not a file lint was given")
            edit["file"] = folder + "/" + file.dropFirst(original.count)
            fileEdits.append(edit)
        }
        if !fileEdits.isEmpty {
            let data = try JSONSerialization.data(withJSONObject: fileEdits)
            let applied = sandbox.run(
                ["-c", applyEdits, String(decoding: data, as: UTF8.self)], profile: nil, executable: "/usr/bin/python3")
            try #require(applied.status == 0, "\(applied.stderr)")
        }
        let clock = arguments.contains("--now") ? [] : ["--now", "2026-06-01T00:00:00Z"]
        let run = sandbox.run(["lint", "--format", "json"] + clock + arguments, profile: nil)
        try #require([0, 65].contains(run.status), "\(call.name): \(run.stderr)")
        return try #require(try run.json() as? [String: Any])["findings"] as? [[String: Any]] ?? []
    }

    /// The edits as a script makes them (docs/DEBUGGING.md).
    static let applyEdits = """
        import json, plistlib, sys
        for edit in json.loads(sys.argv[1]):
            with open(edit["file"], "rb") as f:
                data = plistlib.load(f)
            key, index, action, value = edit["key"], edit.get("index"), edit["action"], edit.get("value")
            if action == "replace":
                if index is None: data[key] = value
                else: data[key][index] = value
            elif action == "remove":
                if index is None: del data[key]
                else: del data[key][index]
            elif action == "put-first":
                data[key] = [value] + [g for g in data.get(key, []) if g != value]
            elif action == "append":
                if value not in data.setdefault(key, []): data[key].append(value)
            else:
                sys.exit("unknown action " + action)
            with open(edit["file"], "wb") as f:
                plistlib.dump(data, f)
        """
}
