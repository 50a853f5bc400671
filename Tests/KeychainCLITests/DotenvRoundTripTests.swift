import Foundation
import Testing

/// `export --format dotenv` writes a file docker compose and python-dotenv read back byte for
/// byte (and systemd's EnvironmentFile=, but for a carriage return), or refuses the item (naming
/// what to use instead); a shell that sources it runs nothing.
/// And names stored the README way (`set api-token`) reach it: `--name-from svce --upper` makes
/// `API_TOKEN`, and each hint on the way, followed, moves on.
@Suite struct DotenvRoundTripTests {
    /// Secrets holding what dotenv readers treat apart: `$`, quotes, backslashes, `#`, spaces,
    /// newlines, a carriage return, a tab, backquotes and text that is not ASCII.
    static let kept: [(name: String, secret: String)] = [
        ("PLAIN_TOKEN", "ghp_R3alT0kenValue123"),
        ("DOLLAR_TOKEN", "p@ss$word\"x\\y"),
        ("HOME_TOKEN", "$HOME and $$ and $"),
        ("QUOTE_TOKEN", "it's \"quoted\" \\\\ twice"),
        ("HASH_TOKEN", "  spaced # not a comment  "),
        ("LINES_TOKEN", "line one\nline two\n"),
        ("RETURN_TOKEN", "carriage\r\nreturn\ttab"),
        ("TICK_TOKEN", "tok`touch pwned`en $(touch pwned2)"),
        ("SLASH_TOKEN", "ends with a backslash\\"),
        ("UNICODE_TOKEN", "pässwörd ✓ 🔑"),
        ("EMPTY_TOKEN", ""),
    ]

    /// Values no dotenv quoting keeps for both readers: refused, with nothing written.
    static let unkept: [(name: String, secret: String)] = [
        ("BRACE_TOKEN", "a${HOME}b"),
        ("MIXED_TOKEN", "it's $5"),
        ("TICKQ_TOKEN", "it's `x`"),
    ]

    private static func sandbox(_ items: [(name: String, secret: String)]) throws -> Sandbox {
        let sandbox = try Sandbox()
        for (name, secret) in items {
            let added = sandbox.add(["-s", "rt", "-a", name], secret: secret)
            #expect(added.status == 0, "\(added.stderr)")
        }
        return sandbox
    }

    /// python-dotenv's reading of `path` (its `dotenv_values`, interpolation on, as `load_dotenv`).
    private static func pythonDotenv(_ sandbox: Sandbox, _ path: String) throws -> [String: String] {
        let script = "import json, sys\nfrom dotenv import dotenv_values\nprint(json.dumps(dotenv_values(sys.argv[1])))"
        let run = sandbox.run(["python3", "-c", script, path], profile: nil, timeout: 60, executable: "/usr/bin/env")
        #expect(run.status == 0, "python-dotenv: \(run.stderr)")
        return (try JSONSerialization.jsonObject(with: run.stdoutData) as? [String: String]) ?? [:]
    }

    @Test func whatDotenvWritesReadsBackThroughComposeAndPythonDotenv() throws {
        let sandbox = try Self.sandbox(Self.kept)
        let path = sandbox.folder + "/app.env"
        let names = Self.kept.map(\.name).joined(separator: ",")
        let written = sandbox.run(
            ["export", "--with-secrets", "--format", "dotenv", "-s", "rt", "--allow-names", names, "--output", path])
        #expect(written.status == 0, "\(written.stderr)")
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let compose = try ComposeEnvRules.parse(bytes, variables: ["HOME": "/home/someone"])
        let python = try Self.pythonDotenv(sandbox, path)
        let systemd = SystemdEnvRules.parse(bytes)
        for (name, secret) in Self.kept {
            #expect(compose[name] == Array(secret.utf8), "compose reads \(name) otherwise")
            #expect(python[name] == secret, "python-dotenv reads \(name) otherwise: \(python[name].debugDescription)")
            // systemd's EnvironmentFile= too, but for a carriage return (GUIDE says so).
            #expect(systemd[name] == Array(secret.utf8) || secret.contains("\r"), "systemd reads \(name) otherwise")
        }
        #expect(systemd["RETURN_TOKEN"] != Array(Self.kept.first { $0.name == "RETURN_TOKEN" }!.secret.utf8))
        // keychainctl's own reader (exec --env-file) agrees.
        for (name, secret) in Self.kept {
            let read = sandbox.run(["exec", "--env-file", path, "--mask", "never", "--", "/usr/bin/printenv", name])
            #expect(read.stdout == secret + "\n" || (secret.isEmpty && read.status != 0), "\(name): \(read.stderr)")
        }
    }

    @Test func aShellThatSourcesTheFileRunsNothingOfIt() throws {
        let sandbox = try Self.sandbox(Self.kept)
        let path = sandbox.folder + "/app.env"
        let names = Self.kept.map(\.name).joined(separator: ",")
        #expect(
            sandbox.run(["export", "--with-secrets", "--format", "dotenv", "-s", "rt", "--allow-names", names, "--output", path])
                .status == 0)
        let sourced = sandbox.run(
            ["-c", "cd \"$(dirname \"$1\")\" && set -a && . \"$1\" && printf '%s' \"$TICK_TOKEN\"", "sh", path], profile: nil,
            executable: "/bin/sh")
        #expect(sourced.status == 0 && sourced.stdout == "tok`touch pwned`en $(touch pwned2)", "\(sourced.stderr)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.folder + "/pwned"), "the backquotes ran")
        #expect(!FileManager.default.fileExists(atPath: sandbox.folder + "/pwned2"), "the $( ) ran")
    }

    @Test func aSecretNoQuotingKeepsIsRefusedAndTheFormatNamedTakesIt() throws {
        let sandbox = try Self.sandbox(Self.unkept)
        for (name, secret) in Self.unkept {
            let path = sandbox.folder + "/\(name).env"
            let refused = sandbox.run(
                ["export", "--with-secrets", "--format", "dotenv", "-s", "rt", "-a", name, "--allow-names", name, "--output", path])
            #expect(refused.status == 206, "\(name): \(refused.stderr)")
            #expect(refused.stderr.contains("--format shell") && !refused.stderr.contains(secret), "\(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: path), "a refused export left \(path)")
            // The format the message names keeps it, for a shell that sources the file.
            let shell = sandbox.run(
                ["export", "--with-secrets", "--format", "shell", "-s", "rt", "-a", name, "--allow-names", name, "--output", path])
            #expect(shell.status == 0, "\(shell.stderr)")
            let sourced = sandbox.run(["-c", ". \"$1\" && printf '%s' \"$\(name)\"", "sh", path], profile: nil, executable: "/bin/sh")
            #expect(sourced.stdout == secret, "\(name) through --format shell: \(sourced.stdout)")
        }
    }

    /// The README's way (`set api-token`, no account) to a `.env` for compose, each hint followed
    /// as printed.
    @Test func aNameStoredTheReadmeWayReachesADotenvFileByItsHints() throws {
        let sandbox = try Sandbox()
        let stored = sandbox.run(["set", "api-token"], stdin: Data("tok_value".utf8))
        #expect(stored.status == 0, "\(stored.stderr)")
        let base = ["export", "--with-secrets", "--format", "dotenv", "-s", "api-token"]
        let first = sandbox.run(base)
        #expect(first.status == 64 && first.stderr.contains("--allow-names"), "\(first.stderr)")
        // The user gives the name as it is stored: the message says what it becomes.
        let asStored = sandbox.run(base + ["--allow-names", "api-token"])
        #expect(asStored.status == 64 && asStored.stderr.contains("give --upper --allow-names API_TOKEN"), "\(asStored.stderr)")
        let allowed = sandbox.run(base + ["--upper", "--allow-names", "API_TOKEN"])
        // The account is empty: the service makes the name.
        #expect(allowed.status == 206 && allowed.stderr.contains("--name-from svce --upper makes it API_TOKEN"), "\(allowed.stderr)")
        let done = sandbox.run(base + ["--name-from", "svce", "--upper", "--allow-names", "API_TOKEN"])
        #expect(done.status == 0, "\(done.stderr)")
        #expect(done.stdout == "API_TOKEN='tok_value'\n")
    }

    @Test func upperTurnsDashesAndDotsIntoUnderscores() throws {
        let sandbox = try Sandbox()
        #expect(sandbox.run(["set", "db.example-com", "admin"], stdin: Data("pw".utf8)).status == 0)
        let out = sandbox.run(
            [
                "export", "--with-secrets", "--format", "dotenv", "-s", "db.example-com", "--name-from", "svce", "--upper", "--prefix",
                "my-",
            ])
        // The prefix must be a name already; only the item's part is turned.
        #expect(out.status == 64, "\(out.stderr)")
        let named = sandbox.run(
            [
                "export", "--with-secrets", "--format", "dotenv", "-s", "db.example-com", "--name-from", "svce", "--upper", "--allow-names",
                "DB_EXAMPLE_COM",
            ])
        #expect(named.status == 0 && named.stdout == "DB_EXAMPLE_COM='pw'\n", "\(named.stdout) \(named.stderr)")
    }
}
