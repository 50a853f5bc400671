import Foundation
import KeychainTestSupport
import Testing

@testable import KeychainCLI

/// The attack of the turn-4 review, run as it was run: a command started by `exec` takes over the
/// shell that ran `keychainctl unlock` (same user, not under any filter) with ptrace and makes it
/// read the cached key out of its session keyring. `Fixtures/Attacks/steal-cached-key.c` is that
/// command, compiled here; a plain child of the shell shows the attack works on this machine, and
/// every `exec` form shows it fails there.
@Suite struct ExecConfinementTests {
    /// The attack is x86-64 code, compiled with the C compiler; the shell keeps the key in a
    /// session keyring of its own.
    static let canAttack: Bool = {
        var name = utsname()
        uname(&name)
        let machine = withUnsafeBytes(of: &name.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return machine == "x86_64" && FileManager.default.isExecutableFile(atPath: "/usr/bin/cc")
            && TestMachine.hasKeyring
    }()

    /// The users the attack runs as: this one, and `nobody` (no capabilities at all) when root.
    static let users: [UInt32] = getuid() == 0 ? [0, 65534] : [getuid()]

    /// The attack as a step's command: labelled, the step shell's pid from `shell.pid`, the key's id
    /// from what `unlock` reported (a file read, not a keyring call; /proc/keys also lists the keys
    /// other tests of the same user cache meanwhile). Prints what it reached; with a key in hand it
    /// opens the keychain with it and prints the item's secret.
    static let attack = """
        shell=$(cat shell.pid)
        id=$(sed -n 's/.*"keyId":\\([0-9]*\\).*/\\1/p' unlocked.json)
        rm -f key.bin
        ./steal "$shell" "${id:-0}" > key.bin 2>/dev/null; steal=$?
        mem=refused; (exec 3<> "/proc/$shell/mem") 2> /dev/null && mem=open
        environ=refused; head -c 1 "/proc/$shell/environ" > /dev/null 2>&1 && environ=open
        echo "$1: steal=$steal mem=$mem got=$(wc -c < key.bin) environ=$environ"
        if [ "$steal" = 0 ]; then
            KEYCHAINCTL_KEY=$(dd if=key.bin bs=1 skip=4 count=32 2>/dev/null | base64 -w0) ./keychainctl get other ci; echo
        fi
        """

    /// The step: a keychain made and unlocked by the shell, then the attack from a plain child and
    /// from every form of `exec`.
    static let step = """
        set -u
        cd "$1"
        export HOME="$1" KEYCHAINCTL_KEYCHAIN="$1/k.db"
        printf 'correct horse battery' | ./keychainctl init --kdf interactive --passphrase-fd 0 > /dev/null 2>&1 || exit 80
        printf OTHER-SECRET | KEYCHAINCTL_PASSPHRASE='correct horse battery' ./keychainctl set other ci || exit 81
        printf 'correct horse battery' | ./keychainctl unlock --timeout 5m --passphrase-fd 0 --format json > unlocked.json 2> /dev/null || exit 82
        echo $$ > shell.pid
        sh attack.sh plain
        ./keychainctl exec -- sh attack.sh exec
        ./keychainctl exec --env T=service=other,account=ci -- sh attack.sh spawned
        ./keychainctl exec --allow-keyring -- sh attack.sh allow-keyring
        ./keychainctl lock > /dev/null 2>&1
        sh attack.sh after-lock
        """

    /// A folder `uid` owns holding the binary, the compiled attack and the two scripts.
    static func stage(for uid: UInt32) throws -> Sandbox {
        let sandbox = try Sandbox(initialize: false)
        let built = sandbox.run(
            ["-O1", "-o", sandbox.folder + "/steal", Sandbox.packageRoot + "/Fixtures/Attacks/steal-cached-key.c"], profile: nil,
            timeout: 60, executable: "/usr/bin/cc")
        #expect(built.status == 0, "\(built.stderr)")
        for program in [Sandbox.binary, Sandbox.injectFault] {
            let target = sandbox.folder + "/" + URL(fileURLWithPath: program).lastPathComponent
            try FileManager.default.copyItem(atPath: program, toPath: target)
        }
        try Self.attack.write(toFile: sandbox.folder + "/attack.sh", atomically: true, encoding: .utf8)
        try Self.step.write(toFile: sandbox.folder + "/step.sh", atomically: true, encoding: .utf8)
        for name in try FileManager.default.contentsOfDirectory(atPath: sandbox.folder) + [""] {
            #expect(chown(sandbox.folder + "/" + name, uid, uid) == 0)
        }
        return sandbox
    }

    /// Runs the step as `uid` in a session keyring of its own (`mode`: SESSION, or NOLANDLOCK for a
    /// kernel without Landlock, with NONAMESPACE for a system without user namespaces too).
    static func runStep(_ sandbox: Sandbox, uid: UInt32, mode: String) -> Sandbox.Run {
        let settings = mode.split(separator: " ").map(String.init)
        let helper = [sandbox.folder + "/inject-fault"] + settings + ["/bin/bash", sandbox.folder + "/step.sh", sandbox.folder]
        let user = uid == getuid() ? [] : ["setpriv", "--reuid", String(uid), "--regid", String(uid), "--clear-groups"]
        return sandbox.run(
            ["-i", "PATH=/usr/bin:/bin"] + user + helper, profile: nil, timeout: 120, executable: "/usr/bin/env")
    }

    /// The line the attack printed for `label`.
    static func line(_ run: Sandbox.Run, _ label: String) -> String {
        run.stdout.split(separator: "\n").first { $0.hasPrefix(label + ":") }.map(String.init) ?? "(none)"
    }

    /// The users for whom the attack works outside exec on this machine: every user where Yama lets
    /// a user's processes trace each other (scope 0, or no Yama), else root alone (its
    /// CAP_SYS_PTRACE passes scopes 1 and 2). Only for them does a refused attach under exec prove
    /// exec's filter: for the others Yama refuses it whether or not the filter works.
    static let discriminating: [UInt32] = {
        if ChildProcess.Isolation.sameUserPtraceOpen { return users }
        let scope = (try? String(contentsOfFile: "/proc/sys/kernel/yama/ptrace_scope", encoding: .utf8)) ?? "0"
        return users.filter { $0 == 0 && !scope.hasPrefix("3") }
    }()

    /// Who shows the attack working outside exec: the second user (`nobody` when root) where Yama
    /// lets a user's processes trace each other, else root; `nil` where no one may.
    static var controlUser: UInt32? { discriminating.last }

    /// The control: a plain child of the shell takes the key and reads every item with it. This is
    /// what exec must prevent; were it to fail here, the tests of exec would show nothing.
    @Test(.enabled(if: canAttack && controlUser != nil, "machine: keyring x86-64-cc ptrace-control"))
    func outsideExecTheAttackTakesTheKey() throws {
        let uid = try #require(Self.controlUser)
        let sandbox = try Self.stage(for: uid)
        let run = Self.runStep(sandbox, uid: uid, mode: "SESSION")
        #expect(run.status == 0, "\(run.status): \(run.stdout) \(run.stderr)")
        #expect(Self.line(run, "plain").hasPrefix("plain: steal=0 mem=open got=112"), "\(run.stdout) \(run.stderr)")
        #expect(run.stdout.contains("OTHER-SECRET"), "the attack works outside exec: \(run.stdout)")
    }

    /// Gated as the control is, and run only as the users it discriminates for: where the control
    /// cannot show the attack working, a refusal under exec proves nothing and the test skips.
    @Test(.enabled(if: canAttack && controlUser != nil, "machine: keyring x86-64-cc ptrace-control"), arguments: discriminating)
    func theCommandCannotTakeTheKeyFromTheShellThatUnlocked(uid: UInt32) throws {
        let sandbox = try Self.stage(for: uid)
        let run = Self.runStep(sandbox, uid: uid, mode: "SESSION")
        #expect(run.status == 0, "\(run.status): \(run.stdout) \(run.stderr)")
        // Landlock refuses the shell's memory too (rewriting it would do what ptrace did), and, to
        // a user other than root, its environment.
        let mem = ChildProcess.Isolation.landlock ? "refused" : "open"
        // steal=2 is PTRACE_ATTACH refused with EPERM (another errno exits 5).
        for label in ["exec", "spawned", "allow-keyring"] {
            #expect(Self.line(run, label).hasPrefix("\(label): steal=2 mem=\(mem) got=0"), "\(run.stdout) \(run.stderr)")
            if uid != 0 { #expect(Self.line(run, label).hasSuffix("environ=\(mem)"), "\(run.stdout)") }
        }
        #expect(run.stdout.components(separatedBy: "OTHER-SECRET").count <= 2, "only the plain child read it: \(run.stdout)")
        #expect(!run.stderr.contains("no Landlock"), "\(run.stderr)")
    }

    /// Without Landlock or user namespaces the seccomp filter still denies ptrace itself; what stays
    /// open (the shell's /proc files: its memory can be rewritten to do what ptrace did) is what exec
    /// warns of, once per exec. With user namespaces, a user other than root runs CMD in one of its
    /// own, which the kernel keeps from every process outside it: nothing is open, nothing warned.
    @Test(
        .enabled(if: canAttack && controlUser != nil && TestMachine.hasOwnView, "machine: keyring x86-64-cc ptrace-control own-view"),
        arguments: [false, true])
    func withoutLandlockPtraceIsDeniedAndTheRestIsWarnedAbout(namespaces: Bool) throws {
        let uid = Self.users.last ?? getuid()
        let sandbox = try Self.stage(for: uid)
        let run = Self.runStep(sandbox, uid: uid, mode: namespaces ? "NOLANDLOCK" : "NOLANDLOCK NONAMESPACE")
        #expect(run.status == 0, "\(run.status): \(run.stdout) \(run.stderr)")
        let open = !namespaces || uid == 0
        let reach = open ? "open" : "refused"
        for label in ["exec", "spawned", "allow-keyring"] {
            #expect(Self.line(run, label) == "\(label): steal=2 mem=\(reach) got=0 environ=\(reach)", "\(run.stdout) \(run.stderr)")
        }
        let warnings = run.stderr.components(separatedBy: "this kernel has no Landlock").count - 1
        #expect(warnings == (open ? 3 : 0), "one warning per exec where the shell is open: \(run.stderr)")
        if open { #expect(run.stderr.contains("kernel.yama.ptrace_scope=1"), "\(run.stderr)") }
        // The warning's other way out, followed: once locked, there is no key left to take.
        #expect(Self.line(run, "after-lock").hasPrefix("after-lock: steal=4 "), "\(run.stdout)")
        #expect(run.stdout.components(separatedBy: "OTHER-SECRET").count == 2, "only the plain child read it: \(run.stdout)")
    }
}
