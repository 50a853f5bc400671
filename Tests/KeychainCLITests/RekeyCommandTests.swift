import Foundation
import KeychainTestSupport
import Testing

/// `rekey`: after it, the new credential opens everything and the old one nothing; a damaged item
/// stops it with nothing changed; a SIGKILL at any moment leaves every item readable under exactly
/// one of the two keys.
@Suite struct RekeyCommandTests {
    @Test func newKeyOpensEverythingAndTheOldNothing() throws {
        let sandbox = try Sandbox()
        #expect(sandbox.add(["-s", "plain", "-a", "a"], secret: "SECRET-plain").status == 0)
        #expect(sandbox.add(["-s", "sync", "-a", "s", "--sync", "yes"], secret: "SECRET-sync").status == 0)
        #expect(sandbox.run(["add", "-s", "gone"], stdin: Data("SECRET-gone".utf8)).status == 0)
        #expect(sandbox.run(["delete", "-s", "gone"]).status == 0)
        #expect(try sandbox.addBehindApplicationPassword(service: "vault", secret: "SECRET-vault", password: "open sesame").status == 0)
        let old = sandbox.folder + "/old.key"
        try FileManager.default.copyItem(atPath: sandbox.keyFile, toPath: old)
        let blobs =
            "print('\\n'.join(sorted(r[0].hex() + ' ' + r[1].hex() for r in db.execute('SELECT secret, item_key FROM genp WHERE secret IS NOT NULL'))))"
        let before = Set(sandbox.editKeychain(blobs).stdout.split(separator: "\n"))
        #expect(before.count == 3, "three secrets: plain, sync, vault")
        #expect(sandbox.run(["backup", sandbox.folder + "/before.db"]).status == 0)
        let rekeyed = sandbox.run(["rekey", "--generate-key-file", sandbox.keyFile, "--force"], profile: nil)
        #expect(
            rekeyed.status == 0 && rekeyed.stdout.contains("the old key no longer opens")
                && rekeyed.stdout.contains("but still opens its backups and copies made before now"), "\(rekeyed.stderr)")
        // Every secret sealed anew under a fresh item key, but the one only its password opens.
        let after = Set(sandbox.editKeychain(blobs).stdout.split(separator: "\n"))
        let column = { (index: Int) in { (row: Substring) in String(row.split(separator: " ")[index]) } }
        #expect(after.count == 3)
        #expect(Set(before.map(column(1))).isDisjoint(with: after.map(column(1))), "every wrapped item key is new")
        #expect(Set(before.map(column(0))).intersection(after.map(column(0))).count == 1, "one secret box kept: the vault's")
        // The backup made before still opens with the old key, as the message says.
        #expect(
            sandbox.run(
                ["find", "-s", "plain", "-w"],
                environment: ["KEYCHAINCTL_KEYCHAIN": sandbox.folder + "/before.db", "KEYCHAINCTL_KEY_FILE": old]
            ).stdout == "SECRET-plain")
        #expect(!FileManager.default.fileExists(atPath: sandbox.keyFile + ".new"))
        #expect(sandbox.run(["find", "-s", "plain", "-w"]).stdout == "SECRET-plain")
        #expect(sandbox.run(["find", "-s", "sync", "--sync", "yes", "-w"]).stdout == "SECRET-sync")
        #expect(
            sandbox.run(["find", "-s", "vault", "-w", "--application-password-fd", "0"], stdin: Data("open sesame\n".utf8)).stdout
                == "SECRET-vault")
        // verify checks an application-password item up to its password.
        let verified = sandbox.run(["verify"], profile: nil)
        #expect(
            verified.status == 0 && verified.stdout.contains("behind an application password: 1"), "\(verified.stdout) \(verified.stderr)")
        #expect(sandbox.run(["find", "-s", "plain"], environment: ["KEYCHAINCTL_KEY_FILE": old]).status == 51)
        // To a passphrase and back to a key file.
        let toPassphrase = sandbox.run(
            ["rekey", "--new-passphrase-env", "NEW_PASSPHRASE", "--kdf", "interactive"], profile: nil,
            environment: ["NEW_PASSPHRASE": "SECRET new passphrase"])
        #expect(toPassphrase.status == 0, "\(toPassphrase.stderr)")
        let byPassphrase = ["KEYCHAINCTL_KEY_FILE": "", "KEYCHAINCTL_PASSPHRASE": "SECRET new passphrase"]
        #expect(sandbox.run(["find", "-s", "plain", "-w"], environment: byPassphrase).stdout == "SECRET-plain")
        #expect(sandbox.run(["find", "-s", "plain"]).status == 51)
        let back = sandbox.run(["rekey", "--new-key-file", old], profile: nil, environment: byPassphrase)
        #expect(back.status == 0, "\(back.stderr)")
        #expect(sandbox.run(["find", "-s", "plain", "-w"], environment: ["KEYCHAINCTL_KEY_FILE": old]).stdout == "SECRET-plain")
    }

    /// A backup taken before a rekey keeps the old key: restored over the keychain, the new key
    /// does not open it, and the refusal says why (a backup keeps its keychain's key of the day),
    /// not only that the key is wrong. The old key, kept, opens it.
    @Test func aRestoredBackupNamesTheKeyItKeeps() throws {
        let sandbox = try Sandbox()
        #expect(sandbox.add(["-s", "api", "-a", "a"], secret: "SECRET-api").status == 0)
        let backup = sandbox.folder + "/before.db"
        #expect(sandbox.run(["backup", backup], profile: nil).status == 0)
        let old = sandbox.folder + "/old.key"
        try FileManager.default.copyItem(atPath: sandbox.keyFile, toPath: old)
        #expect(sandbox.run(["rekey", "--generate-key-file", sandbox.keyFile, "--force"], profile: nil).status == 0)
        let restored = sandbox.run(["find", "-s", "api", "-w", "--keychain", backup])
        #expect(restored.status == 51, "\(restored.stderr)")
        #expect(restored.stderr.contains("a backup keeps the one its keychain had when the backup was taken"), "\(restored.stderr)")
        let byOldKey = sandbox.run(["find", "-s", "api", "-w", "--keychain", backup], environment: ["KEYCHAINCTL_KEY_FILE": old])
        #expect(byOldKey.stdout == "SECRET-api", "\(byOldKey.stderr)")
    }

    @Test func refusalsChangeNothing() throws {
        let sandbox = try Sandbox()
        #expect(sandbox.add(["-s", "one"], secret: "SECRET-one").status == 0)
        #expect(sandbox.run(["rekey"], profile: nil).status == 64)
        #expect(sandbox.run(["rekey", "--generate-key-file", sandbox.keyFile], profile: nil).status == 74)
        let dry = sandbox.run(["rekey", "--generate-key-file", sandbox.folder + "/dry.key", "--dry-run"], profile: nil)
        #expect(dry.status == 0 && dry.stdout.contains("would rekey 1 items"), "\(dry.stderr)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.folder + "/dry.key"))
        let wrong = sandbox.run(
            ["rekey", "--generate-key-file", sandbox.folder + "/new.key"], profile: nil,
            environment: ["KEYCHAINCTL_KEY_FILE": "", "KEYCHAINCTL_KEY": Data(repeating: 7, count: 32).base64EncodedString()])
        #expect(wrong.status == 51 && !FileManager.default.fileExists(atPath: sandbox.folder + "/new.key"))
        #expect(sandbox.run(["rekey", "--new-passphrase-prompt"], profile: nil).status == 78)
        // A damaged item stops the rekey: errSecDecode naming it, the old key still opens all.
        #expect(sandbox.add(["-s", "two"], secret: "SECRET-two").status == 0)
        let tamper = sandbox.editKeychain("db.execute('UPDATE genp SET metadata = zeroblob(80) WHERE rowid = 2')")
        #expect(tamper.status == 0, "\(tamper.stderr)")
        let damaged = sandbox.run(["rekey", "--generate-key-file", sandbox.folder + "/after.key"], profile: nil)
        #expect(damaged.status == 93 && damaged.stderr.contains("is damaged"), "\(damaged.status) \(damaged.stderr)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.folder + "/after.key"))
        #expect(!FileManager.default.fileExists(atPath: sandbox.folder + "/after.key.new"))
        #expect(sandbox.run(["find", "-s", "one", "-w"]).stdout == "SECRET-one")
    }

    /// A rekey that died between its commit and its key file's rename: the old key's refusal names
    /// PATH.new, which opens the keychain.
    @Test func interruptedRenameIsNamed() throws {
        let sandbox = try Sandbox()
        #expect(sandbox.add(["-s", "one"], secret: "SECRET-one").status == 0)
        let staged = sandbox.keyFile + ".new"
        #expect(sandbox.run(["init", "--generate-key-file", staged, "--keychain", sandbox.folder + "/other.db"], profile: nil).status == 0)
        #expect(sandbox.run(["rekey", "--new-key-file", staged], profile: nil).status == 0)
        let stale = sandbox.run(["find", "-s", "one"])
        #expect(stale.status == 51 && stale.stderr.contains(staged + " exists"), "\(stale.stderr)")
        #expect(sandbox.run(["find", "-s", "one", "-w"], environment: ["KEYCHAINCTL_KEY_FILE": staged]).stdout == "SECRET-one")
    }

    /// `rekey --generate-key-file KEY --force` killed at each step that matters: before the commit
    /// the old key opens every item (KEY.new, once staged, opens nothing); between the commit and the
    /// rename KEY.new opens every item, as the help says; after the rename the new key at KEY does.
    /// The rename of the key file comes only after the commit is on disk (a power cut between them
    /// would leave a keychain whose only key is gone).
    @Test(.enabled(if: CrashCheck.canWatch, "machine: root"))
    func killedRekeysLeaveOneKeyOpeningEverything() throws {
        let sandbox = try Sandbox()
        let total = 300
        let group = "SKMME9E2Y8.com.example.app"
        try sandbox.fill(count: total, group: group)
        let oldKey = try Data(contentsOf: URL(fileURLWithPath: sandbox.keyFile))
        let staged = sandbox.keyFile + ".new"
        /// What each key file opens: "KEY old|new: STATUS N/whole", and KEY.new's, or "none".
        func opens(_ path: String) -> String {
            guard let bytes = FileManager.default.contents(atPath: path) else { return "none" }
            let found = sandbox.run(
                ["find", "-g", group, "--limit", "all", "--return", "data,attributes", "--format", "json"],
                environment: ["KEYCHAINCTL_KEY_FILE": path])
            let items = (try? found.json() as? [[String: Any]]) ?? []
            let whole = items.allSatisfy { item in
                let account = (item["acct"] as? String ?? "").replacingOccurrences(of: "acct-", with: "")
                return (item["v_Data"] as? String).flatMap { Data(base64Encoded: $0) } == Data("secret-\(account)".utf8)
            }
            return
                "\(bytes == oldKey ? "old" : "new") key: status \(found.status) signal \(found.signal.map(String.init) ?? "none"), \(items.count) items\(whole ? "" : " NOT whole")"
        }
        let check = CrashCheck(
            sandbox: sandbox, arguments: ["rekey", "--generate-key-file", sandbox.keyFile, "--force"],
            state: { "KEY \(opens(sandbox.keyFile)); KEY.new \(opens(staged))" },
            verify: { sandbox in
                let key = FileManager.default.fileExists(atPath: staged) ? staged : sandbox.keyFile
                let result = sandbox.run(["verify"], profile: nil, environment: ["KEYCHAINCTL_KEY_FILE": key])
                return result.status == 0 ? 0 : sandbox.run(["verify"], profile: nil).status
            })
        let opening = "status 0 signal none, \(total) items"
        let (trace, old, new) = try check.run { moment, trace, old, new in
            let renamed = trace.events.first { $0.isRenameOrUnlink && $0.target == "\(staged) -> \(sandbox.keyFile)" }?.index ?? 0
            let linked = trace.events.first { $0.call == "linkat" && $0.target.hasSuffix(" -> \(staged)") }?.index ?? 0
            if moment <= linked { return old }
            if moment <= trace.commit { return "KEY old key: \(opening); KEY.new new key: status 51 signal none, 0 items" }
            if moment <= renamed { return "KEY old key: status 51 signal none, 0 items; KEY.new new key: \(opening)" }
            return new
        }
        #expect(old == "KEY old key: \(opening); KEY.new none")
        #expect(new == "KEY new key: \(opening); KEY.new none")
        let rename = trace.events.first { $0.isRenameOrUnlink && $0.target == "\(staged) -> \(sandbox.keyFile)" }
        #expect(rename != nil && trace.moments.contains(rename?.index ?? 0), "the rename is a moment:\n\(trace)")
    }
}
