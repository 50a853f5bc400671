import Foundation
import Testing

/// Through the binary: `matrix` text and JSON, its usage errors, no secret in sight.
@Suite struct MatrixCommandTests {
    /// The seeds' test matrix: the app, its share extension and its widget, each adding one item
    /// without a group, plus a synchronizable item in the app group and an item left in the old
    /// shared group.
    static func seedMatrix() throws -> Sandbox {
        let sandbox = try Sandbox()
        #expect(sandbox.add(["-a", "alice", "-s", "api.example.com"], secret: "alice-SECRET").status == 0)
        #expect(sandbox.add(["-a", "bob", "-s", "api.example.com"], secret: "bob-SECRET", profile: "share-extension.plist").status == 0)
        #expect(sandbox.add(["-a", "w", "-s", "api.example.com"], secret: "w-SECRET", profile: "widget.plist").status == 0)
        #expect(
            sandbox.add(["-a", "ci", "-s", "api.example.com", "-g", "group.com.example", "--sync", "yes"], secret: "ci-SECRET").status
                == 0)
        return sandbox
    }

    static let targets = [
        "--profile", "app=\(Sandbox.profiles)/app.plist", "--profile", "share=\(Sandbox.profiles)/share-extension.plist",
        "--profile", "widget=\(Sandbox.profiles)/widget.plist",
    ]

    @Test(arguments: [
        ("text", [], "matrix-seed.txt"), ("json", [], "matrix-seed.json"), ("text", ["--by", "group"], "matrix-groups.txt"),
    ])
    func seedMatrixMatchesGolden(_ format: String, _ extra: [String], _ file: String) throws {
        let sandbox = try Self.seedMatrix()
        let run = sandbox.run(["matrix", "-s", "api.example.com", "--format", format] + extra + Self.targets, profile: nil)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stdout.contains("SECRET"))
        try GoldenFile.check(GoldenFile.normalized(run.stdout), file)
    }

    @Test func footerSaysWhereEachTargetsAddsLandAndJSONAgrees() throws {
        let sandbox = try Self.seedMatrix()
        let text = sandbox.run(["matrix"] + Self.targets, profile: nil).stdout
        #expect(text.contains("widget → SKMME9E2Y8.com.example.app.widget: visible to widget only; hidden from app, share"))
        let run = sandbox.run(["matrix", "--format", "json", "--sync", "any"] + Self.targets, profile: nil)
        let object = try #require(try run.json() as? [String: Any])
        let defaults = try #require(object["defaults"] as? [[String: Any]])
        #expect(defaults.map { $0["profile"] as? String } == ["app", "share", "widget"])
        #expect(defaults[1]["visibleTo"] as? [String] == ["app", "share"])
        let rows = try #require(object["rows"] as? [[String: Any]])
        let ci = try #require(rows.first { (($0["item"] as? [String: Any])?["acct"] as? String) == "ci" })
        let cells = try #require(ci["cells"] as? [[String: Any]])
        #expect(cells.map { $0["read"] as? Bool } == [true, true, true])  // group.com.example, --sync any
        #expect(cells.allSatisfy { ($0["reasons"] as? [String]) == [] })
    }

    /// Each cell agrees with the real `find` the target would run.
    @Test func cellsAgreeWithTheRealFind() throws {
        let sandbox = try Self.seedMatrix()
        let run = sandbox.run(["matrix", "--format", "json", "--sync", "any"] + Self.targets, profile: nil)
        let object = try #require(try run.json() as? [String: Any])
        let rows = try #require(object["rows"] as? [[String: Any]])
        let profiles = ["app.plist", "share-extension.plist", "widget.plist"]
        for row in rows {
            let item = try #require(row["item"] as? [String: Any])
            let account = try #require(item["acct"] as? String)
            let cells = try #require(row["cells"] as? [[String: Any]])
            for (profile, cell) in zip(profiles, cells) {
                let find = sandbox.run(["find", "-a", account, "--sync", "any"], profile: profile)
                #expect((cell["read"] as? Bool) == (find.status == 0), "\(profile) reading \(account)")
            }
        }
    }

    @Test(arguments: [
        ["matrix"],
        ["matrix", "--profile", "a=/x/app.plist", "--profile", "a=/x/widget.plist"],
        ["matrix", "--profile", "a=/x/app.plist", "--profile", "b=/x/app.plist"],
        ["matrix", "--profile", "a=/x/app.plist", "--provisioning", "b=/x/p.mobileprovision"],
        ["matrix", "--profile", "a=/x/app.plist", "--provisioning", "/x/p.mobileprovision"],
        ["matrix", "--profile", "a=/x/app.plist", "--by", "column"],
        ["matrix", "--profile", "a="],
    ])
    func usageErrorsAre64(_ arguments: [String]) throws {
        let sandbox = try Sandbox()
        let run = sandbox.run(arguments, profile: nil)
        #expect(run.status == 64, "\(arguments): \(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    @Test func unreadableOrRefusedProfilesAre78NamingTheFile() throws {
        let sandbox = try Self.seedMatrix()
        let missing = sandbox.run(["matrix", "--profile", "app=\(sandbox.folder)/nope.plist"] + Self.targets.suffix(2), profile: nil)
        #expect(missing.status == 78)
        #expect(missing.stderr.contains("nope.plist"))
        let truncated = sandbox.folder + "/truncated.mobileprovision"
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Sandbox.profiles + "/dev-app.mobileprovision"))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: truncated))
        let cut = sandbox.run(
            ["matrix", "--profile", "app=\(Sandbox.profiles)/app.plist", "--provisioning", "app=\(truncated)"], profile: nil)
        #expect(cut.status == 78)
        #expect(cut.stderr.contains("truncated.mobileprovision"))
        let refused = sandbox.run(
            [
                "matrix", "--profile", "app=\(Sandbox.profiles)/app.plist", "--provisioning",
                "app=\(Sandbox.profiles)/other-team.mobileprovision.plist",
            ], profile: nil)
        #expect(refused.status == 78)
        #expect(refused.stderr.contains("keychain-access-groups"))
    }
}
