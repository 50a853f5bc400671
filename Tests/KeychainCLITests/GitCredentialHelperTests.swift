import Foundation
import KeychainTestSupport
import Testing

/// `git-credential-keychainctl`, driven by real git: a clone of a repository behind HTTP basic
/// authentication asks once, the helper stores what worked, and the next clone asks nothing;
/// `git credential approve`, `fill` and `reject` go through it; the credential is an internet
/// password shaped as git-credential-osxkeychain shapes it, in the helper's own access group.
@Suite struct GitCredentialHelperTests {
    /// A folder with the helper linked as git finds it, a bare repository served over HTTP that
    /// wants alice's password, an askpass program that answers it and counts each question, and a
    /// git configured to use the helper. The server is stopped by `stop`.
    struct Setup {
        let sandbox: Sandbox
        let environment: [String: String]
        let url: String
        let port: String
        let server: LocalServer

        init(password: String = "s3cret-git") throws {
            sandbox = try Sandbox()
            let folder = sandbox.folder
            try FileManager.default.createDirectory(atPath: folder + "/bin", withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(
                atPath: folder + "/bin/git-credential-keychainctl", withDestinationPath: Sandbox.binary)
            let made = sandbox.run(
                [
                    "-c",
                    """
                    set -e; cd "$0"; git init -q --bare srv/repo.git; git init -q work; cd work
                    git -c user.email=a@b -c user.name=a commit -q --allow-empty -m one; git push -q ../srv/repo.git HEAD:refs/heads/main
                    git -C ../srv/repo.git symbolic-ref HEAD refs/heads/main; git -C ../srv/repo.git update-server-info
                    printf '#!/bin/sh\\necho "$1" >> "%s/asked"\\ncase "$1" in Username*) echo alice;; *) echo %s;; esac\\n' "$0" "$1" > ../askpass
                    chmod +x ../askpass
                    """, folder, password,
                ], profile: nil, executable: "/bin/sh")
            #expect(made.status == 0, "\(made.stderr)")
            // Basic authentication in front of the repository's files (git's dumb HTTP).
            server = try LocalServer.git(root: folder + "/srv", credentials: "alice:" + password, in: sandbox)
            port = server.port
            url = "http://127.0.0.1:\(port)/repo.git"
            try "[credential]\n\thelper = keychainctl\n[init]\n\tdefaultBranch = main\n".write(
                toFile: folder + "/gitconfig", atomically: true, encoding: .utf8)
            environment = [
                "PATH": folder + "/bin:/usr/bin:/bin", "GIT_CONFIG_GLOBAL": folder + "/gitconfig", "GIT_CONFIG_NOSYSTEM": "1",
                "GIT_ASKPASS": folder + "/askpass", "GIT_TERMINAL_PROMPT": "0", "KEYCHAINCTL_PROFILE": "",
            ]
        }

        /// Runs `script` in /bin/sh in the sandbox's folder, with git set up.
        func shell(_ script: String, extra: [String: String] = [:]) -> Sandbox.Run {
            sandbox.run(
                ["-c", "cd \"$HOME\" && " + script], profile: nil, environment: environment.merging(extra) { $1 }, timeout: 60,
                executable: "/bin/sh")
        }

        /// How many questions askpass was asked.
        var asked: Int {
            ((try? String(contentsOfFile: sandbox.folder + "/asked", encoding: .utf8)) ?? "").split(separator: "\n").count
        }

        func stop() { server.stop() }
    }

    @Test func aCloneAsksOnceAndTheNextAsksNothing() throws {
        let setup = try Setup()
        defer { setup.stop() }
        let first = setup.shell("git clone -q \(setup.url) one")
        #expect(first.status == 0, "\(first.stderr)")
        #expect(setup.asked == 2, "the first clone asks for the username and the password")
        // Stored as osxkeychain stores it, in the helper's own group.
        let profile = setup.sandbox.folder + "/git.plist"
        let shown = setup.sandbox.run(["profile", "show", "--program", "git-credential-keychainctl"], profile: nil)
        try shown.stdoutData.write(to: URL(fileURLWithPath: profile))
        let found = setup.sandbox.run(
            ["find", "--class", "inet", "--server", "127.0.0.1", "--format", "json", "--profile", profile], profile: nil)
        let item = try #require(try? found.json() as? [String: Any], "\(found.stdout) \(found.stderr)")
        #expect(item["srvr"] as? String == "127.0.0.1" && item["ptcl"] as? String == "http", "\(item)")
        #expect(item["port"] as? Int == Int(setup.port) && item["acct"] as? String == "alice", "\(item)")
        #expect(item["agrp"] as? String == "keychainctl.program.git-credential-keychainctl", "\(item)")
        // Another profile does not see it.
        #expect(setup.sandbox.run(["find", "--class", "inet", "--server", "127.0.0.1"], profile: "app.plist").status == 44)
        let second = setup.shell("git clone -q \(setup.url) two")
        #expect(second.status == 0, "\(second.stderr)")
        #expect(setup.asked == 2, "the second clone asked again")
    }

    @Test func approveFillAndRejectGoThroughTheHelper() throws {
        let setup = try Setup()
        defer { setup.stop() }
        let credential = "protocol=https\\nhost=git.example.com\\nusername=bob\\npassword=SECRET-bob\\n"
        #expect(setup.shell("printf '\(credential)' | git credential approve").status == 0)
        let filled = setup.shell("printf 'protocol=https\\nhost=git.example.com\\n' | git credential fill")
        #expect(filled.status == 0 && filled.stdout.contains("username=bob\npassword=SECRET-bob\n"), "\(filled.stdout) \(filled.stderr)")
        #expect(setup.asked == 0)
        // A reject naming another password erases nothing (a newer one may have been stored).
        #expect(
            setup.shell("printf 'protocol=https\\nhost=git.example.com\\nusername=bob\\npassword=old\\n' | git credential reject").status
                == 0)
        #expect(setup.shell("printf 'protocol=https\\nhost=git.example.com\\n' | git credential fill").stdout.contains("SECRET-bob"))
        #expect(setup.shell("printf '\(credential)' | git credential reject").status == 0)
        let after = setup.shell("printf 'protocol=https\\nhost=git.example.com\\n' | git credential fill")
        #expect(!after.stdout.contains("SECRET-bob"), "\(after.stdout)")
        // A port and a path are part of the credential's name, as git sends them.
        #expect(
            setup.shell(
                "printf 'protocol=https\\nhost=git.example.com:8443\\npath=team/repo.git\\nusername=c\\npassword=SECRET-c\\n' | git credential approve"
            )
            .status == 0)
        let other = setup.shell("printf 'protocol=https\\nhost=git.example.com\\n' | git credential fill")
        #expect(!other.stdout.contains("SECRET-c"), "another port is another credential: \(other.stdout)")
    }

    /// `exec` (here as the built-in profile's scripts) does not reach git's credential; through a
    /// profile naming the helper's group it does, as the guide shows.
    @Test func execReachesACredentialOnlyThroughTheHelpersGroup() throws {
        let setup = try Setup()
        defer { setup.stop() }
        let approve = setup.shell(
            "printf 'protocol=https\\nhost=api.example.com\\nusername=bot\\npassword=SECRET-api\\n' | git credential approve")
        #expect(approve.status == 0, "\(approve.stderr)")
        let out = setup.sandbox.folder + "/token"
        func exec(_ options: [String]) -> Sandbox.Run {
            setup.sandbox.run(
                ["exec"] + options + [
                    "--env", "TOKEN=class=inet,server=api.example.com", "--", "/bin/sh", "-c", "printf %s \"$TOKEN\" > \(out)",
                ],
                profile: nil)
        }
        let outside = exec([])
        #expect(outside.status == 44 && !FileManager.default.fileExists(atPath: out), "\(outside.stderr)")
        #expect(!(outside.stdout + outside.stderr).contains("SECRET"))
        let profile = setup.sandbox.folder + "/git-credential-keychainctl.plist"
        try setup.sandbox.run(["profile", "show", "--program=git-credential-keychainctl"], profile: nil).stdoutData.write(
            to: URL(fileURLWithPath: profile))
        let inside = exec(["--profile", profile])
        #expect(inside.status == 0, "\(inside.stderr)")
        #expect((try? String(contentsOfFile: out, encoding: .utf8)) == "SECRET-api")
    }

    /// With the default key file the helper needs nothing in the environment but HOME and PATH
    /// (cron); with a locked passphrase keychain it fails at once, saying why, and git goes on.
    @Test func headlessWithTheKeyFileAndFastWhenLocked() throws {
        let setup = try Setup()
        defer { setup.stop() }
        let home = setup.sandbox.folder + "/cron"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let cron = [
            "HOME": home, "SHELL": "/bin/sh", "KEYCHAINCTL_KEYCHAIN": "", "KEYCHAINCTL_KEY_FILE": "", "XDG_DATA_HOME": "",
            "XDG_CONFIG_HOME": "",
        ]
        // Before any keychain exists the helper says what to run, and git goes on without it.
        let first = setup.shell(
            "printf 'protocol=https\\nhost=cron.example.com\\nusername=c\\npassword=SECRET-cron\\n' | git credential approve", extra: cron)
        #expect(first.stderr.contains("no keychain at \(home)/.local/share/keychainctl/keychain.db; create it with 'keychainctl init'."))
        #expect(!first.stderr.contains("SECRET"), "\(first.stderr)")
        let initialized = setup.sandbox.run(["init"], profile: nil, environment: cron)
        #expect(initialized.status == 0, "\(initialized.stderr)")
        let approve = setup.shell(
            "printf 'protocol=https\\nhost=cron.example.com\\nusername=c\\npassword=SECRET-cron\\n' | git credential approve", extra: cron)
        #expect(approve.status == 0, "\(approve.stderr)")
        let fill = setup.shell("printf 'protocol=https\\nhost=cron.example.com\\n' | git credential fill", extra: cron)
        #expect(fill.stdout.contains("password=SECRET-cron"), "\(fill.stdout) \(fill.stderr)")
        // A passphrase keychain with no key cached: no prompt, a message, and git's own question.
        let locked = try Fixtures.passphraseKeychain()
        let lockedEnvironment = [
            "KEYCHAINCTL_KEYCHAIN": locked.sandbox.keychain, "KEYCHAINCTL_KEY_FILE": "", "KEYCHAINCTL_PASSPHRASE": "", "GIT_ASKPASS": "",
        ]
        let started = Date()
        let failed = setup.shell(
            "printf 'protocol=https\\nhost=locked.example.com\\n' | git credential fill", extra: lockedEnvironment)
        #expect(Date().timeIntervalSince(started) < 20, "the helper waited")
        #expect(failed.stderr.contains("git-credential-keychainctl: ") && failed.stderr.contains("keychain is locked"), "\(failed.stderr)")
    }

    /// A passphrase keychain unlocked once (`unlock`, the key cached in the keyring) serves both
    /// helpers with no passphrase anywhere in their environment; after `lock` they fail at once,
    /// saying why and what to run, and never ask.
    @Test(.enabled(if: TestMachine.hasKeyring, "machine: keyring")) func helpersUseTheKeyUnlockCached() throws {
        let setup = try Setup()
        defer { setup.stop() }
        try FileManager.default.createSymbolicLink(
            atPath: setup.sandbox.folder + "/bin/docker-credential-keychainctl", withDestinationPath: Sandbox.binary)
        let (keychain, _, withPassphrase) = try Fixtures.passphraseKeychain()
        let script = """
            cd "$HOME"
            "$0" unlock --keyring session > /dev/null || exit 90
            pw="$KEYCHAINCTL_PASSPHRASE"; unset KEYCHAINCTL_PASSPHRASE
            printf 'protocol=https\\nhost=p.example.com\\nusername=p\\npassword=SECRET-p\\n' | git credential approve || exit 91
            printf 'protocol=https\\nhost=p.example.com\\n' | git credential fill || exit 92
            printf '{"ServerURL":"r.example.com","Username":"u","Secret":"SECRET-r"}' | docker-credential-keychainctl store || exit 93
            printf r.example.com | docker-credential-keychainctl get || exit 94
            "$0" lock > /dev/null || exit 95
            printf r.example.com | docker-credential-keychainctl get; echo "exit $?"
            # What the message says to run (in this test's own session keyring), and the helper answers.
            KEYCHAINCTL_PASSPHRASE="$pw" "$0" unlock --keyring session > /dev/null || exit 96
            printf r.example.com | docker-credential-keychainctl get || exit 97
            """
        let run = setup.sandbox.run(
            ["SESSION", "/bin/sh", "-c", script, Sandbox.binary], profile: nil,
            environment: setup.environment.merging(withPassphrase) { $1 }.merging(["KEYCHAINCTL_KEYCHAIN": keychain.keychain]) { $1 },
            timeout: 60, executable: Sandbox.injectFault)
        #expect(run.status == 0, "\(run.status): \(run.stdout) \(run.stderr)")
        #expect(run.stdout.contains("username=p\npassword=SECRET-p\n"), "\(run.stdout)")
        #expect(run.stdout.contains(#"{"ServerURL":"r.example.com","Username":"u","Secret":"SECRET-r"}"# + "\n"), "\(run.stdout)")
        let failed =
            "the keychain is locked: no key is cached for it and there is no terminal to ask on. "
            + "Run 'keychainctl unlock' once (with KEYCHAINCTL_PASSPHRASE or --passphrase-fd), or set KEYCHAINCTL_PASSPHRASE.\nexit 1\n"
        #expect(run.stdout.contains(failed), "\(run.stdout)")
        #expect(run.stdout.hasSuffix(failed + #"{"ServerURL":"r.example.com","Username":"u","Secret":"SECRET-r"}"# + "\n"), "\(run.stdout)")
        #expect(!run.stderr.contains("SECRET-"), "\(run.stderr)")
        #expect(setup.asked == 0, "git asked")
    }

    /// The helper called as git calls it, by its name, in a sandbox of its own, without git.
    struct Direct {
        let sandbox: Sandbox
        let helper: String

        init() throws {
            sandbox = try Sandbox()
            helper = sandbox.folder + "/git-credential-keychainctl"
            try FileManager.default.createSymbolicLink(atPath: helper, withDestinationPath: Sandbox.binary)
        }

        func callAsFunction(_ action: String, _ input: String) -> Sandbox.Run { self(action, Data(input.utf8)) }

        func callAsFunction(_ action: String, _ input: Data) -> Sandbox.Run {
            sandbox.run([action], profile: nil, stdin: input, timeout: 30, executable: helper)
        }
    }

    /// What git could send that it should not: a line without `=`, too much, a NUL; refused
    /// with a message that names no value, nothing stored, no crash.
    @Test func hostileRequestsAreRefusedWithoutTheirValues() throws {
        let call = try Direct()
        for (input, status, message) in [
            ("protocol=https\nhost=h.io\nusername=u\nSECRET-line\n", Int32(64), "git sent a line without '=' (not shown)"),
            ("protocol=https\nhost=h.io\nusername=u\npassword=SECRET-p\n\u{0}x\n", 64, "git sent a line without '='"),
            ("password=SECRET-p\n" + String(repeating: "a", count: 70_000), 78, "standard input is longer than 65536 bytes"),
        ] {
            let run = call("store", input)
            #expect(run.status == status && run.stderr.hasPrefix("git-credential-keychainctl: " + message), "\(run.stderr)")
            #expect(!run.stderr.contains("keychainctl: keychainctl:"), "\(run.stderr)")
            #expect(!(run.stdout + run.stderr).contains("SECRET"), "\(run.stderr)")
        }
        let found = call("get", "protocol=https\nhost=h.io\n")
        #expect(found.status == 0 && found.stdout.isEmpty, "nothing was stored: \(found.stdout)")
        // A key the helper does not use may hold any bytes: ignored, as the protocol asks.
        let binary =
            Data("protocol=https\nhost=h.io\nwwwauth[]=".utf8) + Data([0xFF, 0x1B, 0x00]) + Data("\nusername=u\npassword=p\n".utf8)
        #expect(call("store", binary).status == 0)
        #expect(call("get", "protocol=https\nhost=h.io\n").stdout == "username=u\npassword=p\n")
        let bad = call("store", Data("protocol=https\nhost=h".utf8) + Data([0xFF]) + Data("\nusername=u\npassword=p\n".utf8))
        #expect(
            bad.status == 64 && bad.stderr == "git-credential-keychainctl: git sent a host that is not UTF-8; nothing was done.\n",
            "\(bad.stderr)")
        // An action git may add later is ignored, as the protocol asks.
        #expect(call("capability", "").status == 0)
    }

    /// What newer git sends (2.41's expiry and OAuth refresh token, 2.46's state): kept after the
    /// password as git-credential-osxkeychain keeps them, handed back, and the state spares the
    /// write git asks for after every use; no other line of an item ever reaches git.
    @Test func newerGitsAttributesAreKeptAndHandedBack() throws {
        let call = try Direct()
        let sandbox = call.sandbox
        let profile = sandbox.folder + "/git.plist"
        try sandbox.run(["profile", "show", "--program=git-credential-keychainctl"], profile: nil).stdoutData.write(
            to: URL(fileURLWithPath: profile))
        func stored() -> String {
            sandbox.run(["find", "--class", "inet", "--server", "h.io", "-w", "--profile", profile], profile: nil).stdout
        }
        let named = "protocol=https\nhost=h.io\n"
        #expect(
            call("store", named + "username=u\npassword=SECRET-p\npassword_expiry_utc=1700000000\noauth_refresh_token=SECRET-r\n").status
                == 0)
        #expect(stored() == "SECRET-p\npassword_expiry_utc=1700000000\noauth_refresh_token=SECRET-r", "osxkeychain's shape: \(stored())")
        let got = call("get", named)
        #expect(
            got.stdout == "username=u\npassword=SECRET-p\npassword_expiry_utc=1700000000\noauth_refresh_token=SECRET-r\n", "\(got.stdout)")
        // State only to a git that takes it; handed back on store, nothing is written.
        #expect(call("get", named + "capability[]=state\n").stdout.hasSuffix("\ncapability[]=state\nstate[]=keychainctl:seen=1\n"))
        let seen = named + "username=u\npassword=other\nstate[]=keychainctl:seen=1\n"
        #expect(call("store", seen).status == 0 && stored().hasPrefix("SECRET-p\n"), "a seen credential is not stored again")
        // An expiry that is not git's (digits) is not kept.
        #expect(call("store", named + "username=u\npassword=SECRET-q\npassword_expiry_utc=1\u{1B}[2J\n").status == 0)
        #expect(stored() == "SECRET-q", "\(stored())")
        #expect(call("store", named + "username=u\npassword=SECRET-q\npassword_expiry_utc=\n").status == 0 && stored() == "SECRET-q")
        // A reject names the password alone: the item goes though the expiry follows it.
        #expect(call("store", named + "username=u\npassword=SECRET-p\npassword_expiry_utc=1700000000\n").status == 0)
        #expect(call("erase", named + "username=u\npassword=SECRET-p\n").status == 0)
        #expect(call("get", named).stdout.isEmpty)
        // An item added otherwise, whose secret holds lines git would read as attributes.
        let added = sandbox.run(
            [
                "add", "--class", "inet", "--server", "h.io", "--protocol", "https", "--port", "0", "--path", "", "-a", "u", "--profile",
                profile,
            ],
            profile: nil, stdin: Data("SECRET-x\nhost=evil.example\nusername=mallory\npassword_expiry_utc=9x".utf8))
        #expect(added.status == 0, "\(added.stderr)")
        #expect(call("get", named).stdout == "username=u\npassword=SECRET-x\n", "\(call("get", named).stdout)")
    }
}
