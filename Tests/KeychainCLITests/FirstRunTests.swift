import Foundation
import Testing

/// A scripter's first hour, as a new user meets it: a fresh HOME, no KEYCHAINCTL_* variable, no
/// terminal. The default keychain opens by itself, and every hint a first-run failure prints (53,
/// 78, 36, 44, 30) is a command that, run as printed, moves the user forward.
@Suite struct FirstRunTests {
    /// A fresh HOME, and a shell that runs keychainctl as `keychainctl` with nothing else set.
    final class User {
        let sandbox: Sandbox
        var home: String { sandbox.folder + "/home" }

        /// PATH as the user has it: keychainctl and the system's tools.
        let path: String

        init() throws {
            sandbox = try Sandbox(initialize: false)
            try FileManager.default.createDirectory(atPath: sandbox.folder + "/home", withIntermediateDirectories: true)
            path = try sandbox.pathWithKeychainctl()
        }

        /// `script` in sh, in HOME, as the user types it: only PATH and HOME (plus `extra`) set.
        @discardableResult
        func shell(_ script: String, stdin: String? = nil, extra: [String] = []) -> Sandbox.Run {
            run(["/bin/sh", "-c", "cd \"$HOME\" && " + script], stdin: stdin, extra: extra)
        }

        /// `arguments` (a program and its arguments) with only PATH and HOME (plus `extra`) set.
        func run(_ arguments: [String], stdin: String? = nil, extra: [String] = []) -> Sandbox.Run {
            sandbox.run(
                ["-i", "PATH=\(path)", "HOME=\(home)"] + extra + arguments, profile: nil,
                stdin: stdin.map { Data($0.utf8) }, executable: "/usr/bin/env")
        }

        /// The command a failure's hint names: the text between `start` and the next `'` + `end`.
        static func hint(_ run: Sandbox.Run, after start: String, end: String = "'.") throws -> String {
            let tail = try #require(run.stderr.components(separatedBy: start).dropFirst().first, "no hint in: \(run.stderr)")
            return try #require(tail.components(separatedBy: end).first, "\(run.stderr)")
        }
    }

    @Test func theDefaultKeychainOpensByItself() throws {
        let user = try User()
        // 53, and its hint: 'keychainctl init'.
        let missing = user.shell("keychainctl get api")
        #expect(missing.status == 53, "\(missing.stderr)")
        let create = try User.hint(missing, after: "create it with '")
        #expect(create == "keychainctl init")
        let made = user.shell(create)
        #expect(
            made.status == 0 && made.stdout.contains("unlocked by key file \(user.home)/.config/keychainctl/keychain.key"), "\(made.stderr)"
        )
        let key = try FileManager.default.attributesOfItem(atPath: user.home + "/.config/keychainctl/keychain.key")
        let folder = try FileManager.default.attributesOfItem(atPath: user.home + "/.config/keychainctl")
        #expect(key[.posixPermissions] as? Int == 0o600 && folder[.posixPermissions] as? Int == 0o700)
        // The everyday verbs, with no variable at all.
        #expect(user.shell("echo tok | keychainctl set api").status == 0)
        #expect(user.shell("keychainctl get api").stdout == "tok")
        #expect(user.shell("keychainctl ls").stdout.hasPrefix("api\t"))
        #expect(user.shell("keychainctl rm api").status == 0)
        // 44, and its hint: 'keychainctl ls'.
        let none = user.shell("keychainctl get api")
        #expect(none.status == 44 && none.stderr.contains("no secret for service 'api'"), "\(none.stderr)")
        #expect(user.shell(try User.hint(none, after: "; '", end: "' lists")).status == 0)
        // 30, and its hint: 'keychainctl groups'.
        let elsewhere = user.shell("keychainctl get api -g com.example.other")
        #expect(elsewhere.status == 30, "\(elsewhere.stderr)")
        let groups = user.shell(try User.hint(elsewhere, after: ". '", end: "' shows"))
        #expect(groups.status == 0 && groups.stdout.contains("keychainctl.default"), "\(groups.stderr)")
        // Never over what is there: the keychain (48), the key file (78).
        #expect(user.shell("keychainctl init").status == 48)
        #expect(user.shell("rm .local/share/keychainctl/keychain.db && keychainctl init --generate-key-file").status == 78)
        // 36: the key file gone, the hint says where it was looked for.
        #expect(user.shell("mv .config/keychainctl/keychain.key saved.key && keychainctl init --generate-key-file saved2.key").status == 0)
        let locked = user.shell("keychainctl get api")
        #expect(locked.status == 36 && locked.stderr.contains("none at \(user.home)/.config/keychainctl/keychain.key"), "\(locked.stderr)")
        #expect(user.shell("keychainctl get api", extra: ["KEYCHAINCTL_KEY_FILE=\(user.home)/saved2.key"]).status == 44)
    }

    /// A default key file that outlived its keychain is kept: `init` (no terminal) makes the new
    /// keychain with it and says so, as the library's first call does, rather than refusing until
    /// the user deletes a key that may still open a backup.
    /// A default keychain made with a passphrase (as `init` makes it on a terminal) fails a job
    /// with no terminal and no variable with 36, whose hint names the key-file route as well as
    /// unlock; the rekey it prints, run as printed with the passphrase, lets the same job run with
    /// nothing set.
    @Test func aPassphraseDefaultKeychainsHintLeadsToTheKeyFileRoute() throws {
        let user = try User()
        let made = user.shell("keychainctl init", extra: ["KEYCHAINCTL_PASSPHRASE=SECRET correct horse"])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(user.shell("echo tok | keychainctl set api", extra: ["KEYCHAINCTL_PASSPHRASE=SECRET correct horse"]).status == 0)
        let cron = user.shell("keychainctl get api")
        #expect(cron.status == 36 && cron.stderr.contains("keychainctl unlock"), "\(cron.stderr)")
        let rekey = try User.hint(cron, after: "KEYCHAINCTL_PASSPHRASE: '")
        #expect(rekey == "keychainctl rekey --generate-key-file \(user.home)/.config/keychainctl/keychain.key", "\(rekey)")
        // init said the same when it made the keychain.
        #expect(made.stdout.contains("jobs with no terminal (cron, CI)") && made.stdout.contains("'\(rekey)'"), "\(made.stdout)")
        let moved = user.shell(rekey, extra: ["KEYCHAINCTL_PASSPHRASE=SECRET correct horse"])
        #expect(moved.status == 0, "\(moved.stderr)")
        let again = user.shell("keychainctl get api")
        #expect(again.status == 0 && again.stdout == "tok", "\(again.stderr)")
    }

    /// init's key-file advice for a keychain of another name, run as printed: the rekey writes
    /// the key file beside it, and the job then opens it with that file.
    @Test func initsAdviceForANamedPassphraseKeychainWorksAsPrinted() throws {
        let user = try User()
        let named = ["KEYCHAINCTL_KEYCHAIN=ci.db"]
        let passphrase = named + ["KEYCHAINCTL_PASSPHRASE=SECRET correct horse"]
        let made = user.shell("keychainctl init && echo tok | keychainctl set api", extra: passphrase)
        #expect(made.status == 0, "\(made.stderr)")
        let advice = try #require(made.stdout.components(separatedBy: "or by a key file: '").dropFirst().first, "\(made.stdout)")
        let rekey = String(advice.prefix { $0 != "'" })
        #expect(rekey == "keychainctl rekey --generate-key-file ci.db.key", "\(made.stdout)")
        #expect(user.shell(rekey, extra: passphrase).status == 0)
        #expect(user.shell("keychainctl get api", extra: named + ["KEYCHAINCTL_KEY_FILE=ci.db.key"]).stdout == "tok")
    }

    /// README's crontab line runs as cron runs it: an environment of HOME, SHELL and the line's
    /// own PATH alone (cron's is /usr/bin:/bin), /bin/sh. Its PATH holds the folder README's
    /// install puts the binary in; here a folder holding keychainctl stands in for it.
    @Test func readmesCronLineRunsUnderCron() throws {
        let user = try User()
        let readme = try String(contentsOfFile: Sandbox.packageRoot + "/README.md", encoding: .utf8).replacingOccurrences(
            of: "\n", with: " ")
        let path = try #require(
            readme.components(separatedBy: "a crontab line is `PATH=").dropFirst().first?.components(separatedBy: "`").first)
        let line = try #require(
            readme.components(separatedBy: "and then `0 * * * * ").dropFirst().first?.components(separatedBy: "`").first)
        #expect(
            readme.contains("install -D keychainctl /usr/local/bin/keychainctl") && path.split(separator: ":").contains("/usr/local/bin"))
        #expect(!path.split(separator: ":").contains { $0.hasPrefix("/opt") || $0.hasPrefix("/work") }, "\(path)")
        #expect(user.shell("keychainctl init && printf tok | keychainctl set api-token").status == 0)
        let job = user.home + "/sync-job"
        try Data("#!/bin/sh\nprintf 'synced with %s' \"$1\" > \"$HOME/synced\"\n".utf8).write(to: URL(fileURLWithPath: job))
        chmod(job, 0o755)
        let folder = URL(fileURLWithPath: Sandbox.binary).deletingLastPathComponent().path
        let cronPath = path.replacingOccurrences(of: "/usr/local/bin", with: folder)
        let ran = user.sandbox.run(
            ["-i", "HOME=\(user.home)", "SHELL=/bin/sh", "PATH=\(cronPath)", "/bin/sh", "-c", "cd \"$HOME\" && " + line], profile: nil,
            executable: "/usr/bin/env")
        #expect(ran.status == 0, "\(ran.stderr)")
        #expect((try? String(contentsOfFile: user.home + "/synced", encoding: .utf8)) == "synced with tok")
    }

    @Test func initKeepsTheDefaultKeyFileADeletedKeychainLeft() throws {
        let user = try User()
        #expect(user.shell("keychainctl init").status == 0)
        #expect(user.shell("echo tok | keychainctl set api && keychainctl backup old.db").status == 0)
        let keyFile = user.home + "/.config/keychainctl/keychain.key"
        let key = try String(contentsOfFile: keyFile, encoding: .utf8)
        let again = user.shell("rm .local/share/keychainctl/keychain.db && keychainctl init")
        #expect(again.status == 0 && again.stdout.contains("unlocked by key file \(keyFile), which was already there"), "\(again.stderr)")
        #expect(try String(contentsOfFile: keyFile, encoding: .utf8) == key)
        #expect(user.shell("keychainctl get api").status == 44, "a new, empty keychain")
        // The key still opens the backup the deleted keychain left.
        #expect(user.shell("keychainctl get api --keychain old.db --key-file .config/keychainctl/keychain.key").stdout == "tok")
    }

    /// Another keychain than the default: the 53 hint creates it with a key file of its own (the
    /// keychain named as the user named it), the 36 hint names the variable later calls need.
    @Test func anotherKeychainsHintsWorkAsPrinted() throws {
        let user = try User()
        let viaVariable = ["KEYCHAINCTL_KEYCHAIN=\(user.home)/work/team.db"]
        let missing = user.shell("keychainctl get api", extra: viaVariable)
        let create = try User.hint(missing, after: "create it with '")
        #expect(missing.status == 53 && create == "keychainctl init --generate-key-file \(user.home)/work/team.db.key", "\(missing.stderr)")
        #expect(user.shell(create, extra: viaVariable).status == 0)
        let locked = user.shell("keychainctl get api", extra: viaVariable)
        #expect(locked.status == 36 && locked.stderr.contains("set KEYCHAINCTL_KEY_FILE"), "\(locked.stderr)")
        // Both ways the hint names, run as printed.
        let option = try User.hint(locked, after: ": pass ", end: ", or set")
        #expect(option == "--key-file \(user.home)/work/team.db.key", "\(locked.stderr)")
        #expect(user.shell("keychainctl get api \(option)", extra: viaVariable).status == 44)
        let variable = try User.hint(locked, after: "or set ", end: " for every call")
        #expect(user.shell("export \(variable) && keychainctl get api", extra: viaVariable).status == 44, "\(variable)")
        // Without that file, the hint cannot guess: it says which sources there are.
        #expect(user.shell("mv work/team.db.key work/elsewhere.key").status == 0)
        let unknown = user.shell("keychainctl get api", extra: viaVariable)
        #expect(unknown.status == 36 && unknown.stderr.contains("pass --key-file PATH"), "\(unknown.stderr)")
        // Named by the option, with a space: the hint quotes it for the shell.
        let spaced = user.shell("keychainctl get api --keychain 'my keys.db'")
        let createSpaced = try User.hint(spaced, after: "create it with '", end: "'.\n")
        #expect(createSpaced == "keychainctl init --keychain 'my keys.db' --generate-key-file 'my keys.db.key'", "\(spaced.stderr)")
        #expect(user.shell(createSpaced).status == 0)
        // 78: a new keychain other than the default, with no key and no terminal.
        let noKey = user.shell("keychainctl init --keychain other.db")
        #expect(noKey.status == 78, "\(noKey.stderr)")
        let run = try User.hint(noKey, after: "run '", end: "' (and")
        #expect(user.shell(run).status == 0, "\(run)")
        #expect(user.shell("keychainctl init --keychain third.db --generate-key-file").status == 64)
        // A call naming its key file: the hint makes the keychain with that file (new or there),
        // so the same call then works; it used to leave the key file out.
        for (keychain, keyFile) in [("fourth.db", "fourth-own.key"), ("fifth.db", "fourth-own.key")] {
            let call = "keychainctl get api --keychain \(keychain) --key-file \(keyFile)"
            let missing = user.shell(call)
            let create = try User.hint(missing, after: "create it with '", end: "'.\n")
            #expect(create.contains(keyFile), "\(missing.stderr)")
            #expect(user.shell(create).status == 0, "\(create)")
            #expect(user.shell(call).status == 44, "\(create)")
        }
    }
}
