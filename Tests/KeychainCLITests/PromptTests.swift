import Foundation
import Testing

/// On a terminal, keychainctl prompts for the passphrase and the secret without echo.
@Suite struct PromptTests {
    typealias Step = TerminalSession.Step
    typealias Session = TerminalSession.Session

    /// Runs the binary with `arguments` on a pseudo-terminal (`TerminalSession`).
    func onTerminal(_ arguments: [String], steps: [Step], environment: [String: String]) throws -> Session {
        try TerminalSession.run([Sandbox.binary] + arguments, steps: steps, environment: environment)
    }

    /// Answers the passphrase prompt of the keychain `withPassphraseKeychain` makes.
    static let passphrase = Step(expect: "Keychain passphrase:", send: "pass phrase\n")

    /// Answers the secret prompt of `add` with `send`.
    static func secret(_ send: String) -> Step { Step(expect: "Secret for the new item:", send: send) }

    /// Runs `body` with the environment of a sandbox whose keychain was made from `pass phrase`
    /// on the terminal; the sandbox (and its folder) lives until `body` returns.
    func withPassphraseKeychain(_ body: ([String: String]) throws -> Void) throws {
        let sandbox = try Sandbox(initialize: false)
        var environment = sandbox.baseEnvironment
        environment["KEYCHAINCTL_KEY_FILE"] = nil
        environment["KEYCHAINCTL_PROFILE"] = Sandbox.profiles + "/app.plist"
        let made = try onTerminal(
            ["init", "--kdf", "interactive"],
            steps: [.init(expect: "New keychain passphrase:", send: "pass phrase\n"), .init(expect: "Repeat", send: "pass phrase\n")],
            environment: environment)
        #expect(made.status == 0, "\(made.shown)")
        #expect(!made.shown.contains("pass phrase"))
        try withExtendedLifetime(sandbox) { try body(environment) }
    }

    @Test func passphraseAndSecretArePromptedWithoutEcho() throws {
        try withPassphraseKeychain { environment in
            let added = try onTerminal(
                ["add", "-s", "tty"], steps: [Self.passphrase, Self.secret("typed-secret\n")], environment: environment)
            #expect(added.status == 0, "\(added.shown)")
            #expect(!added.shown.contains("typed-secret") && added.echoOnAfter)
            let found = try onTerminal(["find", "-s", "tty", "-w"], steps: [Self.passphrase], environment: environment)
            #expect(found.status == 0)
            // On a terminal, -w adds the newline that a pipe does not get.
            #expect(found.shown.hasSuffix("typed-secret\r\n"))
            let wrong = try onTerminal(
                ["find", "-s", "tty"], steps: [.init(expect: "Keychain passphrase:", send: "wrong\n")], environment: environment)
            #expect(wrong.status == 51)
        }
    }

    /// The passphrase and the secret typed (or pasted) together at the first prompt: the secret,
    /// typed ahead of its prompt, is read by it and never shown. (Text typed before the first
    /// prompt appears is echoed by the terminal itself, before keychainctl could turn echo off.)
    /// git and Docker run their helpers on the user's terminal (stdin a pipe, the terminal
    /// still the controlling one): a helper never asks for the passphrase there, it fails at once
    /// saying what to run, and what the user types stays git's.
    @Test func credentialHelpersNeverPromptOnTheTerminal() throws {
        try withPassphraseKeychain { environment in
            let folder = NSTemporaryDirectory() + "helpers-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            for helper in ["git-credential-keychainctl", "docker-credential-keychainctl"] {
                try FileManager.default.createSymbolicLink(atPath: folder + "/" + helper, withDestinationPath: Sandbox.binary)
            }
            let started = Date()
            let session = try TerminalSession.run(
                [
                    "/bin/sh", "-c",
                    """
                    printf 'protocol=https\\nhost=tty.example.com\\n' | "$0/git-credential-keychainctl" get; echo "git exit $?"
                    printf tty.example.com | "$0/docker-credential-keychainctl" get; echo "docker exit $?"
                    """,
                    folder,
                ], steps: [], environment: environment)
            #expect(Date().timeIntervalSince(started) < 20)
            #expect(!session.shown.contains("passphrase:"), "\(session.shown)")
            #expect(session.shown.contains("git exit 36") && session.shown.contains("docker exit 1"), "\(session.shown)")
            #expect(session.shown.contains("Run 'keychainctl unlock' once"), "\(session.shown)")
        }
    }

    @Test func typeAheadIsReadNotShownAndNotDiscarded() throws {
        try withPassphraseKeychain { environment in
            let added = try onTerminal(
                ["add", "-s", "ahead"], steps: [.init(expect: "Keychain passphrase:", send: "pass phrase\ntyped-ahead-secret\n")],
                environment: environment)
            #expect(added.status == 0, "\(added.shown)")
            #expect(!added.shown.contains("typed-ahead-secret") && !added.shown.contains("pass phrase"), "\(added.shown)")
            let found = try onTerminal(["find", "-s", "ahead", "-w"], steps: [Self.passphrase], environment: environment)
            #expect(found.shown.hasSuffix("typed-ahead-secret\r\n"), "\(found.shown)")
        }
    }

    /// Ctrl-C at a prompt ends the command by SIGINT with echo back on.
    @Test func interruptingAPromptRestoresEcho() throws {
        try withPassphraseKeychain { environment in
            let interrupted = try onTerminal(
                ["add", "-s", "interrupted"], steps: [Self.passphrase, Self.secret("half\u{03}")], environment: environment)
            #expect(interrupted.status == 128 + SIGINT, "\(interrupted.status) \(interrupted.shown)")
            #expect(interrupted.echoOnAfter)
            #expect(!interrupted.shown.contains("half"))
        }
    }

    /// On a terminal: export refuses to print secrets (exit 64, nothing shown); exec leaves the
    /// terminal unmasked under --mask auto and masks it under --mask always; after unlock a find
    /// asks for no passphrase.
    @Test func terminalOutputRules() throws {
        let sandbox = try Sandbox()
        #expect(sandbox.add(["-s", "tty", "-a", "t"], secret: "SECRET-on-tty").status == 0)
        var environment = sandbox.baseEnvironment
        environment["KEYCHAINCTL_PROFILE"] = Sandbox.profiles + "/app.plist"
        let export = try onTerminal(["export", "--with-secrets"], steps: [], environment: environment)
        #expect(export.status == 64 && !export.shown.contains("SECRET") && export.shown.contains("terminal"), "\(export.shown)")
        let plain = try onTerminal(
            ["exec", "--env", "T=service=tty", "--", "/bin/sh", "-c", "echo \"$T\""], steps: [], environment: environment)
        #expect(plain.status == 0 && plain.shown.contains("SECRET-on-tty"), "\(plain.shown)")
        let masked = try onTerminal(
            ["exec", "--mask", "always", "--env", "T=service=tty", "--", "/bin/sh", "-c", "echo \"$T\""], steps: [],
            environment: environment)
        #expect(masked.status == 0 && masked.shown.contains("[keychainctl:T]") && !masked.shown.contains("SECRET"), "\(masked.shown)")
    }

    /// The everyday verbs on a terminal: `set` prompts without echo, `ls` aligns its columns under
    /// a header, a `delete` that selects everything asks first (no keeps everything), and `import`
    /// and `rekey` show their progress on a line they clear.
    @Test func everydayVerbsOnATerminal() throws {
        let sandbox = try Sandbox()
        var environment = sandbox.baseEnvironment
        environment["KEYCHAINCTL_PROFILE"] = nil
        let set = try onTerminal(
            ["set", "tty-service", "me"], steps: [.init(expect: "Secret for service 'tty-service'", send: "typed-secret\n")],
            environment: environment)
        #expect(set.status == 0 && !set.shown.contains("typed-secret") && set.echoOnAfter, "\(set.shown)")
        #expect(sandbox.run(["get", "tty-service", "me"], profile: nil).stdout == "typed-secret")
        let listed = try onTerminal(["ls"], steps: [], environment: environment)
        #expect(listed.shown.contains("SERVICE      ACCOUNT  GROUP                LABEL  MODIFIED"), "\(listed.shown)")
        #expect(listed.shown.contains("tty-service  me       keychainctl.default         "), "\(listed.shown)")
        let declined = try onTerminal(["delete"], steps: [.init(expect: "[y/N]", send: "n\n")], environment: environment)
        #expect(declined.status == 128 && declined.shown.contains("(1 item)"), "\(declined.shown)")
        #expect(sandbox.run(["get", "tty-service"], profile: nil).status == 0, "a no deleted nothing")
        let imported = try onTerminal(
            ["import", "--from-env", "A,B", "-s", "tty-import"], steps: [], environment: environment.merging(["A": "1", "B": "2"]) { $1 })
        #expect(
            imported.status == 0 && imported.shown.contains("importing: 1 item") && imported.shown.contains("\u{1B}[K"), "\(imported.shown)"
        )
        let rekeyed = try onTerminal(
            ["rekey", "--generate-key-file", sandbox.folder + "/new.key"], steps: [], environment: environment)
        #expect(rekeyed.status == 0 && rekeyed.shown.contains("rekeying: 1 item"), "\(rekeyed.shown)")
        let confirmed = try onTerminal(
            ["delete", "--key-file", sandbox.folder + "/new.key"], steps: [.init(expect: "[y/N]", send: "y\n")], environment: environment)
        #expect(confirmed.status == 0 && confirmed.shown.contains("(3 items)"), "\(confirmed.shown)")
    }
}
