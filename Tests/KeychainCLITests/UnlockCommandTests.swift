import Foundation
import KeychainCore
import KeychainPlatform
import KeychainTestSupport
import Testing

/// `unlock` and `lock`: a passphrase keychain's key cached in the kernel keyring, used by later
/// calls with no credential of their own, and only while it opens the keychain.
@Suite struct UnlockCommandTests {
    /// The line of /proc/keys describing the key `unlock --format json` reported caching.
    static func procKeysLine(_ unlocked: Sandbox.Run) -> String? {
        // Read to its end: String(contentsOfFile:) takes the first page of a /proc file only, and
        // the keys of the suites running beside this one fill more than a page.
        guard let object = try? unlocked.json() as? [String: Any], let serial = object["keyId"] as? Int,
            let file = FileHandle(forReadingAtPath: "/proc/keys")
        else { return nil }
        let keys = String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
        let hex = String(serial, radix: 16)
        let prefix = String(repeating: "0", count: max(0, 8 - hex.count)) + hex + " "
        return keys.split(separator: "\n").first { $0.hasPrefix(prefix) }.map(String.init)
    }

    @Test func withoutACredentialAPassphraseKeychainIsLockedToTheCall() throws {
        let (sandbox, bare, _) = try Fixtures.passphraseKeychain()
        let locked = sandbox.run(["find", "-s", "api", "-w"], environment: bare)
        #expect(locked.status == 36, "\(locked.stderr)")
        #expect(locked.stderr.contains("keychainctl unlock"))
    }

    @Test(.enabled(if: TestMachine.hasKeyring, "machine: keyring")) func lockedWithoutCredentialThenUnlockedThenLockedAgain() throws {
        let (sandbox, bare, withPassphrase) = try Fixtures.passphraseKeychain()
        #expect(sandbox.run(["find", "-s", "api", "-w"], environment: bare).status == 36)
        let unlocked = sandbox.run(["unlock", "--timeout", "5m"], profile: nil, environment: withPassphrase)
        #expect(unlocked.status == 0, "\(unlocked.stderr)")
        #expect(unlocked.stderr.contains("key cached in the") && !unlocked.stderr.contains(Fixtures.passphrase))
        let listed = sandbox.run(["unlock", "--timeout", "5m", "--format", "json"], profile: nil, environment: withPassphrase)
        let found = sandbox.run(["find", "-s", "api", "-w"], environment: bare)
        #expect(found.status == 0 && found.stdout == "SECRET-cached", "\(found.stderr)")
        // A write works too, and so does a command that only mentions the keychain.
        #expect(sandbox.run(["add", "-s", "api", "-a", "two"], stdin: Data("SECRET-two".utf8), environment: bare).status == 0)
        #expect(sandbox.run(["groups"], environment: bare).stdout.contains("device: unlocked"))
        let status = sandbox.run(["unlock", "--status"], profile: nil, environment: bare)
        #expect(status.status == 0 && status.stdout.contains("until"), "\(status.stderr)")
        // Possessor-only permissions: other processes of the user cannot read it.
        #expect(Self.procKeysLine(listed)?.contains(" 3f010000 ") == true, "\(listed.stdout)")
        #expect(sandbox.run(["lock"], profile: nil, environment: bare).status == 0)
        #expect(sandbox.run(["find", "-s", "api", "-w"], environment: bare).status == 36)
        #expect(sandbox.run(["unlock", "--status"], profile: nil, environment: bare).status == 36)
        let again = sandbox.run(["lock"], profile: nil, environment: bare)
        #expect(again.status == 0 && again.stderr.contains("no key is cached for"))
    }

    @Test(.enabled(if: TestMachine.hasKeyring, "machine: keyring")) func wrongPassphraseCachesNothing() throws {
        let (sandbox, bare, _) = try Fixtures.passphraseKeychain()
        let wrong = sandbox.run(["unlock"], profile: nil, environment: ["KEYCHAINCTL_KEY_FILE": "", "KEYCHAINCTL_PASSPHRASE": "wrong"])
        #expect(wrong.status == 51)
        #expect(sandbox.run(["unlock", "--status"], profile: nil, environment: bare).status == 36)
    }

    /// Where there is no kernel keyring (here: its calls denied), --to-key-file writes the key a
    /// passphrase opens to a new 0600 file that later calls read through KEYCHAINCTL_KEY_FILE;
    /// a wrong passphrase writes nothing, an existing file is never overwritten.
    @Test func theKeyGoesToAFileWhereThereIsNoKeyring() throws {
        let (sandbox, _, withPassphrase) = try Fixtures.passphraseKeychain()
        let file = sandbox.folder + "/job/keychain.key"
        let denied = sandbox.run(
            ["EPERM", Sandbox.binary, "unlock"], profile: nil, environment: withPassphrase, executable: Sandbox.injectFault)
        #expect(denied.status == 78, "\(denied.stderr)")
        let wrong = sandbox.run(
            ["unlock", "--to-key-file", file], profile: nil, environment: ["KEYCHAINCTL_KEY_FILE": "", "KEYCHAINCTL_PASSPHRASE": "wrong"])
        #expect(wrong.status == 51 && !FileManager.default.fileExists(atPath: file))
        let written = sandbox.run(
            ["EPERM", Sandbox.binary, "unlock", "--to-key-file", file], profile: nil, environment: withPassphrase,
            executable: Sandbox.injectFault)
        #expect(written.status == 0 && written.stderr.contains("key written to \(file)"), "\(written.stderr)")
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let read = sandbox.run(
            ["EPERM", Sandbox.binary, "find", "-s", "api", "-w"], environment: ["KEYCHAINCTL_KEY_FILE": file],
            executable: Sandbox.injectFault)
        #expect(read.stdout == "SECRET-cached", "\(read.stderr)")
        #expect(sandbox.run(["unlock", "--to-key-file", file], profile: nil, environment: withPassphrase).status == 78)
        #expect(sandbox.run(["unlock", "--to-key-file", file, "--timeout", "1h"], profile: nil, environment: withPassphrase).status == 64)
    }

    /// A key unlocked into a file is locked as a cached key is: the message's advice followed,
    /// `lock` with KEYCHAINCTL_KEY_FILE naming it removes it, and so does `exec --lock` before its
    /// command starts. A key file `unlock` did not write (the keychain's own) is never removed:
    /// `exec --lock` says that it removed nothing.
    @Test func aKeyUnlockedIntoAFileIsLockedByRemovingIt() throws {
        let (sandbox, _, withPassphrase) = try Fixtures.passphraseKeychain()
        let file = sandbox.folder + "/job/keychain.key"
        let unlocked = sandbox.run(["unlock", "--to-key-file", file], profile: nil, environment: withPassphrase)
        #expect(
            unlocked.stderr.contains("with KEYCHAINCTL_KEY_FILE naming it, 'keychainctl lock' and exec --lock remove it"),
            "\(unlocked.stderr)")
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.hasSuffix("\n# written by 'keychainctl unlock --to-key-file': 'keychainctl lock' removes it\n"), "\(text)")
        let locked = sandbox.run(["lock"], profile: nil, environment: ["KEYCHAINCTL_KEY_FILE": file])
        #expect(locked.status == 0 && locked.stderr.contains("removed the key file \(file)"), "\(locked.stderr)")
        #expect(!FileManager.default.fileExists(atPath: file))
        #expect(sandbox.run(["find", "-s", "api", "-w"], environment: ["KEYCHAINCTL_KEY_FILE": file]).status == 78)

        #expect(sandbox.run(["unlock", "--to-key-file", file], profile: nil, environment: withPassphrase).status == 0)
        let app = ["--profile", Sandbox.profiles + "/app.plist"]
        let exec = sandbox.run(
            ["exec"] + app + ["--lock", "--env", "T=service=api", "--", "sh", "-c", "test -e \"$0\" && echo present || echo gone", file],
            profile: nil, environment: ["KEYCHAINCTL_KEY_FILE": file])
        #expect(exec.stdout == "gone\n" && exec.stderr.contains("removed the key file \(file)"), "\(exec.stdout) \(exec.stderr)")
        #expect(!FileManager.default.fileExists(atPath: file))

        // Only the exact line marks a file: a key followed by any other line is no key file (78),
        // and lock leaves it where it is.
        for tail in [
            "# written by 'keychainctl unlock --to-key-file'\n",
            "# written by 'keychainctl unlock --to-key-file': 'keychainctl lock' removes it\nx\n",
        ] {
            #expect(sandbox.run(["unlock", "--to-key-file", file], profile: nil, environment: withPassphrase).status == 0)
            let key = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")[0]
            try FileManager.default.removeItem(atPath: file)
            try (key + "\n" + tail).write(toFile: file, atomically: true, encoding: .utf8)
            chmod(file, 0o600)
            #expect(sandbox.run(["find", "-s", "api", "-w"], environment: ["KEYCHAINCTL_KEY_FILE": file]).status == 78)
            _ = sandbox.run(["lock"], profile: nil, environment: ["KEYCHAINCTL_KEY_FILE": file])
            #expect(FileManager.default.fileExists(atPath: file), "\(tail)")
            try? FileManager.default.removeItem(atPath: file)
        }
        let kept = sandbox.run(
            ["exec"] + app + ["--lock", "--env", "T=service=api", "--", "true"], profile: nil, environment: withPassphrase)
        #expect(kept.stderr.contains("--lock removed nothing: the key came from the environment or a passphrase"), "\(kept.stderr)")
    }

    /// Explicit sources come before the cache, so a stale cache never shadows them; --no-cache and
    /// KEYCHAINCTL_NO_CACHE skip it; the cache of one keychain opens no other.
    @Test(.enabled(if: TestMachine.hasKeyring, "machine: keyring")) func explicitSourcesWinAndTheCacheServesOneKeychain() throws {
        let (sandbox, bare, withPassphrase) = try Fixtures.passphraseKeychain()
        #expect(sandbox.run(["unlock"], profile: nil, environment: withPassphrase).status == 0)
        defer { sandbox.run(["lock"], profile: nil, environment: bare) }
        let wrongKey = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        #expect(sandbox.run(["find", "-s", "api"], environment: ["KEYCHAINCTL_KEY_FILE": "", "KEYCHAINCTL_KEY": wrongKey]).status == 51)
        #expect(sandbox.run(["find", "-s", "api", "--no-cache"], environment: bare).status == 36)
        #expect(sandbox.run(["find", "-s", "api"], environment: ["KEYCHAINCTL_KEY_FILE": "", "KEYCHAINCTL_NO_CACHE": "1"]).status == 36)
        // A wrong passphrase in the environment does not matter while the cache opens the file.
        #expect(
            sandbox.run(["find", "-s", "api"], environment: ["KEYCHAINCTL_KEY_FILE": "", "KEYCHAINCTL_PASSPHRASE": "wrong"]).status == 0)
        let other = try Fixtures.passphraseKeychain()
        #expect(other.sandbox.run(["find", "-s", "api"], environment: other.bare).status == 36)
    }

    /// A key-file keychain can be unlocked too, so later steps need no credential in their environment.
    @Test(.enabled(if: TestMachine.hasKeyring, "machine: keyring")) func keyFileKeychainUnlocks() throws {
        let sandbox = try Sandbox()
        sandbox.add(["-s", "api"], secret: "SECRET-keyfile")
        let unlocked = sandbox.run(["unlock", "--share-uid", "--format", "json"], profile: nil)
        #expect(unlocked.status == 0)
        defer { sandbox.run(["lock"], profile: nil) }
        #expect(Self.procKeysLine(unlocked)?.contains(" 3f0b0000 ") == true, "\(unlocked.stdout)")
        let found = sandbox.run(["find", "-s", "api", "-w"], environment: ["KEYCHAINCTL_KEY_FILE": ""])
        #expect(found.status == 0 && found.stdout == "SECRET-keyfile", "\(found.stderr)")
    }

    /// Runs `script` (with `$0` the binary) in a session keyring of its own, where the key it
    /// caches is out of reach of the other suites' `lock` sweeps; its stdout, or nil on failure.
    static func inOwnSession(_ sandbox: Sandbox, _ script: String, environment: [String: String]) -> String? {
        let run = sandbox.run(
            ["SESSION", "/bin/sh", "-c", "set -u\n" + script, Sandbox.binary], profile: nil,
            environment: environment.merging(["KEYCHAINCTL_PROFILE": Sandbox.profiles + "/app.plist"]) { $1 }, timeout: 60,
            executable: Sandbox.injectFault)
        #expect(run.status == 0, "\(run.status): \(run.stdout) \(run.stderr)")
        return run.status == 0 ? run.stdout : nil
    }

    /// The key is gone once its timeout has passed, and not before: the test waits for the
    /// kernel to forget it (polling with a deadline), then checks how long that took.
    @Test(.enabled(if: TestMachine.hasKeyring, "machine: keyring")) func absoluteTimeoutExpires() throws {
        let (sandbox, _, withPassphrase) = try Fixtures.passphraseKeychain()
        let script = """
            start=$(date +%s%N)
            "$0" unlock --keyring session --timeout 5s >/dev/null 2>&1 || exit 90
            unset KEYCHAINCTL_PASSPHRASE
            "$0" find -s api >/dev/null 2>&1 || exit 91
            while "$0" find -s api >/dev/null 2>&1; do
                [ $(( $(date +%s%N) - start )) -lt 10000000000 ] || exit 92
                sleep 0.1
            done
            echo $(( ($(date +%s%N) - start) / 1000000 ))
            """
        let elapsed = Self.inOwnSession(sandbox, script, environment: withPassphrase).flatMap { Int($0.trimmingCharacters(in: .newlines)) }
        // The kernel counts key timeouts in whole seconds of its clock: a 5 s timeout ends between
        // 4 and 5 s after it was set. The unlock and the first find have those 4 s, which a
        // loaded machine's debug binary needs (a 2 s key gave them 1).
        #expect((elapsed ?? 0) >= 4_000, "the key left after \(elapsed ?? -1) ms of a 5 s timeout")
    }

    /// --idle is re-armed by each use, and the key is gone once unused for longer. Four uses 2 s
    /// apart span more than the 5 s idle time, so only re-arming keeps the key; the spacing is what
    /// is under test, and each use has 3 s of slack on a loaded machine. The expiry of that key is then watched in /proc/keys, which (unlike a use)
    /// re-arms nothing.
    @Test(.enabled(if: TestMachine.hasKeyring, "machine: keyring")) func idleTimeoutSlides() throws {
        let (sandbox, _, withPassphrase) = try Fixtures.passphraseKeychain()
        let script = """
            unlocked=$("$0" unlock --keyring session --timeout 1h --idle 5s --format json 2>/dev/null) || exit 90
            # This key alone: /proc/keys also lists what other tests of the same user cache meanwhile.
            id=$(printf '%08x' "$(printf '%s' "$unlocked" | sed -n 's/.*"keyId":\\([0-9]*\\).*/\\1/p')")
            alive() { grep "^$id " /proc/keys | grep -qv expd; }
            unset KEYCHAINCTL_PASSPHRASE
            for use in 1 2 3 4; do sleep 2; "$0" find -s api >/dev/null 2>&1 || exit 8$use; done
            last=$(date +%s%N)
            while alive; do
                [ $(( $(date +%s%N) - last )) -lt 10000000000 ] || exit 94
                sleep 0.1
            done
            "$0" find -s api >/dev/null 2>&1 && exit 95
            echo $(( ($(date +%s%N) - last) / 1000000 ))
            """
        let idle = Self.inOwnSession(sandbox, script, environment: withPassphrase).flatMap { Int($0.trimmingCharacters(in: .newlines)) }
        // In whole seconds of the kernel's clock, a 5 s idle time ends 4 to 5 s after the use that
        // re-armed it (which came a little before `last`).
        #expect((idle ?? 0) >= 3_800, "the idle key left \(idle ?? -1) ms after its last use (idle 5 s)")
    }

    @Test func badOptionsAreRefused() throws {
        let (sandbox, _, withPassphrase) = try Fixtures.passphraseKeychain()
        for duration in ["", "1x", "m", "1h30", "400d", "99999999999"] {
            let run = sandbox.run(["unlock", "--timeout", duration], profile: nil, environment: withPassphrase)
            #expect(run.status == 206, "'\(duration)': \(run.status) \(run.stderr)")
        }
        #expect(sandbox.run(["unlock", "--timeout", "1m", "--idle", "2m"], profile: nil, environment: withPassphrase).status == 206)
        #expect(sandbox.run(["unlock", "--status", "--timeout", "1m"], profile: nil, environment: withPassphrase).status == 64)
        #expect(sandbox.run(["unlock", "--keyring", "kernel"], profile: nil, environment: withPassphrase).status == 64)
        let missing = sandbox.run(
            ["unlock"], profile: nil, environment: withPassphrase.merging(["KEYCHAINCTL_KEYCHAIN": sandbox.folder + "/none.db"]) { $1 })
        #expect(missing.status == 53)
    }

    /// Without a session keyring of its own (no login session, as here), `--keyring session` would
    /// cache the key in a keyring that dies with the process: refused, exit 78.
    @Test(.enabled(if: TestMachine.hasKeyring && (try? KernelKeyring.hasOwnSessionKeyring()) == false, "machine: keyring no-login-session"))
    func sessionKeyringThatIsNotThereIsRefused() throws {
        let (sandbox, bare, withPassphrase) = try Fixtures.passphraseKeychain()
        let run = sandbox.run(["unlock", "--keyring", "session"], profile: nil, environment: withPassphrase)
        #expect(run.status == 78 && run.stderr.contains("no session keyring"), "\(run.stderr)")
        #expect(sandbox.run(["unlock", "--status"], profile: nil, environment: bare).status == 36)
    }

    /// Where a seccomp filter blocks the keyring (Docker's default profile): `unlock` says so
    /// (exit 78); every other command falls through to its next source without a word.
    @Test func blockedKeyringIsClearForUnlockAndSilentForTheRest() throws {
        let (sandbox, _, withPassphrase) = try Fixtures.passphraseKeychain()
        for errno in ["EPERM", "ENOSYS"] {
            let unlock = sandbox.run(
                [errno, Sandbox.binary, "unlock"], profile: nil, environment: withPassphrase, executable: Sandbox.injectFault)
            #expect(unlock.status == 78, "\(errno): \(unlock.stderr)")
            #expect(unlock.stderr.contains("kernel keyring is not available"))
            let find = sandbox.run(
                [errno, Sandbox.binary, "find", "-s", "api", "-w", "--profile", Sandbox.profiles + "/app.plist"], profile: nil,
                environment: withPassphrase, executable: Sandbox.injectFault)
            #expect(find.status == 0 && find.stdout == "SECRET-cached" && find.stderr.isEmpty, "\(errno): \(find.stderr)")
            let lock = sandbox.run(
                [errno, Sandbox.binary, "lock"], profile: nil, environment: withPassphrase, executable: Sandbox.injectFault)
            #expect(lock.status == 0, "\(errno): \(lock.stderr)")
        }
    }

    /// `lock --all` removes every keychain's cached key. Run in a session keyring of its own, and
    /// swept there alone (`--keyring session`), so no other test's cached key (nor a developer's)
    /// is touched.
    @Test(.enabled(if: TestMachine.hasKeyring, "machine: keyring")) func lockAllRemovesEveryCachedKey() throws {
        let first = try Fixtures.passphraseKeychain()
        let second = try Fixtures.passphraseKeychain()
        let script = """
            set -u
            KEYCHAINCTL_KEYCHAIN="$1" "$0" unlock 2>&1 | grep -q "session keyring" || exit 90
            KEYCHAINCTL_KEYCHAIN="$2" "$0" unlock 2>/dev/null || exit 90
            unset KEYCHAINCTL_PASSPHRASE
            KEYCHAINCTL_KEYCHAIN="$1" "$0" unlock --status >/dev/null || exit 91
            "$0" lock --all --keyring session 2>&1
            KEYCHAINCTL_KEYCHAIN="$1" "$0" unlock --status 2>/dev/null && exit 92
            KEYCHAINCTL_KEYCHAIN="$2" "$0" unlock --status 2>/dev/null && exit 93
            exit 0
            """
        let run = first.sandbox.run(
            ["SESSION", "/bin/sh", "-c", script, Sandbox.binary, first.sandbox.keychain, second.sandbox.keychain], profile: nil,
            environment: first.withPassphrase, executable: Sandbox.injectFault)
        #expect(run.status == 0, "\(run.status): \(run.stdout) \(run.stderr)")
        #expect(run.stdout.contains("2 cached keys removed"), "\(run.stdout)")
        #expect(first.sandbox.run(["lock", "--keyring", "user"], profile: nil).status == 64)
    }

    /// CI.md's concurrent jobs: one job's `lock --all` (or an earlier step's `exec --lock`) removes
    /// the key another cached, whose next command used to get the same "no key available" as a
    /// job never unlocked. The cache notes each removal (no key material: when, until when, by
    /// what), the message says it, and unlocking again, as it advises, clears the note.
    @Test(.enabled(if: TestMachine.hasKeyring, "machine: keyring")) func aRemovedKeySaysWhenAndByWhat() throws {
        let sandbox = try Sandbox()
        sandbox.add(["-s", "api"], secret: "SECRET-removed")
        let script = """
            k="$KEYCHAINCTL_KEY_FILE"; export KEYCHAINCTL_KEY_FILE=
            KEYCHAINCTL_KEY_FILE="$k" "$0" unlock --keyring session --timeout 30m > /dev/null || exit 90
            "$0" find -s api -w > /dev/null || exit 91
            "$0" lock --all --keyring session > /dev/null 2>&1
            "$0" find -s api -w 2> all.err; echo "after lock --all: $?"
            KEYCHAINCTL_KEY_FILE="$k" "$0" unlock --keyring session > /dev/null || exit 92
            "$0" exec --lock --env T=service=api -- true 2> /dev/null || exit 93
            "$0" find -s api -w 2> exec.err; echo "after exec --lock: $?"
            KEYCHAINCTL_KEY_FILE="$k" "$0" unlock --keyring session > /dev/null || exit 94
            "$0" find -s api -w; echo " after unlock: $?"
            "$0" lock > /dev/null
            cat all.err exec.err
            """
        let out = Self.inOwnSession(sandbox, "cd \"$HOME\"\n" + script, environment: [:]) ?? ""
        #expect(out.contains("after lock --all: 36") && out.contains("after exec --lock: 36"), "\(out)")
        #expect(out.contains("SECRET-removed after unlock: 0"), "unlocking again serves the key: \(out)")
        #expect(out.contains("was removed at ") && out.contains("by 'keychainctl lock --all'"), "\(out)")
        #expect(out.contains("by 'keychainctl exec --lock'") && out.contains("(until "), "\(out)")
        #expect(out.contains("unlock it again"), "\(out)")
    }

    /// A session keyring another user owns (su without a login, sudo keeping the caller's session)
    /// is not this process's own: `unlock` caches nothing there (every process of that user would
    /// read the key) and says why (exit 78). Needs root, to hand the keyring to another uid.
    @Test(.enabled(if: TestMachine.hasKeyring && TestMachine.isRoot, "machine: keyring root")) func aSessionKeyringOfAnotherUserIsNotOurs()
        throws
    {
        let (sandbox, bare, withPassphrase) = try Fixtures.passphraseKeychain()
        let script = """
            import ctypes, os, platform, sys
            libc = ctypes.CDLL(None, use_errno=True)
            number = 219 if platform.machine() == "aarch64" else 250
            ring = libc.syscall(number, 1, ("kc-foreign-%d" % os.getpid()).encode())
            if ring < 0 or libc.syscall(number, 4, ring, 1500, ctypes.c_int(-1)) != 0:
                sys.exit("cannot hand the session keyring to uid 1500: errno %d" % ctypes.get_errno())
            os.execv(sys.argv[1], [sys.argv[1], "unlock"])
            """
        let run = sandbox.run(["-c", script, Sandbox.binary], profile: nil, environment: withPassphrase, executable: "/usr/bin/python3")
        defer { sandbox.run(["lock"], profile: nil, environment: bare) }
        #expect(run.status == 78, "\(run.stderr)")
        #expect(run.stderr.contains("belongs to uid 1500"), "\(run.stderr)")
    }

    /// `lock` when the keychain file is gone (a cleanup step ran first) still removes the key
    /// cached for that path, and no other: another keychain's key (a concurrent job of the same
    /// runner user) stays, also when the path never held a keychain (a job without a credential).
    @Test(.enabled(if: TestMachine.hasKeyring, "machine: keyring")) func lockWithoutTheFileRemovesOnlyItsOwnKey() throws {
        let (sandbox, _, withPassphrase) = try Fixtures.passphraseKeychain()
        let script = """
            set -u
            other="$KEYCHAINCTL_KEYCHAIN.other.db"
            KEYCHAINCTL_KEYCHAIN="$other" "$0" init --kdf interactive >/dev/null 2>&1 || exit 89
            KEYCHAINCTL_KEYCHAIN="$other" "$0" unlock >/dev/null 2>&1 || exit 90
            "$0" unlock >/dev/null 2>&1 || exit 90
            unset KEYCHAINCTL_PASSPHRASE
            cp "$KEYCHAINCTL_KEYCHAIN" "$KEYCHAINCTL_KEYCHAIN.saved"
            rm "$KEYCHAINCTL_KEYCHAIN"
            "$0" lock || exit 91
            KEYCHAINCTL_KEYCHAIN="$other.never" "$0" lock || exit 93
            mv "$KEYCHAINCTL_KEYCHAIN.saved" "$KEYCHAINCTL_KEYCHAIN"
            "$0" unlock --status 2>/dev/null && exit 92
            KEYCHAINCTL_KEYCHAIN="$other" "$0" unlock --status > /dev/null || exit 94
            exit 0
            """
        let run = sandbox.run(
            ["SESSION", "/bin/sh", "-c", script, Sandbox.binary], profile: nil, environment: withPassphrase,
            executable: Sandbox.injectFault)
        #expect(run.status == 0, "\(run.status): \(run.stderr)")
        #expect(run.stderr.contains("locked \(sandbox.keychain): the key 'keychainctl unlock' cached is gone"), "\(run.stderr)")
        #expect(run.stderr.contains("no keychain at \(sandbox.keychain).other.db.never and no key cached for it: nothing to lock"))
        #expect(!run.stderr.contains("warning"), "\(run.stderr)")
    }

    /// Two jobs of one user with copies of one keychain (one identity) cache and lock their keys
    /// apart; a keychain unlocked through a link whose target is then removed is still locked by
    /// that path, not reported as "nothing to lock" with its key left behind. Its final sweep is
    /// of its own session keyring: the user keyring holds the keys of the suites running beside it.
    @Test(.enabled(if: TestMachine.hasKeyring, "machine: keyring")) func copiesAreLockedApartAndALinkLeadingNowhereStillLocks() throws {
        let (sandbox, _, withPassphrase) = try Fixtures.passphraseKeychain()
        let script = """
            set -u
            dir=$(dirname "$KEYCHAINCTL_KEYCHAIN")
            mkdir -p "$dir/job-a" "$dir/job-b" "$dir/real" && ln -s real "$dir/lnk" || exit 88
            for copy in job-a job-b real; do cp "$KEYCHAINCTL_KEYCHAIN" "$dir/$copy/k.db"; done
            for copy in job-a job-b lnk; do KEYCHAINCTL_KEYCHAIN="$dir/$copy/k.db" "$0" unlock >/dev/null 2>&1 || exit 90; done
            unset KEYCHAINCTL_PASSPHRASE
            KEYCHAINCTL_KEYCHAIN="$dir/job-a/k.db" "$0" lock || exit 91
            KEYCHAINCTL_KEYCHAIN="$dir/job-a/k.db" "$0" unlock --status >/dev/null 2>&1 && exit 92
            KEYCHAINCTL_KEYCHAIN="$dir/job-b/k.db" "$0" unlock --status >/dev/null 2>&1 || exit 93
            rm -rf "$dir/real"
            KEYCHAINCTL_KEYCHAIN="$dir/lnk/k.db" "$0" lock || exit 94
            "$0" lock --all --keyring session || exit 95
            """
        let run = sandbox.run(
            ["SESSION", "/bin/sh", "-c", script, Sandbox.binary], profile: nil, environment: withPassphrase,
            executable: Sandbox.injectFault)
        #expect(run.status == 0, "\(run.status): \(run.stderr)")
        let folder = URL(fileURLWithPath: sandbox.keychain).deletingLastPathComponent().path
        #expect(run.stderr.contains("locked \(folder)/job-a/k.db: the key 'keychainctl unlock' cached is gone"), "\(run.stderr)")
        #expect(!run.stderr.contains("nothing to lock"), "the link's key was found by the path as given: \(run.stderr)")
        #expect(run.stderr.contains("locked: 1 cached key removed"), "job-b's key alone was left: \(run.stderr)")
    }
}
