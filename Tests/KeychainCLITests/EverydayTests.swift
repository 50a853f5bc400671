import Foundation
import Testing

/// A script's everyday use (docs/GUIDE.md, "Everyday secrets"): no profile anywhere, the verbs
/// `set`, `get`, `ls`, `rm`, `backup`, and the guards against destroying by accident.
@Suite struct EverydayTests {
    /// A sandbox whose calls give no profile: the built-in one, or the user default in its HOME.
    static func sandbox() throws -> Sandbox { try Sandbox() }

    static func run(_ sandbox: Sandbox, _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]) -> Sandbox.Run {
        sandbox.run(arguments, profile: nil, stdin: stdin.map { Data($0.utf8) }, environment: environment)
    }

    @Test func withNoProfileAnywhereTheBuiltInOneServes() throws {
        let sandbox = try Self.sandbox()
        #expect(Self.run(sandbox, ["set", "github"], stdin: "ghp_token\n").status == 0)
        #expect(Self.run(sandbox, ["get", "github"]).stdout == "ghp_token", "one trailing newline is dropped")
        let groups = Self.run(sandbox, ["groups", "--format", "json"])
        let object = try #require(try groups.json() as? [String: Any])
        #expect(object["source"] as? String == "built-in" && object["default"] as? String == "keychainctl.default")
        let shown = Self.run(sandbox, ["profile", "show"])
        #expect(shown.stdout.contains("<string>keychainctl.default</string>"))
        // The printed profile is a profile: loaded from a file, it gives the same groups.
        let file = sandbox.folder + "/copy.plist"
        try Data(shown.stdout.utf8).write(to: URL(fileURLWithPath: file))
        #expect(Self.run(sandbox, ["get", "github", "--profile", file]).stdout == "ghp_token")
        // A user default replaces it; --profile and KEYCHAINCTL_PROFILE come first.
        let path = Self.run(sandbox, ["profile", "path"])
        #expect(path.stdout == sandbox.folder + "/.config/keychainctl/profile.plist\n" && path.stderr.contains("does not exist"))
        try FileManager.default.createDirectory(atPath: sandbox.folder + "/.config/keychainctl", withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: Sandbox.profiles + "/app.plist", toPath: sandbox.folder + "/.config/keychainctl/profile.plist")
        let user = Self.run(sandbox, ["groups", "--format", "json"])
        #expect((try user.json() as? [String: Any])?["source"] as? String == "user-default")
        #expect(Self.run(sandbox, ["get", "github"]).status == 44, "the app's groups do not hold the built-in group's item")
        let env = Self.run(sandbox, ["groups", "--format", "json"], environment: ["KEYCHAINCTL_PROFILE": file])
        #expect((try env.json() as? [String: Any])?["source"] as? String == "environment")
        // XDG_CONFIG_HOME moves the user default.
        let moved = Self.run(sandbox, ["profile", "path"], environment: ["XDG_CONFIG_HOME": sandbox.folder + "/elsewhere"])
        #expect(moved.stdout == sandbox.folder + "/elsewhere/keychainctl/profile.plist\n")
        // A broken user default is an error, never a silent fall-back to the built-in profile.
        try Data("not a plist".utf8).write(to: URL(fileURLWithPath: sandbox.folder + "/.config/keychainctl/profile.plist"))
        #expect(Self.run(sandbox, ["get", "github"]).status == 78)
        // The built-in profile takes no provisioning profile.
        let provisioned = Self.run(
            sandbox, ["get", "github", "--provisioning", Sandbox.profiles + "/dev-app.mobileprovision"],
            environment: ["XDG_CONFIG_HOME": sandbox.folder + "/none"])
        #expect(provisioned.status == 78 && provisioned.stderr.contains("--profile"), "\(provisioned.stderr)")
    }

    /// A Swift program run with no profile keeps its items in a group of its own, which the
    /// command's built-in profile does not read: `ls` then finds nothing, and says so on stderr,
    /// naming the group and how to act as that program. The hint, run as printed, lists the item.
    @Test func anEmptyListingNamesTheGroupsItCannotRead() throws {
        let sandbox = try Self.sandbox()
        let program = sandbox.folder + "/program.plist"
        let shown = Self.run(sandbox, ["profile", "show", "--program", "tokenapp"])
        try shown.stdout.write(toFile: program, atomically: true, encoding: .utf8)
        #expect(Self.run(sandbox, ["add", "-s", "com.example.api", "-a", "access-token", "--profile", program], stdin: "tok").status == 0)
        let listed = Self.run(sandbox, ["ls"])
        #expect(listed.status == 0 && listed.stdout.isEmpty, "\(listed.stdout)")
        #expect(listed.stderr.contains("1 secret is in groups it cannot read: keychainctl.program.tokenapp (1)"), "\(listed.stderr)")
        let hint = try #require(
            listed.stderr.components(separatedBy: "To act as the program tokenapp: ").last?.components(separatedBy: ".\n").first)
        let commands = hint.components(separatedBy: ", then ")
        #expect(commands.count == 2, "\(hint)")
        let followed = sandbox.run(
            ["-c", commands.joined(separator: " && ")], profile: nil, environment: ["PATH": try sandbox.pathWithKeychainctl()],
            executable: "/bin/sh", inFolder: true)
        #expect(
            followed.status == 0 && followed.stdout.contains("com.example.api\taccess-token\tkeychainctl.program.tokenapp"),
            "\(followed.stdout) \(followed.stderr)")
        // A keychain with nothing in it at all stays silent.
        let empty = try Self.sandbox()
        #expect(Self.run(empty, ["ls"]).stderr.isEmpty)
    }

    /// `profile show --program NAME` prints the profile a Swift program of that name has with no
    /// profile: the built-in form with the program's own group, which the command's is not. It
    /// goes with `show` alone and without `--profile`, whose profile it would not be.
    @Test func profileShowPrintsAProgramsOwnProfile() throws {
        let sandbox = try Self.sandbox()
        let shown = Self.run(sandbox, ["profile", "show", "--program", "myserver"])
        #expect(shown.status == 0 && shown.stdout.contains("<string>keychainctl.program.myserver</string>"), "\(shown.stderr)")
        #expect(!shown.stdout.contains("keychainctl.default"))
        let file = sandbox.folder + "/myserver.plist"
        try Data(shown.stdout.utf8).write(to: URL(fileURLWithPath: file))
        #expect(Self.run(sandbox, ["set", "api", "--profile", file], stdin: "s3cret").status == 0)
        #expect(Self.run(sandbox, ["get", "api"]).status == 44, "the command's own group does not hold the program's item")
        #expect(Self.run(sandbox, ["get", "api", "--profile", file]).stdout == "s3cret")
        // A profile in the environment is the caller's own: --program prints the program's all the
        // same (explain's fix for a program's item says to run exactly this).
        let withVariable = Self.run(sandbox, ["profile", "show", "--program", "myserver"], environment: ["KEYCHAINCTL_PROFILE": file])
        #expect(withVariable.status == 0 && withVariable.stdout == shown.stdout, "\(withVariable.stderr)")
        for wrong in [
            ["profile", "path", "--program", "x"], ["profile", "show", "--program", "x", "--profile", file],
            ["profile", "show", "--program", "x", "--target", "com.example.app"],
        ] {
            let run = Self.run(sandbox, wrong)
            #expect(run.status == 64 && run.stderr.contains("--program"), "\(wrong): \(run.stderr)")
        }
    }

    @Test func setReadsAndReplacesGetNeverPicksOne() throws {
        let sandbox = try Self.sandbox()
        #expect(Self.run(sandbox, ["set", "api", "ci"], stdin: "one\r\n").status == 0)
        #expect(Self.run(sandbox, ["get", "api", "ci"]).stdout == "one", "CRLF is one newline")
        #expect(Self.run(sandbox, ["set", "api", "ci", "--keep-newline"], stdin: "two\n").status == 0)
        #expect(Self.run(sandbox, ["get", "api", "ci"]).stdout == "two\n")
        let file = sandbox.folder + "/secret.bin"
        try Data("three\n\n".utf8).write(to: URL(fileURLWithPath: file))
        #expect(Self.run(sandbox, ["set", "api", "ci", "--data-file", file]).status == 0)
        #expect(Self.run(sandbox, ["get", "api", "ci"]).stdout == "three\n\n", "a file is byte-exact")
        // Replacing keeps the item: one item, the same persistent reference.
        let listed = try #require(try Self.run(sandbox, ["ls", "--format", "json"]).json() as? [[String: Any]])
        #expect(listed.count == 1)
        #expect(Self.run(sandbox, ["set", "api"], stdin: "four").status == 0, "the one item of the service, whatever its account")
        let after = try #require(try Self.run(sandbox, ["ls", "--format", "json"]).json() as? [[String: Any]])
        #expect(after.count == 1 && after[0]["ref"] as? String == listed[0]["ref"] as? String && after[0]["account"] as? String == "ci")
        // A second account makes the name ambiguous for get, set and rm: an error naming both.
        #expect(Self.run(sandbox, ["set", "api", "deploy", "-l", "Deploy key"], stdin: "five").status == 0)
        for verb in [["get", "api"], ["rm", "api"], ["set", "api"]] {
            let ambiguous = Self.run(sandbox, verb, stdin: verb[0] == "set" ? "x" : nil)
            #expect(
                ambiguous.status == 206 && ambiguous.stderr.contains("'ci'") && ambiguous.stderr.contains("'deploy'"), "\(ambiguous.stderr)"
            )
            #expect(ambiguous.stdout.isEmpty)
        }
        #expect(Self.run(sandbox, ["get", "api", "ci"]).stdout == "four")
        #expect(Self.run(sandbox, ["get", "nothing"]).status == 44)
        #expect(Self.run(sandbox, ["get"]).status == 64)
        #expect(Self.run(sandbox, ["get", "a", "b", "c"]).status == 64)
        // get reaches a synchronizable item without --sync any, as find does not.
        #expect(sandbox.run(["add", "-s", "synced", "--sync", "yes"], profile: nil, stdin: Data("s".utf8)).status == 0)
        #expect(Self.run(sandbox, ["get", "synced"]).stdout == "s")
        #expect(Self.run(sandbox, ["find", "-s", "synced"]).status == 44)
    }

    /// `producer | keychainctl set NAME` whose producer failed reads nothing: the stored secret stays,
    /// the refusal says how to store an empty one on purpose, and that works as said.
    @Test func setKeepsTheSecretWhenStandardInputIsEmpty() throws {
        let sandbox = try Self.sandbox()
        #expect(Self.run(sandbox, ["set", "api", "ci"], stdin: "t0ken").status == 0)
        let empty = Self.run(sandbox, ["set", "api", "ci", "--label", "L"], stdin: "")
        #expect(empty.status == 206 && empty.stderr.contains("nothing was stored"), "\(empty.stderr)")
        #expect(Self.run(sandbox, ["get", "api", "ci"]).stdout == "t0ken")
        #expect(Self.run(sandbox, ["set", "fresh"], stdin: "").status == 206, "nor is a new item stored empty")
        #expect(Self.run(sandbox, ["get", "fresh"]).status == 44)
        let hint = "give the same command --data-file /dev/null"
        #expect(empty.stderr.contains(hint))
        #expect(Self.run(sandbox, ["set", "api", "ci", "--label", "L", "--data-file", "/dev/null"]).status == 0)
        #expect(Self.run(sandbox, ["get", "api", "ci"]).stdout.isEmpty)
        let listed = Self.run(sandbox, ["find", "-s", "api", "-a", "ci", "--format", "json"])
        #expect((try listed.json() as? [String: Any])?["labl"] as? String == "L")
    }

    @Test func generatedPasswordsAreRandomAndShownOnlyWhenAsked() throws {
        let sandbox = try Self.sandbox()
        let quiet = Self.run(sandbox, ["set", "db", "--generate"])
        #expect(quiet.status == 0 && quiet.stdout.isEmpty && quiet.stderr.isEmpty)
        let first = Self.run(sandbox, ["get", "db"]).stdout
        #expect(first.count == 32 && first.allSatisfy { $0.isLetter || $0.isNumber } && first.allSatisfy(\.isASCII))
        let printed = Self.run(sandbox, ["set", "db", "--generate", "--length", "12", "--print"])
        #expect(printed.stdout.count == 12 && printed.stdout == Self.run(sandbox, ["get", "db"]).stdout && printed.stdout != first)
        #expect(Self.run(sandbox, ["set", "db", "--generate", "--length", "7"]).status == 64)
        #expect(Self.run(sandbox, ["set", "db", "--print"], stdin: "x").status == 64)
        #expect(Self.run(sandbox, ["set", "db", "--generate", "--data-file", "/dev/null"]).status == 64)
    }

    @Test func lsListsOneLinePerItemAndRemovesNothing() throws {
        let sandbox = try Self.sandbox()
        let empty = Self.run(sandbox, ["ls"])
        #expect(empty.status == 0 && empty.stdout.isEmpty, "an empty keychain lists nothing")
        #expect(Self.run(sandbox, ["set", "b-svc", "acct", "-l", "a label"], stdin: "x").status == 0)
        #expect(Self.run(sandbox, ["set", "a-svc", "tab\there"], stdin: "x").status == 0)
        #expect(Self.run(sandbox, ["set", "other"], stdin: "x").status == 0)
        let lines = Self.run(sandbox, ["ls", "*-svc"]).stdout.split(separator: "\n").map {
            $0.split(separator: "\t", omittingEmptySubsequences: false)
        }
        #expect(lines.count == 2)
        #expect(lines.first?.prefix(4).map(String.init) == ["a-svc", "tab\\there", "keychainctl.default", ""], "sorted, the tab escaped")
        #expect(lines.last?.prefix(4).map(String.init) == ["b-svc", "acct", "keychainctl.default", "a label"])
        let json = try #require(try Self.run(sandbox, ["ls", "b-*", "--format", "json"]).json() as? [[String: Any]])
        #expect(json.count == 1 && json[0]["service"] as? String == "b-svc" && json[0]["svce"] as? String == "b-svc")
        #expect(json[0]["label"] as? String == "a label" && json[0]["synchronizable"] as? Bool == false)
        #expect(Self.run(sandbox, ["rm", "other"]).status == 0)
        #expect(Self.run(sandbox, ["rm", "other"]).status == 44)
        #expect(Self.run(sandbox, ["ls"]).stdout.split(separator: "\n").count == 2)
    }

    /// `set` never writes a local secret into a synchronizable item another device planted under
    /// the name (the next sync would send it to every device): 206, nothing stored; the hint,
    /// followed as printed, replaces it there; a local item beside it is the one `set` updates.
    /// `ls` shows which is which.
    @Test func setLeavesSynchronizableItemsToSync() throws {
        let sandbox = try Self.sandbox()
        #expect(Self.run(sandbox, ["add", "-s", "prod db", "-a", "", "--sync", "yes"], stdin: "planted").status == 0)
        let refused = Self.run(sandbox, ["set", "prod db"], stdin: "LOCAL-ONLY-SECRET")
        #expect(refused.status == 206 && refused.stderr.contains("synchronizable item"), "\(refused.stderr)")
        #expect(Self.run(sandbox, ["get", "prod db"]).stdout == "planted", "nothing was stored")
        let hint = try #require(refused.stderr.components(separatedBy: "run '").dropFirst().first?.components(separatedBy: "';").first)
        #expect(hint == "keychainctl set 'prod db' --sync", "\(refused.stderr)")
        let followed = sandbox.run(
            ["-c", "printf EVERYWHERE | \(hint.replacingOccurrences(of: "keychainctl", with: "\"$0\""))", Sandbox.binary],
            profile: nil, executable: "/bin/sh")
        #expect(followed.status == 0 && Self.run(sandbox, ["get", "prod db"]).stdout == "EVERYWHERE", "\(followed.stderr)")
        // A local item of the same name: set updates it and leaves the synchronizable one alone.
        #expect(Self.run(sandbox, ["add", "-s", "prod db", "-a", ""], stdin: "local").status == 0)
        #expect(Self.run(sandbox, ["set", "prod db"], stdin: "LOCAL-2").status == 0)
        let listed = Self.run(sandbox, ["ls"]).stdout.split(separator: "\n").map { $0.split(separator: "\t").last.map(String.init) }
        #expect(listed == ["no", "yes"] || listed == ["yes", "no"], "\(listed)")
        let synced = Self.run(sandbox, ["find", "-s", "prod db", "--sync", "yes", "-w"])
        #expect(synced.stdout == "EVERYWHERE", "\(synced.stdout)")
        // A new name with --sync is a new synchronizable item.
        #expect(Self.run(sandbox, ["set", "shared", "--sync"], stdin: "x").status == 0)
        #expect(Self.run(sandbox, ["find", "-s", "shared", "--sync", "yes"]).status == 0)
    }

    /// A command line as scripting tools take one: global options before the subcommand too,
    /// `exec --env VAR=NAME` for what `set NAME` stored, required arguments shown bare in usage.
    @Test func theCommandLineReadsLikeAScriptingTool() throws {
        let sandbox = try Self.sandbox()
        #expect(Self.run(sandbox, ["set", "api-token"], stdin: "tok-value").status == 0)
        let before = Self.run(sandbox, ["--keychain", sandbox.keychain, "--format", "json", "get", "api-token"])
        #expect(before.status == 0 && before.stdout == "tok-value", "\(before.stderr)")
        let listed = Self.run(sandbox, ["--format=json", "ls"])
        #expect(listed.status == 0 && listed.stdout.hasPrefix("[{"), "\(listed.stderr)")
        // Before an exec's --, never after it: the command's own words stay its own.
        let exec = Self.run(
            sandbox,
            [
                "--keychain", sandbox.keychain, "exec", "--mask", "never", "--env", "T=api-token", "--", "sh", "-c", "echo \"$T\" \"$1\"",
                "sh", "--format",
            ])
        #expect(exec.status == 0 && exec.stdout == "tok-value --format\n", "\(exec.stdout) \(exec.stderr)")
        #expect(Self.run(sandbox, ["--nonsense", "get", "api-token"]).status == 64)
        #expect(Self.run(sandbox, ["--keychain"]).status == 64)
        for (command, usage) in [
            ("set", "set NAME [ACCOUNT] [options]"), ("get", "get NAME [ACCOUNT]"), ("backup", "backup DEST [options]"),
        ] {
            #expect(Self.run(sandbox, [command, "--help"]).stdout.contains("USAGE: keychainctl \(usage)"), "\(command)")
            // `help VERB` is the verb's own help, word for word (it printed the general help).
            let viaHelp = Self.run(sandbox, ["help", command])
            #expect(viaHelp.status == 0 && viaHelp.stdout == Self.run(sandbox, [command, "--help"]).stdout, "help \(command)")
        }
        let unknown = Self.run(sandbox, ["help", "nonsense"])
        #expect(unknown.status == 64 && unknown.stderr.contains("unknown subcommand 'nonsense'"), "\(unknown.stderr)")
        // lock says what it did, in the user's words.
        #expect(Self.run(sandbox, ["lock"]).stderr == "no key is cached for \(sandbox.keychain): nothing to lock\n")
    }

    @Test func deleteAndUpdateNeedAllToSelectEverything() throws {
        let sandbox = try Self.sandbox()
        for name in ["one", "two"] { #expect(Self.run(sandbox, ["set", name], stdin: "x").status == 0) }
        for command in [
            ["delete"], ["update", "--set-label", "x"], ["delete", "--class", "genp"], ["update", "--class", "inet", "--set-label", "x"],
        ] {
            let refused = Self.run(sandbox, command)
            #expect(refused.status == 64 && refused.stderr.contains("--all"), "\(command): \(refused.stderr)")
        }
        #expect(Self.run(sandbox, ["ls"]).stdout.split(separator: "\n").count == 2, "nothing changed")
        #expect(Self.run(sandbox, ["delete", "--dry-run"]).status == 0, "a dry run needs no --all")
        #expect(Self.run(sandbox, ["update", "--all", "--set-label", "both"]).status == 0)
        #expect(Self.run(sandbox, ["delete", "-l", "both", "--limit", "one"]).status == 0, "an attribute selects")
        #expect(Self.run(sandbox, ["delete", "--all"]).status == 0)
        #expect(Self.run(sandbox, ["ls"]).stdout.isEmpty)
    }

    @Test func findWarnsWhenMoreThanOneItemMatchesAndAddWhenANewlineIsStored() throws {
        let sandbox = try Self.sandbox()
        for account in ["a", "b", "c"] { #expect(Self.run(sandbox, ["set", "svc", account], stdin: account).status == 0) }
        let first = Self.run(sandbox, ["find", "-s", "svc", "-w"])
        #expect(first.status == 0 && first.stdout == "a", "SecItem's first match is kept")
        #expect(first.stderr.contains("3 items match") && first.stderr.contains("-a ACCOUNT"), "\(first.stderr)")
        let one = Self.run(sandbox, ["find", "-s", "svc", "-a", "b", "-w"])
        #expect(one.stdout == "b" && one.stderr.isEmpty)
        // get names each item by account: an item with none is "(no account)", never ''.
        #expect(Self.run(sandbox, ["add", "-s", "svc"], stdin: "none").status == 0)
        let ambiguous = Self.run(sandbox, ["get", "svc"])
        #expect(ambiguous.status == 206 && ambiguous.stderr.contains("4 items match service 'svc':"), "\(ambiguous.stderr)")
        #expect(ambiguous.stderr.contains("(no account) in ") && !ambiguous.stderr.contains("''"), "\(ambiguous.stderr)")
        let newline = Self.run(sandbox, ["add", "-s", "nl"], stdin: "token\n")
        #expect(newline.status == 0 && newline.stderr.contains("ends in a newline"), "\(newline.stderr)")
        #expect(Self.run(sandbox, ["get", "nl"]).stdout == "token\n", "add stores what it is given")
        for quiet in [["add", "-s", "nl2"], ["add", "-s", "nl3", "--strip-newline"]] {
            let run = Self.run(sandbox, quiet, stdin: quiet.count == 3 ? "token" : "token\n")
            #expect(run.status == 0 && run.stderr.isEmpty, "\(quiet): \(run.stderr)")
        }
    }

    @Test func backupIsAConsistentCopyThatOpensWithTheKeyAndRestores() throws {
        let sandbox = try Self.sandbox()
        try sandbox.fill(count: 2_000, group: "keychainctl.default", profile: nil)
        let destination = sandbox.folder + "/copies/backup.db"
        // Writers keep adding while the backup is taken: the copy is one consistent state.
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        writer.arguments = [
            "60", "/bin/sh", "-c", "i=0; while [ $i -lt 40 ]; do printf x | \"$0\" set busy-$i || exit 1; i=$((i+1)); done", Sandbox.binary,
        ]
        writer.environment = sandbox.baseEnvironment
        try writer.run()
        let backup = Self.run(sandbox, ["backup", destination, "--format", "json"])
        writer.waitUntilExit()
        #expect(backup.status == 0, "\(backup.stderr)")
        let items = try #require((try backup.json() as? [String: Any])?["items"] as? Int)
        #expect((2_000...2_040).contains(items))
        var info = stat()
        #expect(stat(destination, &info) == 0 && info.st_mode & 0o777 == 0o600)
        let copy = ["KEYCHAINCTL_KEYCHAIN": destination]
        #expect(Self.run(sandbox, ["verify"], environment: copy).status == 0)
        let listed = Self.run(sandbox, ["ls", "busy-*"], environment: copy).stdout.split(separator: "\n").count
        #expect(listed == items - 2_000, "the copy holds what the writers had committed, and all of it")
        // Never over an existing file; another key does not open it.
        let again = Self.run(sandbox, ["backup", destination])
        #expect(again.status == 48 && again.stderr.contains("never overwrites"))
        // The dated name it offers, followed as printed, keeps both.
        let offered = try #require(
            again.stderr.components(separatedBy: "name the new one by its date: '").dropFirst().first?.components(separatedBy: "'").first)
        #expect(offered.hasPrefix("keychainctl backup " + sandbox.folder + "/copies/backup-20") && offered.hasSuffix(".db"), "\(offered)")
        let dated = sandbox.run(
            ["-c", offered, ""], profile: nil,
            environment: ["PATH": (Sandbox.binary as NSString).deletingLastPathComponent + ":/usr/bin:/bin"], executable: "/bin/sh")
        #expect(dated.status == 0 && FileManager.default.fileExists(atPath: String(offered.dropFirst("keychainctl backup ".count))))
        let otherKey = sandbox.folder + "/other.key"
        try Data(Data((0..<32).map { UInt8($0) }).base64EncodedString().utf8).write(to: URL(fileURLWithPath: otherKey))
        chmod(otherKey, 0o600)
        #expect(Self.run(sandbox, ["get", "svc-1", "--keychain", destination, "--key-file", otherKey]).status == 51)
        // Restoring is copying it back.
        #expect(Self.run(sandbox, ["delete", "--all"]).status == 0)
        try FileManager.default.removeItem(atPath: sandbox.keychain)
        try? FileManager.default.removeItem(atPath: sandbox.keychain + "-wal")
        try? FileManager.default.removeItem(atPath: sandbox.keychain + "-shm")
        try FileManager.default.copyItem(atPath: destination, toPath: sandbox.keychain)
        #expect(Self.run(sandbox, ["get", "svc-1999"]).stdout == "secret-1999")
        #expect(Self.run(sandbox, ["backup"]).status == 64)
    }

    @Test func messagesSayWhatTheyAreAbout() throws {
        let sandbox = try Self.sandbox()
        let missing = Self.run(sandbox, ["get", "x"], environment: ["KEYCHAINCTL_KEYCHAIN": sandbox.folder + "/none.db"])
        #expect(missing.status == 53 && !missing.stderr.contains("restart") && missing.stderr.contains("errSecNotAvailable -25291"))
        let explained = Self.run(sandbox, ["error", "-25291"])
        #expect(
            explained.stdout.contains("No keychain is available at that path.") && explained.stdout.contains("Apple's message: No keychain")
        )
        let lock = Self.run(sandbox, ["lock"])
        #expect(!lock.stderr.contains("device"), "a scripter's lock is the key's, not a simulated device's: \(lock.stderr)")
        let device = Self.run(sandbox, ["device", "lock"])
        #expect(device.stderr.contains("'keychainctl lock'"), "\(device.stderr)")
        #expect(Self.run(sandbox, ["device", "unlock"]).status == 0)
        let exec = Self.run(sandbox, ["exec", "--env", "A=service=x", "true"])
        #expect(exec.status == 64 && exec.stderr.contains("put -- before the command"), "\(exec.stderr)")
        #expect(Self.run(sandbox, ["set", "x"], stdin: "value-to-mask").status == 0)
        let mask = Self.run(sandbox, ["exec", "--ci-mask", "--env", "A=service=x", "--", "true"])
        #expect(mask.status == 0 && mask.stderr.contains("outside GitHub Actions"), "\(mask.stderr)")
        let github = Self.run(
            sandbox, ["exec", "--ci-mask", "--env", "A=service=x", "--", "true"], environment: ["GITHUB_ACTIONS": "true"])
        #expect(!github.stderr.contains("outside GitHub Actions") && github.stdout.contains("::add-mask::value-to-mask"))
        let imported = Self.run(
            sandbox, ["import", "--from-env", "TOKEN", "-s", "ci", "-g", "keychainctl.default", "-l", "CI"], environment: ["TOKEN": "t"])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(Self.run(sandbox, ["get", "ci", "TOKEN"]).stdout == "t")
    }
}
