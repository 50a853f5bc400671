import Foundation
import Testing

/// The targets of a built app by the names lint and matrix print: `--target BUNDLE_ID` beside
/// `--profile APP.ipa|.app|.xcarchive` acts as that target in find, add, update, delete, explain
/// and groups; a failing find pasted after explain explains as written; and a miss whose item is
/// in a group the target cannot read says so, with the explain command that shows it.
@Suite struct BuiltTargetTests {
    static let ipa = Sandbox.packageRoot + "/Fixtures/Bundles/Example.ipa"
    static let widget = ["--profile", ipa, "--target", "com.example.app.widget"]
    static let app = ["--profile", ipa]

    @Test func eachCommandActsAsTheTargetNamed() throws {
        let sandbox = try Sandbox()
        let groups = sandbox.run(["groups"] + Self.widget, profile: nil)
        #expect(groups.status == 0 && groups.stdout.contains("default: SKMME9E2Y8.com.example.app.widget"), "\(groups.stdout)")
        #expect(groups.stdout.contains("Widget.appex"), "\(groups.stdout)")
        // add, find, update and delete as the widget: its own default group.
        #expect(sandbox.run(["add", "-s", "w", "-a", "a"] + Self.widget, profile: nil, stdin: Data("one".utf8)).status == 0)
        let found = sandbox.run(["find", "-s", "w", "-a", "a", "--format", "json"] + Self.widget, profile: nil)
        #expect((try? found.json() as? [String: Any])?["agrp"] as? String == "SKMME9E2Y8.com.example.app.widget", "\(found.stdout)")
        let updated = sandbox.run(
            ["update", "-s", "w", "-a", "a", "--set-data-stdin"] + Self.widget, profile: nil, stdin: Data("two".utf8))
        #expect(updated.status == 0, "\(updated.stderr)")
        #expect(sandbox.run(["find", "-s", "w", "-a", "a", "-w"] + Self.widget, profile: nil).stdout == "two")
        // The app cannot read the widget's group: the same find as the app misses.
        #expect(sandbox.run(["find", "-s", "w", "-a", "a"] + Self.app, profile: nil).status == 44)
        #expect(sandbox.run(["delete", "-s", "w", "-a", "a"] + Self.widget, profile: nil).status == 0)
        #expect(sandbox.run(["find", "-s", "w", "-a", "a"] + Self.widget, profile: nil).status == 44)
    }

    /// Without --target the call is the app's, and a note names the other targets; a name it
    /// lists, given as --target, is taken.
    @Test func anAppWithSeveralTargetsListsThem() throws {
        let sandbox = try Sandbox()
        let groups = sandbox.run(["groups"] + Self.app, profile: nil)
        #expect(groups.status == 0 && groups.stdout.contains("default: SKMME9E2Y8.com.example.app\n"), "\(groups.stdout)")
        let listed = try #require(
            groups.stderr.components(separatedBy: "holds 3 targets: ").dropFirst().first?.components(separatedBy: ";").first,
            "\(groups.stderr)")
        #expect(listed == "com.example.app, com.example.app.share, com.example.app.widget")
        for name in listed.components(separatedBy: ", ") {
            let chosen = sandbox.run(["groups", "--profile", Self.ipa, "--target", name], profile: nil)
            #expect(chosen.status == 0 && !chosen.stderr.contains("note:"), "\(name): \(chosen.stderr)")
        }
        // One target only (a bundle inside the archive): no note.
        let inside = sandbox.run(["groups", "--profile", Self.ipa + "/Payload/Example.app/PlugIns/Share.appex"], profile: nil)
        #expect(inside.status == 0 && inside.stderr.isEmpty, "\(inside.stderr)")
    }

    @Test func anUnknownTargetIsAUsageErrorNamingTheTargets() throws {
        let sandbox = try Sandbox()
        let typo = sandbox.run(["groups", "--profile", Self.ipa, "--target", "com.example.app.widgte"], profile: nil)
        #expect(typo.status == 64, "\(typo.stderr)")
        #expect(typo.stderr.contains("did you mean com.example.app.widget?"), "\(typo.stderr)")
        #expect(typo.stderr.contains("its targets: com.example.app, com.example.app.share, com.example.app.widget"), "\(typo.stderr)")
        let plist = sandbox.run(["groups", "--target", "com.example.app"], profile: "app.plist")
        #expect(plist.status == 64 && plist.stderr.contains("is not one: give the app as --profile"), "\(plist.stderr)")
    }

    /// The review's widget case from the .ipa: the failing find, its message pointing at explain,
    /// and that command, run as printed, showing the item HIDDEN in the app's group.
    @Test func aMissForAnItemInAnotherGroupPointsAtExplain() throws {
        let sandbox = try Sandbox()
        #expect(
            sandbox.run(["add", "-s", "com.example.api", "-a", "session"] + Self.app, profile: nil, stdin: Data("tok".utf8)).status == 0)
        let miss = sandbox.run(["find", "-s", "com.example.api", "-a", "session", "-w"] + Self.widget, profile: nil)
        #expect(miss.status == 44, "\(miss.stderr)")
        let command = try #require(
            miss.stderr.components(separatedBy: "does not read: '").dropFirst().first?.components(separatedBy: "' says").first,
            "\(miss.stderr)")
        #expect(command.hasPrefix("keychainctl explain "), "\(command)")
        let folder = (Sandbox.binary as NSString).deletingLastPathComponent
        let explained = sandbox.run(
            ["-c", command], profile: nil, environment: ["PATH": folder + ":/usr/bin:/bin"], executable: "/bin/sh")
        #expect(explained.status == 0, "\(explained.stderr)")
        #expect(explained.stdout.contains("HIDDEN     is in SKMME9E2Y8.com.example.app"), "\(explained.stdout)")
        // get's miss points at explain too.
        let get = sandbox.run(["get", "com.example.api", "session"] + Self.widget, profile: nil)
        #expect(get.status == 44 && get.stderr.contains("'keychainctl explain --service=com.example.api"), "\(get.stderr)")
        // No pointer when nothing matches anywhere.
        let nowhere = sandbox.run(["find", "-s", "nothing-here"] + Self.widget, profile: nil)
        #expect(nowhere.status == 44 && !nowhere.stderr.contains("explain"), "\(nowhere.stderr)")
    }

    /// The pointer is worked out with the call's own keychain and caller: on a passphrase keychain
    /// whose passphrase came from KEYCHAINCTL_PASSPHRASE (wiped once read), opening it again would
    /// find no passphrase (or, on a terminal, ask for it a second time).
    @Test func thePointerOnAPassphraseKeychainOpensItOnce() throws {
        let locked = try Fixtures.passphraseKeychain()
        // The fixture's item is in the app's group; the widget cannot read it.
        let miss = locked.sandbox.run(["find", "-s", "api", "-a", "ci"], profile: "widget.plist", environment: locked.withPassphrase)
        #expect(miss.status == 44, "\(miss.stderr)")
        #expect(miss.stderr.contains("1 item matches in access groups this profile does not read"), "\(miss.stderr)")
        let get = locked.sandbox.run(["get", "api", "ci"], profile: "widget.plist", environment: locked.withPassphrase)
        #expect(get.status == 44 && get.stderr.contains("'keychainctl explain --service=api"), "\(get.stderr)")
    }

    /// DEBUGGING says to run explain with a failing find's options: find's output options are
    /// taken as they are.
    @Test func explainTakesFindsOutputOptions() throws {
        let sandbox = try Sandbox()
        for extra in [["-w"], ["--return", "attributes,data"], ["--limit", "all"], ["--allow-private-key-export"], ["--skip-damaged"]] {
            let run = sandbox.run(["explain", "-s", "com.example.api"] + extra + Self.widget, profile: nil)
            #expect(run.status == 0 && run.stdout.contains("query: find genp svce=com.example.api"), "\(extra): \(run.stderr)")
        }
    }
}
