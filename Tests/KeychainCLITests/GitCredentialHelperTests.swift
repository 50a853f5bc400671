import Foundation
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
            try """
            import base64, http.server, os, sys, threading
            # Whatever descriptors it inherited (the test runner's pipes) are closed at once, so no
            # run waiting for its output's end waits for this server; it ends itself after 5 minutes.
            os.closerange(3, 65536)
            threading.Timer(300, os._exit, [0]).start()
            root, expected = sys.argv[1], base64.b64encode(sys.argv[2].encode()).decode()
            class Handler(http.server.SimpleHTTPRequestHandler):
                def __init__(self, *a, **k): super().__init__(*a, directory=root, **k)
                def log_message(self, *a): pass
                def do_GET(self):
                    if self.headers.get("Authorization") != "Basic " + expected:
                        self.send_response(401); self.send_header("WWW-Authenticate", 'Basic realm="git"')
                        self.send_header("Content-Length", "0"); self.end_headers(); return
                    super().do_GET()
            server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
            with open(os.path.join(root, "..", "port"), "w") as f: f.write(str(server.server_address[1]))
            server.serve_forever()
            """.write(toFile: folder + "/server.py", atomically: true, encoding: .utf8)
            // Started by a shell in the background, its output nowhere: nothing of it holds the
            // pipes a run reads to their end. Stopped by `stop`, else by its timeout.
            let started = sandbox.run(
                [
                    "-c", "/usr/bin/python3 \"$0/server.py\" \"$0/srv\" \"$1\" > /dev/null 2>&1 < /dev/null & echo $! > \"$0/server.pid\"",
                    folder, "alice:" + password,
                ], profile: nil, executable: "/bin/sh")
            #expect(started.status == 0, "\(started.stderr)")
            var waited = 0
            while !FileManager.default.fileExists(atPath: folder + "/port"), waited < 200 {
                usleep(50_000)
                waited += 1
            }
            port = (try? String(contentsOfFile: folder + "/port", encoding: .utf8)) ?? ""
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

        func stop() {
            if let pid = (try? String(contentsOfFile: sandbox.folder + "/server.pid", encoding: .utf8)).flatMap({
                Int32($0.trimmingCharacters(in: .whitespacesAndNewlines))
            }) {
                kill(pid, SIGTERM)
            }
        }
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
}
