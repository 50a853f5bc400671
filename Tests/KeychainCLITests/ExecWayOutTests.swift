import Foundation
import KeychainTestSupport
import Testing

@testable import KeychainCLI

/// The turn-5 review's ways out of `exec`, each run as the reviewer ran it and as a non-root user
/// (`nobody` when the tests run as root): the command cannot act on another process, so it makes an
/// unconfined process of the user run its code instead, through the step's own script, the
/// terminal, a later step's environment, or another `exec`'s secret file. Each test has a control
/// (the same attack without the defence, or from outside `exec`) that shows it works on this machine.
@Suite struct ExecWayOutTests {
    /// The user the attacks run as.
    static let uid: UInt32 = getuid() == 0 ? 65534 : getuid()

    /// The step's set-up, shared by every script below: a passphrase keychain with one item, the
    /// key cached by `unlock` in the step's own session keyring (as GitHub's runner or a login gives).
    static let setUp = """
        set -u
        cd "$(dirname "$0")"
        export HOME="$PWD" KEYCHAINCTL_KEYCHAIN="$PWD/k.db"
        printf 'correct horse battery' | ./keychainctl init --kdf interactive --passphrase-fd 0 > /dev/null 2>&1 || exit 80
        printf OTHER-SECRET | KEYCHAINCTL_PASSPHRASE='correct horse battery' ./keychainctl set other ci || exit 81
        printf 'correct horse battery' | ./keychainctl unlock --timeout 5m --passphrase-fd 0 2> /dev/null || exit 82

        """

    /// A folder the attacking user owns, holding the binary, the keyring helper and `files`.
    static func stage(_ files: [String: String]) throws -> Sandbox {
        let sandbox = try Sandbox(initialize: false)
        for program in [Sandbox.binary, Sandbox.injectFault] {
            let target = sandbox.folder + "/" + URL(fileURLWithPath: program).lastPathComponent
            try FileManager.default.copyItem(atPath: program, toPath: target)
        }
        for (name, text) in files { try text.write(toFile: sandbox.folder + "/" + name, atomically: true, encoding: .utf8) }
        for name in try FileManager.default.contentsOfDirectory(atPath: sandbox.folder) + [""] {
            #expect(chown(sandbox.folder + "/" + name, uid, uid) == 0)
        }
        return sandbox
    }

    /// What runs `command` as the attacking user in a session keyring of its own: the words after
    /// `/usr/bin/env -i PATH=/usr/bin:/bin`.
    static func asUser(_ sandbox: Sandbox, _ command: [String]) -> [String] {
        let user = uid == getuid() ? [] : ["setpriv", "--reuid", String(uid), "--regid", String(uid), "--clear-groups"]
        return user + [sandbox.folder + "/inject-fault", "SESSION"] + command
    }

    /// Runs `command` as the attacking user in a session keyring of its own, with a bare environment.
    static func runAsUser(_ sandbox: Sandbox, _ command: [String], timeout: Double = 120) -> Sandbox.Run {
        sandbox.run(["-i", "PATH=/usr/bin:/bin"] + asUser(sandbox, command), profile: nil, timeout: timeout, executable: "/usr/bin/env")
    }

    static func read(_ sandbox: Sandbox, _ name: String) -> String {
        (try? String(contentsOfFile: sandbox.folder + "/" + name, encoding: .utf8)) ?? ""
    }

    /// Vector 1: bash reads a script file as it runs it (so GitHub runs a step: `bash --noprofile
    /// --norc -eo pipefail FILE`); the command appends a line that the step's shell then runs with
    /// the key it cached. With `--lock` there is no key left when that line runs.
    @Test(.enabled(if: TestMachine.hasKeyring, "machine: keyring"), arguments: [false, true])
    func aLineAppendedToTheStepScriptFindsNoKeyUnderLock(lock: Bool) throws {
        let evil = "printf '\\n./keychainctl get other ci > stolen 2>&1 || true\\n' >> \"$1\"\n"
        let step =
            Self.setUp
            + "./keychainctl exec \(lock ? "--lock " : "")--env T=service=other,account=ci -- sh ./evil.sh \"$0\"\necho step continues\n"
        let sandbox = try Self.stage(["evil.sh": evil, "step.sh": step])
        let run = Self.runAsUser(sandbox, ["/bin/bash", "--noprofile", "--norc", "-eo", "pipefail", sandbox.folder + "/step.sh"])
        #expect(run.status == 0, "\(run.status): \(run.stdout) \(run.stderr)")
        #expect(run.stdout.contains("step continues"))
        let stolen = Self.read(sandbox, "stolen")
        #expect(!stolen.isEmpty, "the appended line ran")
        if lock {
            #expect(!stolen.contains("OTHER-SECRET"), "\(stolen)")
            #expect(stolen.contains("errSecInteractionNotAllowed"), "\(stolen)")
            #expect(run.stderr.contains("before starting the command (--lock)"), "\(run.stderr)")
        } else {
            // The control: without --lock the appended line reads the item with the cached key.
            #expect(stolen.contains("OTHER-SECRET"), "\(stolen)")
        }
    }

    /// `--writable DIR`: the command may change files beneath DIR only, so the line it appends to
    /// the step's script and the hook it appends to `$GITHUB_ENV` are refused, while its own output
    /// folder and /dev/null work. (The control is the test above without --lock.)
    @Test(.enabled(if: TestMachine.hasKeyring && ChildProcess.Isolation.landlock, "machine: keyring landlock"))
    func aWritableFolderKeepsTheCommandOutOfTheStepScriptAndGitHubEnv() throws {
        let evil = """
            echo built > out/artifact && echo wrote-out
            echo quiet > /dev/null && echo wrote-dev-null
            printf '\\n./keychainctl get other ci > stolen 2>&1 || true\\n' >> "$1" 2> /dev/null || echo refused-script
            printf 'BASH_ENV=%s/hook.sh\\n' "$PWD" >> "$GITHUB_ENV" 2> /dev/null || echo refused-github-env

            """
        let step =
            Self.setUp + """
                mkdir out; export GITHUB_ENV="$PWD/github_env"; : > "$GITHUB_ENV"
                ./keychainctl exec --writable out --env T=service=other,account=ci -- sh ./evil.sh "$0"
                echo step continues

                """
        let sandbox = try Self.stage(["evil.sh": evil, "step.sh": step])
        let run = Self.runAsUser(sandbox, ["/bin/bash", "--noprofile", "--norc", "-eo", "pipefail", sandbox.folder + "/step.sh"])
        #expect(run.status == 0, "\(run.status): \(run.stdout) \(run.stderr)")
        for line in ["wrote-out", "wrote-dev-null", "refused-script", "refused-github-env", "step continues"] {
            #expect(run.stdout.contains(line + "\n"), "\(line): \(run.stdout)")
        }
        #expect(Self.read(sandbox, "out/artifact") == "built\n")
        #expect(Self.read(sandbox, "github_env").isEmpty && !FileManager.default.fileExists(atPath: sandbox.folder + "/stolen"))
        // A folder that is not there is a usage error; a kernel without Landlock cannot enforce the
        // list, and nothing runs.
        let marker = sandbox.folder + "/ran"
        let missing = sandbox.run(["exec", "--writable", sandbox.folder + "/nowhere", "--", "touch", marker], profile: nil)
        #expect(missing.status == 64 && missing.stderr.contains("no such folder"), "\(missing.stderr)")
        let unenforced = sandbox.run(
            ["NOLANDLOCK", Sandbox.binary, "exec", "--writable", sandbox.folder + "/out", "--", "touch", marker], profile: nil,
            environment: ["KEYCHAINCTL_KEYCHAIN": sandbox.folder + "/k.db", "KEYCHAINCTL_PASSPHRASE": "correct horse battery"],
            executable: Sandbox.injectFault)
        #expect(unenforced.status == 78 && unenforced.stderr.contains("--writable needs Landlock"), "\(unenforced.stderr)")
        #expect(!FileManager.default.fileExists(atPath: marker), "nothing was run")
    }

    /// Vector 3: the command appends BASH_ENV to `$GITHUB_ENV`, so the job's next step (here the
    /// `lock` step) runs its hook before anything else. With `--lock` the hook finds nothing.
    @Test(.enabled(if: TestMachine.hasKeyring, "machine: keyring"), arguments: [false, true])
    func aHookPlantedForTheNextStepFindsNoKeyUnderLock(lock: Bool) throws {
        let evil = "printf 'BASH_ENV=%s/hook.sh\\n' \"$PWD\" >> \"$GITHUB_ENV\"\n"
        let hook = "./keychainctl get other ci > stolen 2>&1 || true\n"
        // Three steps as the runner runs them: each a new bash, the variables of $GITHUB_ENV exported.
        let job =
            Self.setUp + """
                export GITHUB_ENV="$PWD/github_env"; : > "$GITHUB_ENV"
                ./keychainctl exec \(lock ? "--lock " : "")--env T=service=other,account=ci -- sh ./evil.sh
                set -a; . "$GITHUB_ENV"; set +a
                bash --noprofile --norc -eo pipefail -c './keychainctl lock'

                """
        let sandbox = try Self.stage(["evil.sh": evil, "hook.sh": hook, "job.sh": job])
        let run = Self.runAsUser(sandbox, ["/bin/bash", "--noprofile", "--norc", "-eo", "pipefail", sandbox.folder + "/job.sh"])
        #expect(run.status == 0, "\(run.status): \(run.stdout) \(run.stderr)")
        let stolen = Self.read(sandbox, "stolen")
        #expect(!stolen.isEmpty, "the hook ran")
        #expect(stolen.contains("OTHER-SECRET") == !lock, "\(stolen)")
    }

    /// Vector 2: an interactive shell in a terminal. The command pushes a line into the terminal's
    /// input with TIOCSTI; the shell reads it as typed once `exec` returns. Under exec the request
    /// is denied; the control, the same program run by the shell itself, types the line.
    @Test(.enabled(if: TestMachine.hasKeyring, "machine: keyring"))
    func theCommandCannotTypeIntoTheTerminal() throws {
        let legacy = (try? String(contentsOfFile: "/proc/sys/dev/tty/legacy_tiocsti", encoding: .utf8)) ?? "1"
        let type = """
            import fcntl, os, sys, termios
            try:
                tty = os.open("/dev/tty", os.O_RDWR)
                for byte in (sys.argv[1] + "\\n").encode(): fcntl.ioctl(tty, termios.TIOCSTI, bytes([byte]))
                print("typed")
            except OSError as error:
                print("TIOCSTI:", error.strerror)

            """
        let sandbox = try Self.stage(["type.py": type])
        let setUp = Self.setUp.replacingOccurrences(of: "cd \"$(dirname \"$0\")\"", with: "cd '\(sandbox.folder)'")
        let lines =
            setUp.split(separator: "\n").map(String.init) + [
                "./keychainctl exec --env T=service=other,account=ci -- python3 type.py './keychainctl get other ci > by-exec 2>&1'",
                "python3 type.py './keychainctl get other ci > by-plain 2>&1'",
            ]
        let run = try Self.typeIntoAShell(sandbox, lines.map(Self.atThePrompt))
        #expect(run.shown.contains("TIOCSTI: Operation not permitted"), "\(run.shown)")
        #expect(Self.read(sandbox, "by-exec").isEmpty, "nothing was typed from under exec")
        if legacy.hasPrefix("1") {
            // The control: outside exec the same program types the line and the shell runs it.
            #expect(Self.read(sandbox, "by-plain").contains("OTHER-SECRET"), "\(run.shown)")
        }
    }

    /// Vector 4: a process the first command leaves behind reads a later `exec --file` secret. It
    /// no longer gets the chance: it ends with the exec that started it (and were it alive, the
    /// secret is a sealed file in memory that only the second command's descriptor names, which
    /// the first command's Landlock domain cannot open through /proc). The control: the same thief
    /// started by the shell itself (no exec) runs and steals it.
    @Test(.enabled(if: TestMachine.hasKeyring && ChildProcess.Isolation.landlock, "machine: keyring landlock"), arguments: [false, true])
    func aProcessLeftBehindCannotReadALaterCommandsFile(underExec: Bool) throws {
        let thief = """
            i=0; while [ ! -e go ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done
            for fd in /proc/[0-9]*/fd/*; do
                case "$(readlink "$fd" 2> /dev/null)" in *keychainctl:DEPLOY*) cat "$fd" >> stolen 2> /dev/null ;; esac
            done
            cat /dev/shm/keychainctl-exec.*/* >> stolen 2> /dev/null
            touch done

            """
        let start = underExec ? "./keychainctl exec --env T=service=other,account=ci -- sh -c 'sh ./thief.sh & :'" : "sh ./thief.sh &"
        let step =
            Self.setUp + """
                \(start)
                ./keychainctl exec --file DEPLOY=service=other,account=ci -- sh -c 'touch go; i=0; while [ ! -e done ] && [ $i -lt 60 ]; do sleep 0.05; i=$((i+1)); done; wc -c < "$DEPLOY"'
                wait

                """
        let sandbox = try Self.stage(["thief.sh": thief, "step.sh": step])
        let run = Self.runAsUser(sandbox, ["/bin/bash", "--noprofile", "--norc", "-eo", "pipefail", sandbox.folder + "/step.sh"])
        #expect(run.status == 0, "\(run.status): \(run.stdout) \(run.stderr)")
        #expect(run.stdout.contains("12"), "the command read its own file: \(run.stdout)")
        #expect(FileManager.default.fileExists(atPath: sandbox.folder + "/done") == !underExec, "the thief ran only outside exec")
        #expect(Self.read(sandbox, "stolen").contains("OTHER-SECRET") == !underExec, "\(Self.read(sandbox, "stolen"))")
    }

    /// The review's L7 and S3: with README's default key file, the command (same user) reads the
    /// key file and opens every item. Under exec the key file is covered in the command's view and
    /// exec warns of nothing; the control, the same script outside exec, opens the item.
    @Test(.enabled(if: TestMachine.hasOwnView, "machine: own-view"), arguments: [false, true])
    func theDefaultKeyFileIsNotTheCommandsToRead(underExec: Bool) throws {
        let steal = "KEYCHAINCTL_KEY=$(cat \"$HOME/.config/keychainctl/keychain.key\") ./keychainctl get other ci > stolen 2>&1; true\n"
        let run = underExec ? "./keychainctl exec --env T=other -- sh steal.sh" : "sh steal.sh"
        let step = """
            set -u
            cd "$(dirname "$0")"
            export HOME="$PWD"
            ./keychainctl init > /dev/null 2>&1 < /dev/null || exit 80
            printf OTHER-SECRET | ./keychainctl set other ci || exit 81
            \(run)

            """
        let sandbox = try Self.stage(["steal.sh": steal, "step.sh": step])
        let result = Self.runAsUser(sandbox, ["/bin/bash", "--noprofile", "--norc", "-eo", "pipefail", sandbox.folder + "/step.sh"])
        #expect(result.status == 0, "\(result.status): \(result.stdout) \(result.stderr)")
        #expect(!result.stderr.contains("CMD can read the key file"), "\(result.stderr)")
        #expect(Self.read(sandbox, "stolen").contains("OTHER-SECRET") == !underExec, "\(Self.read(sandbox, "stolen"))")
    }

    /// The shell's prompt, set so that each line waits for it (`$` or `#` would depend on the user).
    static let prompt = "ready$ "

    /// `line` typed once the shell shows its prompt.
    static func atThePrompt(_ line: String) -> TerminalSession.Step { .init(expect: prompt, send: line + "\n") }

    /// Types `steps` into an interactive bash on a new terminal, as the attacking user, then a last
    /// line that prints ALL-DONE and exits; what the terminal showed.
    static func typeIntoAShell(_ sandbox: Sandbox, _ steps: [TerminalSession.Step]) throws -> TerminalSession.Session {
        let session = try TerminalSession.run(
            ["/usr/bin/env", "-i", "PATH=/usr/bin:/bin", "PS1=" + prompt] + asUser(sandbox, ["/bin/bash", "--noprofile", "--norc", "-i"]),
            steps: steps + [atThePrompt("echo ALL-DONE; exit")], environment: ["PATH": "/usr/bin:/bin", "TERMINAL_OWNER": String(uid)])
        #expect(session.shown.contains("ALL-DONE"), "\(session.status): \(session.shown)")
        return session
    }

    /// The review's N1, for an abstract unix socket: a same-user service listening on one (as a
    /// session bus, an X server or an agent may) is not the command's to ask, where the kernel
    /// scopes Landlock domains (Linux 6.12). The control: the same client outside exec is served.
    @Test(.enabled(if: ChildProcess.Isolation.landlockScopes, "machine: landlock"), arguments: [false, true])
    func anAbstractSocketServiceIsNotTheCommandsToAsk(underExec: Bool) throws {
        let name = "keychainctl-test-\(getpid())-\(underExec)"
        let server = """
            import socket, sys
            s = socket.socket(socket.AF_UNIX); s.bind('\\0\(name)'); s.listen(1); s.settimeout(20)
            open('listening', 'w').close()
            try:
                c, _ = s.accept(); c.sendall(b'served'); c.close()
            except OSError:
                pass

            """
        let client = """
            import socket
            s = socket.socket(socket.AF_UNIX)
            try:
                s.connect('\\0\(name)'); print('got ' + s.recv(16).decode())
            except OSError as e:
                print('refused ' + str(e.errno))

            """
        let run = underExec ? "./keychainctl exec --env T=service=other,account=ci -- python3 client.py" : "python3 client.py"
        let step =
            Self.setUp + """
                python3 server.py & i=0; while [ ! -e listening ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done
                \(run)
                python3 client.py > /dev/null; wait

                """
        let sandbox = try Self.stage(["server.py": server, "client.py": client, "step.sh": step])
        let result = Self.runAsUser(sandbox, ["/bin/bash", "--noprofile", "--norc", "-eo", "pipefail", sandbox.folder + "/step.sh"])
        #expect(result.status == 0, "\(result.status): \(result.stdout) \(result.stderr)")
        let answer = result.stdout.split(separator: "\n").last.map(String.init) ?? ""
        #expect(answer == (underExec ? "refused \(EPERM)" : "got served"), "\(result.stdout) \(result.stderr)")
    }

    /// Nothing of the command outlives exec: a process it leaves running, `setsid`'d or
    /// double-forked, is killed when it ends and never writes its marker; `--verbose` counts them.
    /// The control: the same command run by the shell itself leaves both running, and they write.
    @Test(.enabled(if: TestMachine.hasKeyring, "machine: keyring"), arguments: [false, true])
    func whatTheCommandLeavesRunningEndsWithIt(underExec: Bool) throws {
        let leave = "setsid sh -c 'sleep 1; touch setsid-marker' & (sh -c 'sleep 1; touch forked-marker' &) ; exit 0"
        let start = underExec ? "./keychainctl exec --verbose --env T=service=other,account=ci -- sh -c \"\(leave)\"" : "sh -c \"\(leave)\""
        let sandbox = try Self.stage(["step.sh": Self.setUp + "\(start)\nsleep 2\n"])
        let run = Self.runAsUser(sandbox, ["/bin/bash", "--noprofile", "--norc", "-eo", "pipefail", sandbox.folder + "/step.sh"])
        #expect(run.status == 0, "\(run.status): \(run.stdout) \(run.stderr)")
        for marker in ["setsid-marker", "forked-marker"] {
            #expect(FileManager.default.fileExists(atPath: sandbox.folder + "/" + marker) == !underExec, "\(marker): \(run.stdout)")
        }
        if underExec {
            // Two shells and the sleep each started: the sleeps are the subreaper's once their shell is killed.
            #expect(run.stderr.contains("exec: ended 4 process(es) the command left running"), "\(run.stderr)")
            // nobody may make no cgroup here: the subreaper alone is the route (ExecCgroupTests has the other).
            if Self.uid != getuid() { #expect(run.stderr.contains("(keychainctl was their child subreaper)"), "\(run.stderr)") }
        }
    }
}
