import Foundation
import KeychainTestSupport
import Testing

/// `exec`: secrets resolved all or nothing before the command starts, the keychain's credentials
/// never passed on, the command's status and signals passed through, its output masked.
@Suite struct ExecCommandTests {
    /// A sandbox with a few items: an API token, a multi-line key, a secret with a NUL byte.
    static func sandbox() throws -> Sandbox {
        let sandbox = try Sandbox()
        #expect(sandbox.add(["-s", "registry", "-a", "ci"], secret: "SECRET-npm-token").status == 0)
        #expect(sandbox.add(["-s", "registry", "-a", "deploy"], secret: "SECRET-deploy-token").status == 0)
        #expect(
            sandbox.add(["-s", "pem", "-a", "tls"], secret: "-----BEGIN SECRET-----\nSECRETLINEONE\nSECRETLINETWO\n-----END SECRET-----\n")
                .status == 0)
        #expect(sandbox.add(["-s", "binary", "-a", "blob"], secret: "SECRET\u{0}binary").status == 0)
        return sandbox
    }

    /// Runs `exec` with `options` and `script` as `sh -c`'s script (its $1… are `scriptArguments`).
    static func exec(
        _ sandbox: Sandbox, _ options: [String], script: String, _ scriptArguments: [String] = [], environment: [String: String] = [:],
        timeout: Double = 60
    ) -> Sandbox.Run {
        sandbox.run(
            ["exec"] + options + ["--profile", Sandbox.profiles + "/app.plist", "--", "/bin/sh", "-c", script, "sh"] + scriptArguments,
            profile: nil, environment: environment, timeout: timeout)
    }

    /// exec inside exec's command (a CI script run under exec that runs a step under exec): the
    /// inner one starts its command too, within the view the outer gave (as root, whose filter
    /// denies mounts, it makes no view of its own, and says so under --verbose).
    @Test func execRunsInsideExecsCommand() throws {
        let sandbox = try Self.sandbox()
        let inner = """
            export KEYCHAINCTL_KEYCHAIN="$1/inner.db" KEYCHAINCTL_PASSPHRASE=inner
            "$2" init --kdf interactive > /dev/null 2>&1 < /dev/null && printf NESTED-SECRET | "$2" set nested || exit 90
            "$2" exec --mask never --verbose --env N=nested -- sh -c 'echo "inner got $N"'
            """
        let run = Self.exec(
            sandbox, ["--mask", "never", "--env", "T=service=registry,account=ci"], script: inner, [sandbox.folder, Sandbox.binary])
        #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
        #expect(run.stdout.contains("inner got NESTED-SECRET"), "\(run.stdout) \(run.stderr)")
    }

    @Test func injectsTheSecretAndNeverTheKeychainsCredentials() throws {
        let sandbox = try Self.sandbox()
        let key = try String(contentsOfFile: sandbox.keyFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let run = Self.exec(
            sandbox, ["--mask", "never", "--env", "NPM_TOKEN=service=registry,account=ci"], script: "printf '%s' \"$NPM_TOKEN\"; echo; env",
            environment: ["KEYCHAINCTL_KEY": key, "KEYCHAINCTL_PASSPHRASE": "SECRET-passphrase"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "SECRET-npm-token")
        #expect(lines.contains("KEYCHAINCTL_EXEC=1"))
        #expect(!run.stdout.contains("KEYCHAINCTL_KEY=") && !run.stdout.contains("KEYCHAINCTL_PASSPHRASE") && !run.stdout.contains(key))
        #expect(!run.stdout.contains("KEYCHAINCTL_KEY_FILE"))
        let kept = Self.exec(sandbox, ["--mask", "never", "--keep", "KEYCHAINCTL_KEY_FILE"], script: "env")
        #expect(kept.stdout.contains("KEYCHAINCTL_KEY_FILE=" + sandbox.keyFile))
        // --pristine: only what is kept and injected.
        let pristine = Self.exec(
            sandbox, ["--mask", "never", "--pristine", "--keep", "PATH", "--env", "T=service=registry,account=ci"], script: "env",
            environment: ["UNRELATED": "x"])
        #expect(
            Set(pristine.stdout.split(separator: "\n").map { String($0.prefix { $0 != "=" }) }).subtracting(["PWD", "SHLVL", "_"]) == [
                "PATH", "T", "KEYCHAINCTL_EXEC",
            ])
    }

    @Test func statusAndSignalArePassedThrough() throws {
        let sandbox = try Self.sandbox()
        for mask in ["never", "always"] {
            #expect(Self.exec(sandbox, ["--mask", mask, "--env", "T=service=registry,account=ci"], script: "exit 7").status == 7)
            let killed = Self.exec(
                sandbox, ["--mask", mask, "--env", "T=service=registry,account=ci"], script: "kill -TERM $$; echo survived $?")
            #expect(killed.status == SIGTERM, "\(mask): \(killed.status) \(killed.stdout) \(killed.stderr)")
        }
        let app = ["--profile", Sandbox.profiles + "/app.plist"]
        let missing = sandbox.run(["exec"] + app + ["--", "no-such-command-here"], profile: nil)
        #expect(missing.status == 127 && missing.stderr.contains("command not found"))
        let notExecutable = sandbox.run(["exec"] + app + ["--", "/etc/hostname"], profile: nil)
        #expect(notExecutable.status == 126)
        #expect(sandbox.run(["exec", "--env", "T=service=registry"]).status == 64)
    }

    /// A bare NAME is the item `set NAME` stored, found and missed as `get NAME` finds and misses
    /// it: synchronizable or not, and a miss names the service and `ls`, never find's options. A
    /// query's miss gives its sync advice in the query's words, and that advice, followed, works.
    @Test func aBareNameReadsAsGetAndAQuerysAdviceIsInItsWords() throws {
        let sandbox = try Self.sandbox()
        #expect(sandbox.add(["-s", "synced", "--sync", "yes"], secret: "SECRET-synced").status == 0)
        let bare = Self.exec(sandbox, ["--mask", "never", "--env", "T=synced"], script: "printf '%s' \"$T\"")
        #expect(bare.status == 0 && bare.stdout == "SECRET-synced", "\(bare.stderr)")
        #expect(sandbox.run(["get", "synced"]).stdout == "SECRET-synced", "get finds the same item")
        let missing = Self.exec(sandbox, ["--env", "T=nothing"], script: "true")
        #expect(missing.status == 44 && missing.stderr.contains("T: no secret for service 'nothing' in "), "\(missing.stderr)")
        #expect(missing.stderr.contains("'keychainctl ls' lists the stored ones") && !missing.stderr.contains("--sync"))
        let query = Self.exec(sandbox, ["--env", "T=service=synced"], script: "true")
        #expect(query.status == 44 && query.stderr.contains("need sync=yes or sync=any in the query"), "\(query.stderr)")
        let followed = Self.exec(sandbox, ["--mask", "never", "--env", "T=service=synced,sync=any"], script: "printf '%s' \"$T\"")
        #expect(followed.status == 0 && followed.stdout == "SECRET-synced", "\(followed.stderr)")
    }

    /// Any reference that fails stops everything: the command never runs.
    @Test func failsClosed() throws {
        let sandbox = try Self.sandbox()
        let marker = sandbox.folder + "/ran"
        let cases: [([String], Int32, String?)] = [
            (["--env", "A=service=registry,account=ci", "--env", "B=service=nothing"], 44, "B:"),
            (["--env", "A=service=registry"], 206, "A: 2 items match: 'ci' in SKMME9E2Y8.com.example.app, 'deploy' in"),
            (["--env", "A=service=registry,bogus=1"], 206, "unknown attribute"),
            (["--env", "A=service,account"], 206, "not valid"),
            (["--env", "A=service=binary"], 206, "NUL byte"),
            (["--env", "A=service=registry,account=ci", "--group", "SKMME9E2Y8.com.other"], 30, "not readable"),
            (
                ["--env", "A=service=registry,account=ci,group=group.com.example", "--group", "SKMME9E2Y8.com.example.app"], 30,
                "outside --group"
            ),
            (["--env-file", sandbox.folder + "/missing.env"], 74, "cannot open"),
        ]
        for (options, status, message) in cases {
            let run = Self.exec(sandbox, options, script: "touch '\(marker)'")
            #expect(run.status == status, "\(options): \(run.status) \(run.stderr)")
            if let message { #expect(run.stderr.contains(message), "\(options): \(run.stderr)") }
            #expect(!FileManager.default.fileExists(atPath: marker), "\(options) ran the command")
            #expect(!run.stderr.contains("SECRET"))
        }
        // A query matching several items names each by account, as get does.
        let several = Self.exec(sandbox, ["--env", "A=service=registry"], script: "true")
        #expect(several.stderr.components(separatedBy: " in SKMME9E2Y8.com.example.app").count == 3, "\(several.stderr)")
        // Binary secrets go in as base64 on request.
        let binary = Self.exec(sandbox, ["--mask", "never", "--base64", "A", "--env", "A=service=binary"], script: "printf '%s' \"$A\"")
        #expect(binary.stdout == Data("SECRET\u{0}binary".utf8).base64EncodedString())
    }

    /// Every form of every secret is masked on both streams: the value, each of its lines, base64
    /// at three offsets, base64url, hex, URL- and JSON-escaped.
    @Test func masksTheSecretInEveryCommonForm() throws {
        let sandbox = try Self.sandbox()
        let pem = "-----BEGIN SECRET-----\nSECRETLINEONE\nSECRETLINETWO\n-----END SECRET-----\n"
        let token = "SECRET-npm-token"
        var forms = [token, "SECRETLINEONE", "SECRETLINETWO"]
        for prefix in ["", "x", "xy"] {
            let encoded = Data((prefix + token).utf8).base64EncodedString()
            forms.append(encoded)
            forms.append(encoded.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_"))
        }
        forms.append(Data(token.utf8).map { String(format: "%02x", $0) }.joined())
        forms.append(Data(token.utf8).map { String(format: "%02X", $0) }.joined())
        forms.append(pem.replacingOccurrences(of: "\n", with: "\\n"))  // JSON-escaped
        // URL-escaped as RFC 3986 leaves its unreserved characters.
        forms.append(pem.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "-._~").union(.alphanumerics))!)
        let run = Self.exec(
            sandbox, ["--mask", "always", "--env", "TOKEN=service=registry,account=ci", "--env", "PEM=service=pem"],
            script: "printf '%s\\n' \"$@\"; printf '%s' \"$PEM\"; printf '%s\\n' \"$TOKEN\" >&2", forms)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stdout.contains("SECRET") && !run.stderr.contains("SECRET"), "\(run.stdout)\n\(run.stderr)")
        #expect(run.stdout.split(separator: "\n").count >= forms.count)
        #expect(run.stdout.contains("[keychainctl:TOKEN]") && run.stdout.contains("[keychainctl:PEM]"))
        #expect(run.stderr.contains("[keychainctl:TOKEN]"))
        // Output that is not a secret goes through unchanged.
        let plain = Self.exec(
            sandbox, ["--mask", "always", "--env", "TOKEN=service=registry,account=ci"], script: "printf 'héllo\\0world\\n'")
        #expect(plain.stdoutData == Data("héllo\u{0}world\n".utf8))
    }

    /// --file: the exact bytes in a sealed, read-only file in memory (mode 0400), named /dev/fd/N,
    /// which the command can read as often as it likes and nobody can write; nothing is written to
    /// any folder; a signal sent to keychainctl reaches the command.
    @Test func filesAreSealedInMemoryAndSignalsForwarded() throws {
        let sandbox = try Self.sandbox()
        let listing = Self.exec(
            sandbox, ["--mask", "never", "--file", "KEY=service=binary"],
            script: """
                stat -L -c '%a' "$KEY"; od -An -c "$KEY" | tr -d ' \\n'; echo; od -An -c < "$KEY" | tr -d ' \\n'; echo; echo "$KEY"
                (printf x >> "$KEY") 2> /dev/null && echo appended || echo sealed
                """)
        #expect(listing.status == 0, "\(listing.stderr)")
        let lines = listing.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 5, "\(listing.stdout)")
        #expect(lines.first == "400")
        #expect(lines.dropFirst().prefix(2) == ["SECRET\\0binary", "SECRET\\0binary"], "read twice, the same bytes")
        #expect(lines.count == 5 && lines[3].hasPrefix("/dev/fd/") && lines[4] == "sealed", "\(listing.stdout)")
        let left = try FileManager.default.contentsOfDirectory(atPath: sandbox.folder).filter { $0.hasPrefix("keychainctl-exec") }
        #expect(left.isEmpty, "nothing on disk: \(left)")

        let trapped = sandbox.folder + "/trapped"
        let pathFile = sandbox.folder + "/path"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Sandbox.binary)
        process.arguments = [
            "exec", "--profile", Sandbox.profiles + "/app.plist", "--file", "KEY=service=registry,account=ci", "--", "/bin/sh", "-c",
            "trap 'echo TERM > \(trapped); exit 0' TERM; echo \"$KEY\" > '\(pathFile)'; while :; do sleep 0.05; done",
        ]
        process.environment = sandbox.baseEnvironment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The trap is set before the path is written, so once the file exists TERM is handled.
        #expect(Deadline.waitUntil(10) { FileManager.default.fileExists(atPath: pathFile) }, "the command never started")
        kill(process.processIdentifier, SIGTERM)
        let watchdog = DispatchWorkItem { kill(process.processIdentifier, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 30, execute: watchdog)
        process.waitUntilExit()
        watchdog.cancel()
        #expect(process.terminationStatus == 0 && process.terminationReason == .exit)
        #expect((try? String(contentsOfFile: trapped, encoding: .utf8)) == "TERM\n")
        let path = try String(contentsOfFile: pathFile, encoding: .utf8).trimmingCharacters(in: .newlines)
        #expect(path.hasPrefix("/dev/fd/"), "\(path)")
    }

    @Test func envFileEnvFromAndOverrides() throws {
        let sandbox = try Self.sandbox()
        let envFile = sandbox.folder + "/app.env"
        try """
        # comment
        export PLAIN="a value"
        TOKEN=keychain:service=registry,account=deploy
        SINGLE='$NOT_EXPANDED'
        """.write(toFile: envFile, atomically: true, encoding: .utf8)
        let run = Self.exec(
            sandbox,
            [
                "--mask", "never", "--env-file", envFile, "--env-from", "service=registry", "--prefix", "npm_", "--upper", "--allow-names",
                "NPM_CI,NPM_DEPLOY",
            ],
            script: "printf '%s|%s|%s|%s|%s\\n' \"$PLAIN\" \"$TOKEN\" \"$SINGLE\" \"$NPM_CI\" \"$NPM_DEPLOY\"")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "a value|SECRET-deploy-token|$NOT_EXPANDED|SECRET-npm-token|SECRET-deploy-token\n")
        // keychain: values inherited from the environment are resolved too.
        let inherited = Self.exec(
            sandbox, ["--mask", "never"], script: "printf '%s' \"$API\"", environment: ["API": "keychain:service=registry,account=ci"])
        #expect(inherited.stdout == "SECRET-npm-token")
        // Injected names override inherited ones with a warning, or not with --no-override.
        let overridden = Self.exec(
            sandbox, ["--mask", "never", "--env", "API=service=registry,account=ci"], script: "printf '%s' \"$API\"",
            environment: ["API": "old"])
        #expect(overridden.stdout == "SECRET-npm-token" && overridden.stderr.contains("API is overridden"))
        let kept = Self.exec(
            sandbox, ["--mask", "never", "--no-override", "--env", "API=service=registry,account=ci"], script: "printf '%s' \"$API\"",
            environment: ["API": "old"])
        #expect(kept.stdout == "old" && kept.stderr.contains("--no-override"))
        // --strict refuses a keychain: value that is not a query; without it, it passes with a warning.
        let loose = Self.exec(sandbox, ["--mask", "never"], script: "printf '%s' \"$ODD\"", environment: ["ODD": "keychain:non,sense"])
        #expect(loose.status == 0 && loose.stdout == "keychain:non,sense" && loose.stderr.contains("ODD"))
        #expect(Self.exec(sandbox, ["--strict"], script: "true", environment: ["ODD": "keychain:non,sense"]).status == 206)
        // keychain:NAME is the item `set NAME` stored.
        let named = Self.exec(sandbox, ["--mask", "never"], script: "printf '%s' \"$NPM\"", environment: ["NPM": "keychain:registry"])
        // Named as get names them, by account and group, with the pair that picks one.
        #expect(
            named.status == 206 && named.stderr.contains("2 items match: 'ci' in") && named.stderr.contains("account=ACCOUNT")
                && !named.stderr.contains("ref="), "registry has two accounts: \(named.stderr)")
        // A dotenv error names the file and line, never the value.
        try "GOOD=1\nBAD=\"SECRET-unclosed\n".write(toFile: envFile, atomically: true, encoding: .utf8)
        let bad = Self.exec(sandbox, ["--env-file", envFile], script: "true")
        #expect(bad.status == 206 && bad.stderr.contains("line 2") && !bad.stderr.contains("SECRET"), "\(bad.stderr)")
    }

    @Test func dryRunAndCIMaskShowNoValue() throws {
        let sandbox = try Self.sandbox()
        let dry = Self.exec(sandbox, ["--dry-run", "--env", "T=service=registry,account=ci", "--file", "K=service=pem"], script: "exit 9")
        #expect(dry.status == 0 && !dry.stdout.contains("SECRET"), "\(dry.stdout)")
        #expect(dry.stdout.contains("T ← genp acct=ci svce=registry agrp=SKMME9E2Y8.com.example.app ref="))
        #expect(dry.stdout.contains("file K ← genp acct=tls svce=pem"))
        let json = sandbox.run(
            [
                "exec", "--dry-run", "--format", "json", "--env", "T=service=registry,account=ci", "--profile",
                Sandbox.profiles + "/app.plist", "--", "true",
            ],
            profile: nil)
        let object = try #require(try json.json() as? [String: Any])
        #expect((object["variables"] as? [[String: Any]])?.first?["acct"] as? String == "ci")
        let ci = Self.exec(
            sandbox, ["--ci-mask", "--env", "PEM=service=pem"], script: "true", environment: ["GITHUB_ACTIONS": "true"])
        #expect(
            ci.stdout
                == "::add-mask::-----BEGIN SECRET-----\n::add-mask::SECRETLINEONE\n::add-mask::SECRETLINETWO\n::add-mask::-----END SECRET-----\n"
        )
    }
}
