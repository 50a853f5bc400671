import Foundation
import Testing

/// Entitlements read from what Xcode builds (docs/DEBUGGING.md): an app or extension bundle, its
/// signed executable (thin or universal), a macOS bundle, each with its embedded provisioning
/// profile. The fixture bundles are written by `Fixtures/Bundles/make-bundles.py`.
@Suite struct BundleTests {

    static func groups(_ sandbox: Sandbox, _ path: String, _ extra: [String] = []) throws -> [String: Any] {
        let run = sandbox.run(["groups", "--profile", path, "--format", "json"] + extra, profile: nil)
        #expect(run.status == 0, "\(path): \(run.stderr)")
        return try #require(try run.json() as? [String: Any])
    }

    static func groupNames(_ object: [String: Any]) -> [String] {
        (object["groups"] as? [[String: Any]] ?? []).compactMap { $0["group"] as? String }
    }

    @Test func aBundleGivesItsExecutablesEntitlementsAndItsProvisioningProfile() throws {
        let sandbox = try Sandbox()
        let app = try Self.groups(sandbox, Fixtures.bundles + "/Example.app")
        #expect(app["default"] as? String == "SKMME9E2Y8.com.example.app")
        #expect(Self.groupNames(app) == ["SKMME9E2Y8.com.example.app", "SKMME9E2Y8.com.example.shared", "group.com.example"])
        #expect((app["provisioning"] as? [String: Any])?["file"] as? String == Fixtures.bundles + "/Example.app/embedded.mobileprovision")
        #expect(app["validated"] as? Bool == true)
        // The universal executable alone: the same claims, no provisioning profile.
        let executable = try Self.groups(sandbox, Fixtures.bundles + "/Example.app/Example")
        #expect(Self.groupNames(executable) == Self.groupNames(app) && executable["validated"] as? Bool == false)
        let share = try Self.groups(sandbox, Fixtures.bundles + "/Example.app/PlugIns/Share.appex")
        #expect(share["default"] as? String == "SKMME9E2Y8.com.example.shared")
        // A signature with the DER form alone (slot 7) gives the same claims.
        let der = try Self.groups(sandbox, Fixtures.bundles + "/der-only")
        #expect(Self.groupNames(der) == Self.groupNames(share))
        let widget = try Self.groups(sandbox, Fixtures.bundles + "/Example.app/PlugIns/Widget.appex")
        #expect(Self.groupNames(widget) == ["SKMME9E2Y8.com.example.app.widget", "group.com.example"])
        // --provisioning replaces the embedded profile: here one of another team, which refuses the claims.
        let refused = sandbox.run(
            [
                "groups", "--profile", Fixtures.bundles + "/Example.app", "--provisioning",
                Sandbox.profiles + "/other-team.mobileprovision.plist",
            ],
            profile: nil)
        #expect(refused.status == 78, "\(refused.stderr)")
    }

    @Test func aMacOSBundleFollowsTheMacOSRules() throws {
        let sandbox = try Sandbox()
        let mac = try Self.groups(sandbox, Fixtures.bundles + "/ExampleMac.app")
        #expect(mac["platform"] as? String == "macos")
        // Unvalidated on macOS: the application identifier is ignored, com.apple.token implicit.
        #expect(Self.groupNames(mac) == ["SKMME9E2Y8.com.example.shared", "com.apple.token"])
        #expect((mac["ignored"] as? [[String: Any]])?.first?["group"] as? String == "SKMME9E2Y8.com.example.mac")
    }

    @Test func theAppAndItsExtensionsShareWhatTheirEntitlementsSay() throws {
        let sandbox = try Sandbox()
        let app = Fixtures.bundles + "/Example.app"
        let share = app + "/PlugIns/Share.appex"
        #expect(
            sandbox.run(["add", "-s", "com.example.api", "-a", "session", "--profile", app], profile: nil, stdin: Data("tok".utf8)).status
                == 0)
        #expect(sandbox.run(["find", "-s", "com.example.api", "--profile", share], profile: nil).status == 44, "the app's default group")
        #expect(
            sandbox.run(
                ["add", "-s", "shared", "-g", "SKMME9E2Y8.com.example.shared", "--profile", app], profile: nil, stdin: Data("t".utf8)
            )
            .status == 0)
        #expect(sandbox.run(["get", "shared", "--profile", share], profile: nil).stdout == "t")
        let lint = sandbox.run(
            [
                "lint", "--target", "app=" + app, "--target", "share=" + share, "--target", "widget=" + app + "/PlugIns/Widget.appex",
                "--format", "json",
            ],
            profile: nil)
        let findings = try #require((try lint.json() as? [String: Any])?["findings"] as? [[String: Any]], "\(lint.stderr)")
        #expect(lint.status == 0 && findings.contains { $0["id"] as? String == "KC003" }, "\(lint.stdout)")
        #expect(!findings.contains { $0["id"] as? String == "KC009" }, "the embedded profiles allow every claim")
    }

    /// `--app`: the app and every target inside it, each named by its bundle identifier.
    @Test func anAppIsEveryTargetInside() throws {
        let sandbox = try Sandbox()
        let app = Fixtures.bundles + "/Example.app"
        let groups = sandbox.run(["groups", "--app", app, "--format", "json"], profile: nil)
        let targets = try #require(try groups.json() as? [[String: Any]], "\(groups.stderr)")
        #expect(targets.compactMap { $0["target"] as? String } == ["com.example.app", "com.example.app.share", "com.example.app.widget"])
        #expect(targets.allSatisfy { $0["validated"] as? Bool == true }, "each with its own embedded profile")
        let lint = sandbox.run(["lint", "--app", app], profile: nil)
        #expect(lint.status == 0 && lint.stdout.contains("com.example.app.widget cannot read"), "\(lint.stdout)")
        #expect(sandbox.run(["lint", "--app", app, "--strict"], profile: nil).status == 65)
        #expect(sandbox.run(["add", "-s", "api", "--profile", app], profile: nil, stdin: Data("t".utf8)).status == 0)
        let matrix = sandbox.run(["matrix", "-s", "api", "--app", app], profile: nil)
        #expect(matrix.status == 0 && matrix.stdout.contains("com.example.app.share"), "\(matrix.stdout)\(matrix.stderr)")
        // An Xcode archive stands for its app.
        let archive = Fixtures.bundles + "/Example.xcarchive"
        let archived = try Self.groups(sandbox, archive)
        #expect(archived["default"] as? String == "SKMME9E2Y8.com.example.app" && archived["validated"] as? Bool == true)
        let archivedMatrix = sandbox.run(["matrix", "-s", "api", "--app", archive], profile: nil)
        #expect(archivedMatrix.status == 0 && archivedMatrix.stdout.contains("com.example.app.widget"), "\(archivedMatrix.stderr)")
        let twoApps = sandbox.folder + "/Two.xcarchive/Products/Applications"
        try FileManager.default.createDirectory(atPath: twoApps + "/A.app", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: twoApps + "/B.app", withIntermediateDirectories: true)
        let ambiguous = sandbox.run(["groups", "--profile", sandbox.folder + "/Two.xcarchive"], profile: nil)
        #expect(ambiguous.status == 78 && ambiguous.stderr.contains("2 apps"), "\(ambiguous.stderr)")
        // matrix and lint name targets alike: --target, with --profile as matrix's older spelling.
        let spelled = sandbox.run(
            ["matrix", "-s", "api", "--target", "app=" + app, "--profile", "share=" + app + "/PlugIns/Share.appex"], profile: nil)
        #expect(spelled.status == 0, "\(spelled.stderr)")
    }

    /// A bundle tree that loops, nests too deep or holds too many targets ends the walk: links are
    /// not followed, depth is capped, and too many targets is exit 78.
    @Test func hostileBundleTreesEndTheWalk() throws {
        let sandbox = try Sandbox(initialize: false)
        let share = Fixtures.bundles + "/Example.app/PlugIns/Share.appex"
        func copyBundle(to path: String) throws {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            for file in ["Info.plist", "Share", "embedded.mobileprovision"] {
                try FileManager.default.copyItem(atPath: share + "/" + file, toPath: path + "/" + file)
            }
        }
        let looped = sandbox.folder + "/Loop.app"
        try copyBundle(to: looped)
        try FileManager.default.createDirectory(atPath: looped + "/PlugIns", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: looped + "/PlugIns/Self.appex", withDestinationPath: looped)
        let loop = sandbox.run(["groups", "--app", looped, "--format", "json"], profile: nil)
        let loopTargets = try loop.json() as? [Any]
        #expect(loop.status == 0 && loopTargets?.count == 1, "\(loop.stderr)")
        var deep = sandbox.folder + "/Deep.app"
        for _ in 0..<8 {
            try copyBundle(to: deep)
            deep += "/PlugIns/Inner.appex"
        }
        let nested = sandbox.run(["groups", "--app", sandbox.folder + "/Deep.app", "--format", "json"], profile: nil)
        let nestedTargets = try nested.json() as? [Any]
        #expect(nested.status == 0 && nestedTargets?.count == 5, "depth is capped at 4 below the app")
        let wide = sandbox.folder + "/Wide.app"
        try copyBundle(to: wide)
        for index in 0..<70 { try copyBundle(to: wide + "/PlugIns/E\(index).appex") }
        let many = sandbox.run(["groups", "--app", wide], profile: nil)
        #expect(many.status == 78 && many.stderr.contains("more than 64 targets"), "\(many.stderr)")
    }

    /// The committed bundles are what the script writes.
    @Test func theFixtureBundlesAreWhatTheScriptWrites() throws {
        let sandbox = try Sandbox(initialize: false)
        let run = sandbox.run(
            [Fixtures.bundles + "/make-bundles.py", sandbox.folder], profile: nil, timeout: 60, executable: "/usr/bin/python3")
        #expect(run.status == 0, "\(run.stderr)")
        for top in ["Example.app", "Example.xcarchive", "ExampleMac.app"] {
            let files = try #require(FileManager.default.enumerator(atPath: sandbox.folder + "/" + top)?.allObjects as? [String])
            #expect(files.count >= 2)
            for file in files {
                var isFolder: ObjCBool = false
                _ = FileManager.default.fileExists(atPath: sandbox.folder + "/\(top)/" + file, isDirectory: &isFolder)
                guard !isFolder.boolValue else { continue }
                let made = FileManager.default.contents(atPath: sandbox.folder + "/\(top)/" + file)
                #expect(made == FileManager.default.contents(atPath: Fixtures.bundles + "/\(top)/" + file), "\(top)/\(file) differs")
            }
        }
        for file in ["der-only"] {
            let made = FileManager.default.contents(atPath: sandbox.folder + "/" + file)
            #expect(made != nil && made == FileManager.default.contents(atPath: Fixtures.bundles + "/" + file), "\(file) differs")
        }
        let ipa = FileManager.default.contents(atPath: sandbox.folder + "/Example.ipa")
        #expect(ipa != nil && ipa == FileManager.default.contents(atPath: Fixtures.bundles + "/Example.ipa"), "Example.ipa differs")
    }

    /// An `.ipa` is read in place: the same targets, claims and embedded profiles as the app it
    /// holds, named by paths through the archive, and nothing unpacked.
    @Test func anIpaIsReadInPlace() throws {
        let sandbox = try Sandbox()
        let ipa = Fixtures.bundles + "/Example.ipa"
        let before = try FileManager.default.contentsOfDirectory(atPath: sandbox.folder).sorted()
        let app = try Self.groups(sandbox, Fixtures.bundles + "/Example.app")
        let archived = try Self.groups(sandbox, ipa)
        #expect(Self.groupNames(archived) == Self.groupNames(app) && archived["validated"] as? Bool == true)
        #expect((archived["provisioning"] as? [String: Any])?["file"] as? String == ipa + "/Payload/Example.app/embedded.mobileprovision")
        let share = try Self.groups(sandbox, ipa + "/Payload/Example.app/PlugIns/Share.appex")
        #expect(share["default"] as? String == "SKMME9E2Y8.com.example.shared")
        let executable = try Self.groups(sandbox, ipa + "/Payload/Example.app/Example")
        #expect(Self.groupNames(executable) == Self.groupNames(app) && executable["validated"] as? Bool == false)
        // --provisioning takes the app, whose embedded profile signed it.
        let signed = try Self.groups(sandbox, Sandbox.profiles + "/app.plist", ["--provisioning", ipa])
        #expect(signed["validated"] as? Bool == true)
        // Every target at once, as from the folder.
        func findings(_ path: String) throws -> [String] {
            let lint = sandbox.run(["lint", "--app", path, "--format", "json"], profile: nil)
            let found = try #require((try lint.json() as? [String: Any])?["findings"] as? [[String: Any]], "\(lint.stderr)")
            return found.map { "\($0["id"] ?? "") \($0["target"] ?? "")" }
        }
        #expect(try findings(ipa) == findings(Fixtures.bundles + "/Example.app"))
        let groups = sandbox.run(["groups", "--app", ipa, "--format", "json"], profile: nil)
        let targets = try #require(try groups.json() as? [[String: Any]], "\(groups.stderr)")
        #expect(targets.compactMap { $0["target"] as? String } == ["com.example.app", "com.example.app.share", "com.example.app.widget"])
        #expect(sandbox.run(["add", "-s", "api", "--profile", ipa], profile: nil, stdin: Data("t".utf8)).status == 0)
        let matrix = sandbox.run(["matrix", "-s", "api", "--app", ipa], profile: nil)
        #expect(matrix.status == 0 && matrix.stdout.contains("com.example.app.widget"), "\(matrix.stderr)")
        let after = try FileManager.default.contentsOfDirectory(atPath: sandbox.folder).sorted()
        #expect(after == before, "nothing unpacked beside the keychain")
    }

    /// With no keychain, `matrix --app` says what the entitlements alone say: each target's groups,
    /// where its adds land, who reads them there, and which targets share no group at all.
    @Test func matrixWithoutAKeychainReportsTheEntitlements() throws {
        let sandbox = try Sandbox(initialize: false)
        let none = ["--keychain", sandbox.folder + "/none.db"]
        let text = sandbox.run(["matrix", "--app", Fixtures.bundles + "/Example.xcarchive"] + none, profile: nil)
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("keychain: none at"))
        #expect(text.stdout.contains("com.example.app.widget → SKMME9E2Y8.com.example.app.widget: visible to com.example.app.widget only"))
        #expect(!FileManager.default.fileExists(atPath: sandbox.folder + "/none.db"), "nothing created")
        let json = sandbox.run(
            [
                "matrix", "--target", "app=" + Sandbox.profiles + "/app.plist", "--target",
                "other=" + Sandbox.profiles + "/other-team.plist",
                "--format", "json",
            ] + none, profile: nil)
        let object = try #require(try json.json() as? [String: Any], "\(json.stderr)")
        #expect(object["keychain"] is NSNull && object["device"] is NSNull)
        #expect(object["strangers"] as? [[String]] == [["app", "other"]])
        // A query needs the items: without a keychain it is the usual error.
        let query = sandbox.run(["matrix", "--app", Fixtures.bundles + "/Example.app", "-s", "api"] + none, profile: nil)
        #expect(query.status == 53, "\(query.status) \(query.stderr)")
    }

    /// `explain --app`: the call explained for every target, each headed by its bundle identifier.
    @Test func explainTakesEveryTargetOfAnApp() throws {
        let sandbox = try Sandbox()
        let ipa = Fixtures.bundles + "/Example.ipa"
        #expect(sandbox.run(["add", "-s", "api", "--profile", ipa], profile: nil, stdin: Data("t".utf8)).status == 0)
        let text = sandbox.run(["explain", "-s", "api", "--app", ipa], profile: nil)
        #expect(text.status == 0 && text.stdout.components(separatedBy: "target: ").count == 4, "\(text.stdout)")
        let json = sandbox.run(["explain", "-s", "api", "--app", ipa, "--format", "json"], profile: nil)
        let objects = try #require(try json.json() as? [[String: Any]])
        let statuses = objects.map { ($0["target"] as? String ?? "", ($0["predicted"] as? [String: Any])?["status"] as? Int) }
        #expect(statuses.map(\.0) == ["com.example.app", "com.example.app.share", "com.example.app.widget"])
        #expect(statuses.map(\.1) == [0, -25300, -25300])
        #expect(sandbox.run(["explain", "-s", "api", "--app", ipa, "--strict"], profile: nil).status == 44)
        #expect(sandbox.run(["explain", "--app", ipa, "--team-change", "ABCDE12345"], profile: nil).status == 64)
    }

    /// `profile show --profile BUNDLE [--target ID]` prints a built target's signed entitlements
    /// as XML that reads back as the same claims: the same groups, in the same order.
    @Test func profileShowPrintsATargetsEntitlementsToEdit() throws {
        let sandbox = try Sandbox(initialize: false)
        let ipa = Fixtures.bundles + "/Example.ipa"
        for target in [nil, "com.example.app.share", "com.example.app.widget"] as [String?] {
            let shown = sandbox.run(["profile", "show", "--profile", ipa] + (target.map { ["--target", $0] } ?? []), profile: nil)
            #expect(shown.status == 0 && shown.stdout.hasPrefix("<?xml version=\"1.0\""), "\(shown.stderr)")
            let file = sandbox.folder + "/\(target ?? "app").entitlements"
            try shown.stdoutData.write(to: URL(fileURLWithPath: file))
            let bundle = ipa + (target.map { "/Payload/Example.app/PlugIns/\($0.hasSuffix("share") ? "Share" : "Widget").appex" } ?? "")
            let signed = try #require(
                try sandbox.run(["groups", "--profile", bundle, "--format", "json"], profile: nil).json() as? [String: Any])
            let edited = try #require(
                try sandbox.run(["groups", "--profile", file, "--format", "json"], profile: nil).json() as? [String: Any])
            let names = { (object: [String: Any]) in (object["groups"] as? [[String: Any]] ?? []).compactMap { $0["group"] as? String } }
            #expect(!names(signed).isEmpty && names(signed) == names(edited), "\(target ?? "app"): \(names(signed)) \(names(edited))")
        }
        let unknown = sandbox.run(["profile", "show", "--profile", ipa, "--target", "com.example.nope"], profile: nil)
        #expect(unknown.status == 78 && unknown.stderr.contains("its targets: com.example.app, com.example.app.share"), "\(unknown.stderr)")
        #expect(sandbox.run(["profile", "show", "--target", "com.example.app"], profile: nil).status == 64)
        #expect(sandbox.run(["profile", "path", "--target", "x"], profile: nil).status == 64)
    }

    /// Hostile archives (Fixtures/Bundles/make-hostile-archives.py) end in exit 78 naming the
    /// problem, each in well under a second (a 64 MiB executable of 32 repeated slices took 7 s of
    /// CPU when every read behind the last one inflated it again), never a crash or an app the
    /// archive does not plainly hold.
    @Test func hostileArchivesAreRefusedByName() throws {
        let sandbox = try Sandbox(initialize: false)
        let made = sandbox.run(
            [Fixtures.bundles + "/make-hostile-archives.py", sandbox.folder], profile: nil, timeout: 120, executable: "/usr/bin/python3")
        #expect(made.status == 0, "\(made.stderr)")
        let expected: [(String, Int32, String)] = [
            ("truncated", 78, "central directory cannot be read"), ("empty", 78, "central directory cannot be read"),
            ("traversal", 78, "outside the archive"), ("absolute", 78, "outside the archive"), ("control", 78, "not plain UTF-8"),
            ("duplicate", 78, "twice"), ("two-apps", 78, "2 apps in Payload"), ("no-app", 78, "0 apps in Payload"),
            ("symlink", 78, "not an app or extension bundle"), ("bomb", 78, "zip bomb"), ("huge-entry", 78, "larger than"),
            ("nested", 78, "not a Mach-O"), ("many", 78, "more than 64 targets"), ("lying-size", 78, "does not inflate"),
            ("lying-offset", 78, "does not inflate"), ("lying-count", 78, "central directory cannot be read"),
            ("overlapping", 78, "does not inflate"), ("deep", 0, ""), ("repeated-slices", 78, "overlap"),
            ("repeated-small", 78, "overlap"), ("spread-slices", 0, ""), ("far-blobs", 78, "inflated again"),
        ]
        for (name, status, problem) in expected {
            let path = sandbox.folder + "/\(name).ipa"
            for arguments in [["lint", "--app", path], ["groups", "--profile", path]] {
                let run = sandbox.run(arguments, profile: nil, timeout: 20)
                // The executable is inflated once at most: no layout within the caps costs more
                // than a second of CPU (counted by bash's `time`, whatever else the machine runs).
                let timed = sandbox.run(
                    ["-c", "TIMEFORMAT='%3U %3S'; { time \"$0\" \"$@\" > /dev/null 2>&1; } 2>&1", Sandbox.binary] + arguments, profile: nil,
                    timeout: 20, executable: "/bin/bash")
                let cpu = timed.stdout.split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
                    .reduce(0, +)
                #expect(cpu < 1.0, "\(name) \(arguments[0]) took \(timed.stdout) s of CPU")
                // --profile reads the app alone: the targets it embeds are --app's to count.
                let wanted = name == "many" && arguments[0] == "groups" ? 0 : status
                #expect(run.status == wanted, "\(name) \(arguments[0]): \(run.status) \(run.stderr)")
                if wanted != 0 { #expect(run.stderr.contains(problem), "\(name) \(arguments[0]): \(run.stderr)") }
                #expect(!run.stdout.contains("com.evil") && !run.stderr.contains("\u{1B}"), "\(name)")
            }
        }
        // Nesting is capped at four levels below the app, as for folders.
        let deep = sandbox.run(["groups", "--app", sandbox.folder + "/deep.ipa", "--format", "json"], profile: nil)
        #expect((try deep.json() as? [Any])?.count == 7, "the app, its two extensions and four nested levels")
        #expect(!FileManager.default.fileExists(atPath: sandbox.folder + "/escape"))
    }

    /// A folder or Info.plist that lies never sends keychainctl elsewhere, and every broken bundle
    /// is exit 78 naming what is wrong.
    @Test func brokenBundlesAreRefusedByName() throws {
        let sandbox = try Sandbox()
        func bundle(_ name: String, info: [String: Any]?, executable: [UInt8]? = nil) throws -> String {
            let path = sandbox.folder + "/" + name
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            if let info {
                try PropertyListSerialization.data(fromPropertyList: info, format: .binary, options: 0).write(
                    to: URL(fileURLWithPath: path + "/Info.plist"))
            }
            if let executable { try Data(executable).write(to: URL(fileURLWithPath: path + "/Exe")) }
            return path
        }
        let cases: [(String, String)] = [
            (try bundle("NoInfo.app", info: nil), "not an app or extension bundle"),
            (try bundle("NoExecutable.app", info: ["CFBundleIdentifier": "x"]), "names no executable"),
            (try bundle("Traversal.app", info: ["CFBundleExecutable": "../../../etc/passwd"]), "not a file name"),
            (try bundle("Missing.app", info: ["CFBundleExecutable": "Exe"]), "cannot read"),
            (try bundle("Text.app", info: ["CFBundleExecutable": "Exe"], executable: Array("#!/bin/sh\n".utf8)), "not a Mach-O"),
            (try bundle("Truncated.app", info: ["CFBundleExecutable": "Exe"], executable: [0xCF, 0xFA, 0xED, 0xFE, 0x0C]), "Mach-O"),
        ]
        for (path, expected) in cases {
            let run = sandbox.run(["groups", "--profile", path], profile: nil)
            #expect(run.status == 78 && run.stderr.contains(expected), "\(path): \(run.status) \(run.stderr)")
        }
        // Links out of the bundle are not followed (the review read /root/secret through one); a
        // link inside it is.
        let real = Fixtures.bundles + "/Example.app"
        let outside = try bundle("LinkOut.app", info: nil)
        try FileManager.default.createSymbolicLink(atPath: outside + "/Info.plist", withDestinationPath: real + "/Info.plist")
        let executableOut = try bundle("ExeOut.app", info: ["CFBundleExecutable": "Exe", "CFBundleIdentifier": "com.example.app"])
        try FileManager.default.createSymbolicLink(atPath: executableOut + "/Exe", withDestinationPath: real + "/Example")
        let inside = try bundle("LinkIn.app", info: ["CFBundleExecutable": "Exe", "CFBundleIdentifier": "com.example.app"])
        try FileManager.default.createDirectory(atPath: inside + "/Real", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: real + "/Example", toPath: inside + "/Real/Exe")
        try FileManager.default.createSymbolicLink(atPath: inside + "/Exe", withDestinationPath: "Real/Exe")
        let linkOut = sandbox.run(["groups", "--profile", outside], profile: nil)
        #expect(linkOut.status == 78 && linkOut.stderr.contains("not an app or extension bundle"), "\(linkOut.stderr)")
        let exeOut = sandbox.run(["groups", "--profile", executableOut], profile: nil)
        #expect(exeOut.status == 78 && exeOut.stderr.contains("a link out of the bundle"), "\(exeOut.stderr)")
        let linkIn = sandbox.run(["groups", "--profile", inside], profile: nil)
        #expect(linkIn.status == 0 && linkIn.stdout.contains("SKMME9E2Y8.com.example.app"), "\(linkIn.stderr)")
    }
}
