import Foundation
import KeychainCore
import KeychainTestSupport
import Testing

/// The security claims of docs/SECURITY.md tried as an attacker would, through the real binary: hostile
/// profiles, damaged rows among good ones, hostile KDF parameters and schemas, and the upgrade.
@Suite struct SecurityTests {
    static let victimGroup = "SKMME9E2Y8.com.example.app"

    /// Writes `entitlements` as a binary plist (which, unlike XML, can hold a NUL) into the sandbox.
    static func profile(_ sandbox: Sandbox, _ name: String, _ entitlements: [String: PlistEntry]) throws -> String {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        let path = sandbox.folder + "/\(name).plist"
        try encoder.encode(entitlements).write(to: URL(fileURLWithPath: path))
        return path
    }

    enum PlistEntry: Encodable {
        case string(String)
        case strings([String])
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .string(let text): try container.encode(text)
            case .strings(let texts): try container.encode(texts)
            }
        }
    }

    @Test(arguments: [
        ("keychain-access-groups", true), ("com.apple.security.application-groups", true),
        ("com.apple.developer.associated-application-identifier", true), ("application-identifier", false),
        ("com.apple.application-identifier", false),
    ])
    func controlCharactersInAnyGroupEntitlementAreRefused(entitlement: String, isArray: Bool) throws {
        let sandbox = try Sandbox()
        sandbox.add(["-s", "svc", "-a", "victim"], secret: "victim-secret")
        for (control, code) in [("\u{0}", "U+0000"), ("\u{1B}", "U+001B"), ("\u{85}", "U+0085")] {
            let hostile = Self.victimGroup + control + "x"
            let value: PlistEntry = isArray ? .strings(["OTHERTEAM.com.other.app", hostile]) : .string(hostile)
            let path = try Self.profile(sandbox, "hostile", [entitlement: value])
            let run = sandbox.run(["find", "-s", "svc", "-a", "victim", "-w", "--profile", path], profile: nil)
            #expect(run.status == 78, "\(entitlement) \(code): \(run.stderr)")
            #expect(run.stdout.isEmpty)
            #expect(run.stderr.contains(entitlement) && run.stderr.contains(code))
            if isArray { #expect(run.stderr.contains("entry 1")) }
            let planted = sandbox.run(["add", "-s", "planted", "--profile", path], profile: nil, stdin: Data("x".utf8))
            #expect(planted.status == 78)
        }
        // The victim's own broad finds are untouched.
        #expect(sandbox.run(["find", "--limit", "all"]).status == 0)
    }

    @Test func canonicallyEquivalentGroupsAreDifferentGroups() throws {
        let sandbox = try Sandbox()
        let composed = "SKMME9E2Y8.com.example.caf\u{E9}"
        let decomposed = "SKMME9E2Y8.com.example.cafe\u{301}"
        let victim = try Self.profile(sandbox, "victim", ["keychain-access-groups": .strings([composed])])
        let attacker = try Self.profile(sandbox, "attacker", ["keychain-access-groups": .strings([decomposed])])
        #expect(sandbox.run(["add", "-s", "svc", "--profile", victim], profile: nil, stdin: Data("victim-secret".utf8)).status == 0)
        let explicit = sandbox.run(["find", "-s", "svc", "-w", "-g", composed, "--profile", attacker], profile: nil)
        #expect(explicit.status == 30)
        #expect(explicit.stdout.isEmpty)
        let implicit = sandbox.run(["find", "-s", "svc", "-w", "--profile", attacker], profile: nil)
        #expect(implicit.status == 44)
    }

    /// Five items, the third with one byte of its metadata flipped.
    static func keychainWithOneDamagedRow() throws -> (Sandbox, damagedRef: String) {
        let sandbox = try Sandbox()
        var refs: [String] = []
        for index in 1...5 {
            let added = sandbox.run(
                ["add", "-s", "svc", "-a", "user\(index)", "--return", "persistent-ref"], stdin: Data("secret-\(index)".utf8))
            refs.append(added.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let connection = try SQLiteConnection(path: sandbox.keychain, create: false)
        try connection.execute(
            // Another byte whatever the ciphertext held there (a fixed x'ff' left one run in 256 undamaged).
            "UPDATE genp SET metadata = CAST(substr(metadata, 1, 40) || CASE WHEN substr(metadata, 41, 1) = x'ff' THEN x'fe' ELSE x'ff' END "
                + "|| substr(metadata, 42) AS BLOB) WHERE rowid = 3")
        return (sandbox, refs[2])
    }

    @Test func aDamagedRowAmongManyIsNamedAndDeletable() throws {
        let (sandbox, ref) = try Self.keychainWithOneDamagedRow()
        // find: the good rows, the damaged one named, exit 93; --skip-damaged: exit 0.
        let all = sandbox.run(["find", "-s", "svc", "--limit", "all", "--format", "json"])
        #expect(all.status == 93)
        #expect((try all.json() as? [Any])?.count == 4)
        #expect(all.stderr.contains(ref))
        let skipped = sandbox.run(["find", "-s", "svc", "--limit", "all", "--skip-damaged", "--return", "data"])
        #expect(skipped.status == 0)
        #expect(skipped.stdout.split(separator: "\n").count == 4)
        #expect(skipped.stderr.contains(ref) && skipped.stderr.contains("skipped"))
        // The damaged item alone: 93 naming it.
        let one = sandbox.run(["find", "-s", "svc", "-a", "user3", "-w"])
        #expect(one.status == 93 && one.stdout.isEmpty && one.stderr.contains(ref))
        // Writes refuse as a whole, naming it, unless --skip-damaged.
        let update = sandbox.run(["update", "-s", "svc", "--set-label", "renamed"])
        #expect(update.status == 93)
        #expect(update.stderr.contains(ref) && update.stderr.contains("Nothing was changed"))
        #expect(sandbox.run(["find", "-s", "svc", "-l", "renamed"]).status == 44)
        #expect(sandbox.run(["delete", "-s", "svc"]).status == 93)
        let migrate = sandbox.run(["migrate-group", "--from", Self.victimGroup, "--to", Fixtures.sharedGroup])
        #expect(migrate.status == 93)
        #expect(sandbox.run(["find", "-s", "svc", "-g", Fixtures.sharedGroup]).status == 44)
        let moved = sandbox.run(["migrate-group", "--from", Self.victimGroup, "--to", Fixtures.sharedGroup, "--skip-damaged"])
        #expect(moved.status == 0, "\(moved.stderr)")
        #expect(moved.stdout.contains("4 moved") && moved.stdout.contains("damaged (left in place): ref=\(ref)"))
        let renamed = sandbox.run(["update", "-s", "svc", "-g", Fixtures.sharedGroup, "--set-label", "renamed", "--skip-damaged"])
        #expect(renamed.status == 0)
        #expect(sandbox.run(["find", "-s", "svc", "-l", "renamed", "--limit", "all", "--format", "json"]).status == 0)
        // verify names it; delete by reference removes it without opening it; verify is then clean.
        let verify = sandbox.run(["verify", "--format", "json"], profile: nil)
        #expect(verify.status == 93)
        let report = try verify.json() as? [String: Any]
        #expect((report?["damaged"] as? [[String: Any]])?.first?["v_PersistentRef"] as? String == ref)
        #expect(sandbox.run(["verify", "--repair"], profile: nil).status == 36)  // no terminal, no --yes
        let removed = sandbox.run(["delete", "--persistent-ref", ref])
        #expect(removed.status == 0)
        #expect(removed.stderr.contains("removed without a tombstone"))
        #expect(sandbox.run(["verify"], profile: nil).status == 0)
        #expect(sandbox.run(["find", "-s", "svc", "-a", "user4", "-w", "-g", Fixtures.sharedGroup]).stdout == "secret-4")
    }

    @Test func swappedDigestsNeverHandOutAnotherSecret() throws {
        let sandbox = try Sandbox()
        sandbox.add(["-s", "webhook.attacker.example", "-a", "ci"], secret: "low-value-token")
        sandbox.add(["-s", "prod-db", "-a", "ci"], secret: "PROD-DB-PASSWORD")
        let connection = try SQLiteConnection(path: sandbox.keychain, create: false)
        try connection.execute(
            """
            CREATE TEMP TABLE saved AS SELECT rowid AS r, h_svce FROM genp;
            UPDATE genp SET h_svce = randomblob(16) WHERE rowid = 1;
            UPDATE genp SET h_svce = (SELECT h_svce FROM saved WHERE r = 1) WHERE rowid = 2;
            UPDATE genp SET h_svce = (SELECT h_svce FROM saved WHERE r = 2) WHERE rowid = 1;
            """)
        let read = sandbox.run(["find", "-s", "prod-db", "-a", "ci", "-w"])
        #expect(read.status == 93)
        #expect(read.stdout.isEmpty)
        // Nor can a delete or update of one reach the other.
        #expect(sandbox.run(["delete", "-s", "prod-db", "-a", "ci"]).status == 93)
        #expect(sandbox.run(["update", "-s", "prod-db", "-a", "ci", "--set-password", "x"]).status == 93)
        #expect(sandbox.run(["find", "-s", "webhook.attacker.example", "-a", "ci", "-w"]).stdout.isEmpty)
    }

    @Test func tombstoneFlagCannotHideOrReviveAnItem() throws {
        let sandbox = try Sandbox()
        sandbox.add(["-s", "svc", "-a", "kept"], secret: "kept-secret")
        sandbox.add(["-s", "svc", "-a", "gone", "--sync", "yes"], secret: "gone-secret")
        #expect(sandbox.run(["delete", "-s", "svc", "-a", "gone", "--sync", "yes"]).status == 0)
        let connection = try SQLiteConnection(path: sandbox.keychain, create: false)
        try connection.execute("UPDATE genp SET tomb = 1 WHERE rowid = 1; UPDATE genp SET tomb = 0 WHERE rowid = 2")
        // The hidden item is not silently replaced by the user's next add: the add fails, nothing is lost.
        let add = sandbox.add(["-s", "svc", "-a", "kept"], secret: "replacement")
        #expect(add.status == 93)
        #expect(sandbox.run(["find", "-s", "svc", "-a", "gone", "--sync", "yes", "-w"]).status == 93)
        #expect(sandbox.run(["verify"], profile: nil).status == 93)
        // Put back, the item opens with its own secret.
        try connection.execute("UPDATE genp SET tomb = 0 WHERE rowid = 1")
        #expect(sandbox.run(["find", "-s", "svc", "-a", "kept", "-w"]).stdout == "kept-secret")
        // A NULL secret is a damaged row, never an empty secret with exit 0.
        try connection.execute("UPDATE genp SET secret = NULL WHERE rowid = 1")
        let null = sandbox.run(["find", "-s", "svc", "-a", "kept", "-w"])
        #expect(null.status == 93 && null.stdout.isEmpty)
    }

    @Test func hostileKDFParametersAreADamagedKeychainNotAHang() throws {
        let sandbox = try Sandbox(initialize: false)
        let environment = ["KEYCHAINCTL_KEY_FILE": "", "KEYCHAINCTL_PASSPHRASE": "correct horse battery"]
        #expect(sandbox.run(["init", "--kdf", "interactive"], profile: nil, environment: environment).status == 0)
        let connection = try SQLiteConnection(path: sandbox.keychain, create: false)
        let statement = try connection.prepare("SELECT value FROM keychain_meta WHERE name = 'kdf'")
        #expect(try statement.step())
        let record = statement.blob(0)
        statement.reset()
        func withRecord(_ bytes: [UInt8]) throws -> Sandbox.Run {
            let hex = bytes.map { String(format: "%02x", $0) }.joined()
            try connection.execute("UPDATE keychain_meta SET value = x'\(hex)' WHERE name = 'kdf'")
            return sandbox.run(["find", "-s", "svc"], environment: environment, timeout: 20)
        }
        var hugeOps = record
        for index in 3..<11 { hugeOps[index] = 0xFF }
        var hugeMemory = record
        for index in 11..<19 { hugeMemory[index] = 0xFF }
        for (name, bytes) in [
            ("passes", hugeOps), ("memory", hugeMemory), ("salt", Array(record.dropLast(15))),
            ("algorithm", [0x01, 0x01] + record.dropFirst(2)),
        ] {
            let run = try withRecord(bytes)
            #expect(run.status == 74, "\(name): \(run.status) \(run.stderr)")
            #expect(run.stderr.contains("passphrase parameters are damaged"), "\(name)")
        }
        // An in-range edit changes the derived key: indistinguishable from a wrong passphrase (51),
        // and the hint says so.
        var otherPasses = record
        otherPasses[3] ^= 0x01
        let edited = try withRecord(otherPasses)
        #expect(edited.status == 51)
        #expect(edited.stderr.contains("wrong passphrase for") && !edited.stderr.contains("Argon2id"), "\(edited.stderr)")
        // The man page's exit status entry says what an edited record looks like.
        let manual = try Sandbox(initialize: false).run(["manpage"], profile: nil)
        #expect(manual.stdout.contains("Argon2id parameters were edited within their bounds"), "\(manual.stderr)")
        #expect(try withRecord(record).status == 44)
        // An empty passphrase creates nothing.
        let empty = try Sandbox(initialize: false)
        let refused = empty.run(["init", "--passphrase-fd", "0"], profile: nil, stdin: Data(), environment: ["KEYCHAINCTL_KEY_FILE": ""])
        #expect(refused.status == 78)
        #expect(!FileManager.default.fileExists(atPath: empty.keychain))
    }

    @Test(arguments: [
        "CREATE TRIGGER steal AFTER INSERT ON genp BEGIN UPDATE genp SET labl = 1; END",
        "CREATE VIEW everything AS SELECT * FROM genp",
        "ALTER TABLE genp ADD COLUMN extra BLOB",
        "CREATE INDEX genp_agrp ON genp(agrp)",
        "CREATE TABLE stash (x BLOB)",
    ])
    func aHostileSchemaIsRefusedBeforeAnythingRuns(sql: String) throws {
        let sandbox = try Sandbox()
        sandbox.add(["-s", "svc"], secret: "s")
        let connection = try SQLiteConnection(path: sandbox.keychain, create: false)
        try connection.execute(sql)
        for arguments in [["find", "-s", "svc", "-w"], ["add", "-s", "other"]] {
            let run = sandbox.run(arguments, stdin: Data("x".utf8))
            #expect(run.status == 74, "\(sql): \(run.stderr)")
            #expect(run.stderr.contains("tampered"))
            #expect(run.stdout.isEmpty)
        }
    }

    @Test func schemaVersion1IsUpgradedAndThenAuthenticatesItsTombstones() throws {
        let sandbox = try Sandbox(initialize: false)
        let (keychain, environment) = try Fixtures.schemaKeychain(version: 1, into: sandbox)
        #expect(sandbox.run(["find", "-s", "fixture", "-a", "v1", "-w"], environment: environment).stdout == "written-by-schema-1")
        let connection = try SQLiteConnection(path: keychain, create: false)
        let version = try connection.prepare("SELECT version FROM schema_version")
        #expect(try version.step())
        #expect(version.integer(0) == 5)  // through 2 (identity), 3 (device) and 4 (accc) to the current version
        version.reset()
        let verified = sandbox.run(["verify", "--format", "json"], profile: nil, environment: environment)
        #expect(verified.status == 0)
        #expect((try verified.json() as? [String: Any])?["version"] as? Int == 5)
        // The upgraded tombstone is bound: reviving it is caught.
        try connection.execute("UPDATE genp SET tomb = 0 WHERE tomb = 1")
        #expect(sandbox.run(["find", "-s", "fixture", "-a", "synced", "--sync", "yes"], environment: environment).status == 93)
    }

    /// While `add` waits for its secret on stdin (the keychain already opened with the key from
    /// `KEYCHAINCTL_KEY`), the live process: its /proc files as a given user sees them.
    static func whileWaitingForInput(_ sandbox: Sandbox) throws -> (key: String, limits: String, environ: Data?) {
        let key = try String(contentsOfFile: sandbox.keyFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        var limits = ""
        var environ: Data?
        var blockedOnStdin = false
        let result = sandbox.run(
            ["add", "-s", "env-wipe"], stdin: Data("s3cret".utf8), environment: ["KEYCHAINCTL_KEY_FILE": "", "KEYCHAINCTL_KEY": key],
            timeout: 60
        ) { pid in
            // Wait (at most 30 s) until the child is blocked in read(0, ...): the key is taken by then.
            blockedOnStdin = Deadline.waitUntil(30, interval: 0.01) {
                (try? String(contentsOfFile: "/proc/\(pid)/syscall", encoding: .utf8))?.hasPrefix("0 0x0 ") == true
            }
            limits = (try? String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)) ?? ""
            environ = FileManager.default.contents(atPath: "/proc/\(pid)/environ")
        }
        #expect(result.status == 0, "\(result.stderr)")
        #expect(blockedOnStdin)
        return (key, limits, environ)
    }

    /// The live process has a core-size limit of 0, and is not dumpable: only root may read its
    /// environment block.
    @Test func aRunningProcessDumpsNoCore() throws {
        let (_, limits, environ) = try Self.whileWaitingForInput(try Sandbox())
        let coreLine = limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") }
        let softAndHard = coreLine.map { Array($0.split(separator: " ").suffix(3).prefix(2)) }
        #expect(softAndHard == ["0", "0"], "\(limits)")
        #expect((environ == nil) == (getuid() != 0), "a non-root user reads /proc/PID/environ only of a dumpable process")
    }

    /// Its environment block, as root sees it in /proc, no longer holds the key.
    @Test(.enabled(if: TestMachine.isRoot, "machine: root"))
    func aRunningProcessHoldsNoKeyInItsEnvironment() throws {
        let (key, _, environ) = try Self.whileWaitingForInput(try Sandbox())
        let block = try #require(environ)
        #expect(!block.isEmpty)
        #expect(block.range(of: Data(key.utf8)) == nil, "the key is still in the process's environment block")
        #expect(block.range(of: Data("PATH=".utf8)) != nil)
    }
}
