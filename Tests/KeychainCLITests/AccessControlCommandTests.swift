import Foundation
import Testing

/// Access control and simulated authentication through the real binary.
@Suite struct AccessControlCommandTests {
    /// A keychain with a plain item (`svce=api acct=plain`) and one protected by `flags`
    /// (`acct=guarded`, secret `face-only`).
    static func sandbox(_ flags: String = "biometry-current-set") throws -> Sandbox {
        let sandbox = try Sandbox()
        #expect(sandbox.run(["add", "-s", "api", "-a", "plain"], stdin: Data("anyone".utf8)).status == 0)
        let added = sandbox.run(["add", "-s", "api", "-a", "guarded", "--access-control", flags], stdin: Data("face-only".utf8))
        #expect(added.status == 0, "\(added.stderr)")
        return sandbox
    }

    @Test func theAccessControlIsShownInAppleTextForm() throws {
        let sandbox = try Self.sandbox("biometry-any,device-passcode,or")
        let json = try sandbox.run(["find", "-a", "guarded", "--auth", "approve", "--format", "json"]).json() as? [String: Any]
        #expect(json?["accc"] as? String == "ak;od(cbio(pbioc())cup(true)pkofn(1));odel(true);oe(true)")
        #expect(json?["pdmn"] as? String == "ak")
        let text = sandbox.run(["find", "-a", "plain"]).stdout
        #expect(text.contains("accc (access control): ak\n"), "\(text)")
        let ck = sandbox.run(
            [
                "add", "-s", "x", "--access-control", "user-presence", "--accessible", "after-first-unlock", "--return", "attributes",
                "--format", "json",
            ], stdin: Data("s".utf8))
        #expect((try ck.json() as? [String: Any])?["accc"] as? String == "ck;od(cpo(DeviceOwnerAuthentication));odel(true);oe(true)")
    }

    /// Who answers: --auth, KEYCHAINCTL_AUTH, nobody (no terminal: 36); the outcomes' statuses.
    @Test func answersAndTheirStatuses() throws {
        let sandbox = try Self.sandbox()
        let unasked = sandbox.run(["find", "-a", "guarded"])
        #expect(unasked.status == 36)
        #expect(unasked.stderr.contains("errSecInteractionNotAllowed -25308") && unasked.stderr.contains("--auth approve"))
        #expect(sandbox.run(["find", "-a", "guarded", "-w", "--auth", "approve"]).stdout == "face-only")
        #expect(sandbox.run(["find", "-a", "guarded", "-w"], environment: ["KEYCHAINCTL_AUTH": "approve"]).stdout == "face-only")
        let cancelled = sandbox.run(["find", "-a", "guarded", "-w"], environment: ["KEYCHAINCTL_AUTH": "cancel"])
        #expect(cancelled.status == 128 && cancelled.stdout.isEmpty && cancelled.stderr.contains("errSecUserCanceled -128"))
        let failed = sandbox.run(["find", "-s", "api", "--limit", "all", "--return", "data", "--auth", "fail"])
        #expect(failed.status == 51 && failed.stdout.isEmpty)
        #expect(sandbox.run(["find", "-a", "guarded"], environment: ["KEYCHAINCTL_AUTH": "maybe"]).status == 78)
        #expect(sandbox.run(["find", "-a", "guarded", "--auth", "maybe"]).status == 64)
        // The UI setting: fail never asks; skip leaves the item out of a find and is -50 elsewhere.
        #expect(sandbox.run(["find", "-a", "guarded", "--auth", "approve", "--auth-ui", "fail"]).status == 36)
        #expect(sandbox.run(["find", "-a", "guarded", "--auth-ui", "skip"]).status == 44)
        let skipped = sandbox.run(["find", "-s", "api", "--limit", "all", "--auth-ui", "skip", "--format", "json"])
        #expect((try skipped.json() as? [[String: Any]])?.map { $0["acct"] as? String } == ["plain"])
        for command in [["add", "-s", "new"], ["update", "-s", "api", "--set-label", "x"], ["delete", "-s", "api"], ["device", "lock"]] {
            let run = sandbox.run(command + ["--auth-ui", "skip"], stdin: Data("s".utf8))
            #expect(run.status == 206, "\(command) \(run.stderr)")
        }
        #expect(sandbox.run(["find", "-a", "guarded", "--auth-ui", "never"]).status == 64)
        // Delete never asks.
        #expect(sandbox.run(["delete", "-a", "guarded"]).status == 0)
    }

    /// Bad flags and bad pairings are -50 and add nothing.
    @Test func badAccessControlsAddNothing() throws {
        let sandbox = try Sandbox()
        let cases: [[String]] = [
            ["--access-control", "face-id"], ["--access-control", "biometry-any,biometry-current-set"],
            ["--access-control", "user-presence,or"], ["--access-control", "or,and,device-passcode"],
            ["--access-control", "biometry-any", "--sync", "yes"], ["--access-control", "biometry-any", "--attr", "pdmn=ak"],
            ["--access-control", "private-key-usage"], ["--access-control", "biometry-any\u{1b}[2J"],
            ["--access-control", String(repeating: "or,", count: 20_000)],
            ["--access-control", "biometry-any", "--accessible", "sometimes"],
        ]
        for extra in cases {
            let run = sandbox.run(["add", "-s", "bad"] + extra, stdin: Data("s".utf8))
            #expect(run.status == 206, "\(extra.map { $0.prefix(40) })")
            #expect(!run.stderr.contains("\u{1b}"))
        }
        #expect(sandbox.run(["find", "-s", "bad"]).status == 44)
        #expect(sandbox.run(["add", "-s", "bad", "--attr", "accc=ak"], stdin: Data("s".utf8)).status == 206)
    }

    /// update --set-access-control replaces or removes it; a new accessibility alone drops it.
    @Test func updateSetsAndRemovesIt() throws {
        let sandbox = try Self.sandbox("device-passcode")
        func accc() throws -> String? {
            (try sandbox.run(["find", "-a", "guarded", "--auth", "approve", "--format", "json"]).json() as? [String: Any])?["accc"]
                as? String
        }
        #expect(sandbox.run(["update", "-a", "guarded", "--set-access-control", "biometry-any"]).status == 36)
        #expect(
            sandbox.run(["update", "-a", "guarded", "--set-access-control", "biometry-any", "--set-accessible", "ck", "--auth", "approve"])
                .status == 0)
        #expect(try accc() == "ck;od(cbio(pbioc()));odel(true);oe(true)")
        #expect(sandbox.run(["update", "-a", "guarded", "--set-access-control", "none", "--auth", "approve"]).status == 0)
        #expect(try accc() == "ck")
        #expect(sandbox.run(["find", "-a", "guarded", "-w"]).stdout == "face-only")
        #expect(sandbox.run(["update", "-a", "guarded", "--set-access-control", "user-presence", "--set-sync", "yes"]).status == 206)
        #expect(sandbox.run(["update", "-a", "guarded", "--set-access-control", "user-presence", "--set-attr", "pdmn=ak"]).status == 206)
    }

    /// The biometry transcript: a biometry-current-set item is lost when biometry is re-enrolled;
    /// a biometry-any one survives, fails while none is enrolled, and works once it is again.
    @Test func biometryChangesInvalidateCurrentSetItems() throws {
        let sandbox = try Self.sandbox("biometry-current-set")
        #expect(sandbox.run(["add", "-s", "api", "-a", "any", "--access-control", "biometry-any"], stdin: Data("any".utf8)).status == 0)
        let asked = sandbox.run(["device", "biometry", "change"], profile: nil)
        #expect(asked.status == 36 && asked.stderr.contains("--yes"))
        #expect(sandbox.run(["find", "-a", "guarded", "--auth", "approve", "-w"]).stdout == "face-only")
        let changed = sandbox.run(["device", "biometry", "change", "--yes", "--format", "json"], profile: nil)
        #expect((try changed.json() as? [String: Any])?["invalidated"] as? Int == 1)
        #expect(sandbox.run(["find", "-a", "guarded", "--auth", "approve"]).status == 44)
        #expect(sandbox.run(["find", "-a", "any", "--auth", "approve", "-w"]).stdout == "any")
        let removed = sandbox.run(["device", "biometry", "remove", "--yes"], profile: nil)
        #expect(removed.stdout.contains("biometry: none\n") && removed.stdout.contains("deleted: 0 items"))
        let failing = sandbox.run(["find", "-a", "any", "--auth", "approve"])
        #expect(failing.status == 51 && failing.stderr.contains("biometry enroll"))
        #expect(sandbox.run(["add", "-s", "x", "--access-control", "biometry-any"], stdin: Data("s".utf8)).status == 51)
        #expect(sandbox.run(["device", "biometry", "enroll"], profile: nil).stdout.contains("biometry: enrolled"))
        #expect(sandbox.run(["find", "-a", "any", "--auth", "approve", "-w"]).stdout == "any")
    }

    /// verify checks an application-password item up to its password, and finds its key's outer
    /// layer altered without it.
    @Test func verifyChecksPasswordItemsUpToThePassword() throws {
        let sandbox = try Sandbox()
        #expect(try sandbox.addBehindApplicationPassword(service: "vault", secret: "app-secret", password: "open sesame").status == 0)
        let clean = sandbox.run(["verify", "--format", "json"], profile: nil)
        #expect(clean.status == 0, "\(clean.stderr)")
        #expect((try? clean.json() as? [String: Any])?["behindPassword"] as? Int == 1)
        let tamper = sandbox.editKeychain(
            """
            k = bytearray(db.execute('SELECT item_key FROM genp').fetchone()[0]); k[40] ^= 1
            db.execute('UPDATE genp SET item_key = ?', (bytes(k),))
            """)
        #expect(tamper.status == 0, "\(tamper.stderr)")
        let damaged = sandbox.run(["verify"], profile: nil)
        #expect(
            damaged.status == 93 && damaged.stdout.contains("damaged items: 1"), "\(damaged.status) \(damaged.stdout) \(damaged.stderr)")
    }

    /// The application password encrypts the secret: it comes from a file descriptor on add and
    /// on every read; wrong is 51, none (and no terminal) is 36.
    @Test func applicationPasswordFromADescriptor() throws {
        let sandbox = try Sandbox()
        let added = try sandbox.addBehindApplicationPassword(service: "vault", secret: "app-secret", password: "open sesame")
        #expect(added.status == 0, "\(added.stderr)")
        #expect(
            sandbox.run(["find", "-s", "vault", "-w", "--application-password-fd", "0"], stdin: Data("open sesame\n".utf8)).stdout
                == "app-secret")
        #expect(sandbox.run(["find", "-s", "vault", "-w", "--application-password-fd", "0"], stdin: Data("guess\n".utf8)).status == 51)
        #expect(sandbox.run(["find", "-s", "vault"]).status == 36)
        // A huge or empty password adds nothing and is never echoed (read from a file: the
        // binary stops reading at its cap, which would break a pipe).
        let passwordFile = sandbox.folder + "/password"
        let secret = sandbox.folder + "/secret"
        try Data("app-secret".utf8).write(to: URL(fileURLWithPath: secret))
        for (password, status) in [(String(repeating: "a", count: 2_000_000), Int32(78)), ("\n", 206)] {
            try Data(password.utf8).write(to: URL(fileURLWithPath: passwordFile))
            let run = sandbox.run(
                ["add", "-s", "bad", "--access-control", "application-password", "--data-file", secret, "--application-password-fd", "0"],
                stdinPath: passwordFile)
            #expect(run.status == status && !run.stderr.contains("aaaa"), "\(run.stderr)")
        }
        #expect(sandbox.run(["find", "-s", "bad"]).status == 44)
        // Its secret is not in the file in any form a key alone opens: the keychain key's
        // holder still needs the password (checked in-process by AccessControlTests).
        #expect(sandbox.run(["delete", "-s", "vault"]).status == 0)
    }

    /// On a terminal the user is asked, naming the item and the constraint; an answer that is
    /// not approve, cancel or fail is -50 and nothing is shown.
    @Test func theTerminalAsks() throws {
        let sandbox = try Self.sandbox("biometry-any")
        var environment = sandbox.baseEnvironment
        environment["KEYCHAINCTL_PROFILE"] = Sandbox.profiles + "/app.plist"
        let prompts = PromptTests()
        let approved = try prompts.onTerminal(
            ["find", "-a", "guarded", "-w"], steps: [.init(expect: "[approve/cancel/fail]", send: "approve\n")], environment: environment)
        #expect(
            approved.status == 0 && approved.shown.contains("Face ID / Touch ID (any enrolled biometry) to read genp"), "\(approved.shown)")
        #expect(approved.shown.contains("face-only"))
        let cancelled = try prompts.onTerminal(
            ["find", "-a", "guarded", "-w"], steps: [.init(expect: "[approve/cancel/fail]", send: "cancel\n")], environment: environment)
        #expect(cancelled.status == 128 && !cancelled.shown.contains("face-only"))
        let other = try prompts.onTerminal(
            ["find", "-a", "guarded", "-w"], steps: [.init(expect: "[approve/cancel/fail]", send: "sure\n")], environment: environment)
        #expect(other.status == 206 && !other.shown.contains("face-only"))
    }
}
