import Foundation
import KeychainTestSupport
import Testing

/// `unlock` leaves a key in a keyring with its expiry and permissions, or no key at all, whichever
/// step the kernel refuses; and `lock --all` finds it in the user keyring even where the session
/// keyring does not link that keyring (a service's private session keyring, a login without
/// pam_keyinit). Each run is a synthetic user's, whose user keyring no other test (nor the
/// developer) shares, in a new anonymous session keyring of its own.
@Suite struct KeyringFailureTests {
    /// A user of its own: a uid no account has, a folder it owns with the binary and a passphrase
    /// keychain in it.
    struct SyntheticUser {
        let uid = UInt32.random(in: 200_000..<300_000)
        let sandbox: Sandbox
        var home: String { sandbox.folder + "/user" }
        var binary: String { home + "/keychainctl" }
        var environment: [String: String] {
            [
                "HOME": home, "KEYCHAINCTL_KEYCHAIN": home + "/k.db", "KEYCHAINCTL_KEY_FILE": "", "KEYCHAINCTL_PASSPHRASE": "",
                "PATH": "/usr/bin:/bin",
            ]
        }

        init() throws {
            sandbox = try Sandbox(initialize: false)
            #expect(chmod(sandbox.folder, 0o711) == 0)
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: false)
            try FileManager.default.copyItem(atPath: Sandbox.binary, toPath: binary)
            #expect(chown(home, uid, uid) == 0 && chown(binary, uid, uid) == 0 && chmod(home, 0o700) == 0)
            let made = keychainctl(["init", "--kdf", "interactive"], passphrase: true)
            #expect(made.status == 0, "\(made.stderr)")
            let added = keychainctl(["add", "-s", "api"], passphrase: true, stdin: "SECRET-user")
            #expect(added.status == 0, "\(added.stderr)")
        }

        /// `keychainctl arguments` as this user, in a session keyring of its own, with `faults`
        /// (`inject-fault` settings) applied.
        @discardableResult
        func keychainctl(_ arguments: [String], passphrase: Bool = false, faults: [String] = [], stdin: String? = nil) -> Sandbox.Run {
            var environment = environment
            if passphrase { environment["KEYCHAINCTL_PASSPHRASE"] = Fixtures.passphrase }
            return sandbox.run(
                ["uid=\(uid)", "SESSION"] + faults + [binary] + arguments, profile: nil, stdin: stdin.map { Data($0.utf8) },
                environment: environment, timeout: 60, executable: Sandbox.injectFault)
        }

        /// This user's lines of /proc/keys for keychainctl's keys (the file shows a user only the
        /// keys it may view); the expiry is the fourth column ("perm": none).
        func cachedKeys() -> [String] {
            let run = sandbox.run(
                ["uid=\(uid)", "/bin/cat", "/proc/keys"], profile: nil, environment: environment, timeout: 30,
                executable: Sandbox.injectFault)
            #expect(run.status == 0, "\(run.stderr)")
            return run.stdout.split(separator: "\n").map(String.init).filter {
                $0.contains(" keychainctl:v1:") && !$0.split(separator: " ", omittingEmptySubsequences: true)[1].contains("i")
            }
        }
    }

    /// The runner user of the report: `unlock --keyring user` in a session keyring that does not
    /// link the user keyring. It used to add the key to the user keyring, fail to give it its
    /// expiry (exit 78), and leave it there for good, where any process of the user could link and
    /// read it, and `lock --all` saw nothing. Now the key gets its expiry before any other process
    /// can reach it, later processes (each in a session of its own) use it, and `lock --all` removes it.
    @Test(.enabled(if: TestMachine.hasKeyring && TestMachine.isRoot, "machine: keyring root"))
    func aKeyCachedInAnUnlinkedUserKeyringHasItsExpiryAndIsFoundByLockAll() throws {
        let user = try SyntheticUser()
        let unlocked = user.keychainctl(["unlock", "--keyring", "user", "--timeout", "10m"], passphrase: true)
        #expect(unlocked.status == 0 && unlocked.stderr.contains("key cached in the user keyring"), "\(unlocked.stderr)")
        let cached = user.cachedKeys()
        #expect(cached.count == 1, "\(cached)")
        let expiry = cached.first?.split(separator: " ", omittingEmptySubsequences: true)[3] ?? ""
        #expect(expiry != "perm" && (expiry.hasSuffix("m") || expiry.hasSuffix("s")), "\(cached)")
        let found = user.keychainctl(["find", "-s", "api", "-w"])
        #expect(found.status == 0 && found.stdout == "SECRET-user", "\(found.status) \(found.stderr)")
        let locked = user.keychainctl(["lock", "--all"])
        #expect(locked.status == 0 && locked.stderr.contains("1 cached key"), "\(locked.stderr)")
        #expect(user.cachedKeys().isEmpty)
        #expect(user.keychainctl(["find", "-s", "api", "-w"]).status == 36)
    }

    /// Each keyring call `unlock` makes after adding the key, refused by the kernel (here by a
    /// seccomp rule at that call): exit 78 naming it, and no key left in any keyring.
    @Test(
        .enabled(if: TestMachine.hasKeyring && TestMachine.isRoot, "machine: keyring root"),
        arguments: [
            ("fail=keyctl@0=5:EACCES", ["--share-uid"], "keyctl(SETPERM)"),
            ("fail=keyctl@0=15:EACCES", [], "keyctl(SET_TIMEOUT)"),
            ("fail=keyctl@0=8:EDQUOT", [], "keyctl(LINK)"),
        ])
    func aRefusedStepLeavesNoKey(fault: String, options: [String], call: String) throws {
        let user = try SyntheticUser()
        for ring in ["user", "session"] {
            let run = user.keychainctl(["unlock", "--keyring", ring] + options, passphrase: true, faults: [fault])
            #expect(run.status == 78 && run.stderr.contains(call), "\(ring): \(run.status) \(run.stderr)")
            #expect(user.cachedKeys().isEmpty, "\(ring)")
        }
        // The control: the same command without the fault caches the key.
        #expect(user.keychainctl(["unlock", "--keyring", "user"] + options, passphrase: true).status == 0)
        #expect(user.cachedKeys().count == 1)
        #expect(user.keychainctl(["lock", "--all"]).status == 0)
    }
}
