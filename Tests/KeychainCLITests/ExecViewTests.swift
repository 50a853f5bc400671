import Foundation
import KeychainTestSupport
import Testing

@testable import KeychainCLI

/// The command's own view of the file system (docs/GUIDE.md, "What the command can reach"): a mount
/// namespace in which the key files are covered, the sockets of the user's services are covered but
/// those `--allow-socket` names, and, with `--writable`, every other mount is read-only. Each attack
/// runs as the review ran it, as a user other than root (`nobody` when the tests run as root), with
/// a control showing that it works outside `exec` on this machine.
@Suite struct ExecViewTests {
    typealias Way = ExecWayOutTests

    /// Runs `step` (after the shared set-up) as the attacking user, with `files` beside it.
    static func runStep(_ step: String, files: [String: String] = [:], settings: [String] = []) throws -> (Sandbox, Sandbox.Run) {
        let sandbox = try Way.stage(files.merging(["step.sh": Way.setUp + step]) { $1 })
        let run = Way.runAsUser(sandbox, settings + ["/bin/bash", "--noprofile", "--norc", "-eo", "pipefail", sandbox.folder + "/step.sh"])
        return (sandbox, run)
    }

    /// A service listening on `a.sock` and `b.sock` in the step's folder, answering each connection.
    static let server = """
        import os, socket, threading
        def serve(path):
            s = socket.socket(socket.AF_UNIX); s.bind(path); s.listen(4); s.settimeout(30)
            open(path + '.ready', 'w').close()
            try:
                while True:
                    c, _ = s.accept(); c.sendall(b'served'); c.close()
            except OSError:
                pass
        for name in ('a.sock', 'b.sock'):
            threading.Thread(target=serve, args=(os.path.abspath(name),), daemon=True).start()
        while not os.path.exists('done'):
            threading.Event().wait(0.05)

        """

    static let client = """
        import socket, sys
        for path in sys.argv[1:]:
            s = socket.socket(socket.AF_UNIX)
            try:
                s.connect(path); print(path + ' got ' + s.recv(16).decode())
            except OSError as e:
                print(path + ' refused ' + str(e.errno))

        """

    /// The review's N1 for pathname sockets: a same-user service listening on one is not the
    /// command's to ask; `--allow-socket` names the one it may. The control: outside exec, both serve.
    @Test(.enabled(if: TestMachine.hasOwnView, "machine: own-view"), arguments: [false, true])
    func aServiceSocketIsNotTheCommandsToAskUnlessAllowed(underExec: Bool) throws {
        let run =
            underExec
            ? "./keychainctl exec --allow-socket \"$PWD/b.sock\" -- python3 client.py \"$PWD/a.sock\" \"$PWD/b.sock\""
            : "python3 client.py \"$PWD/a.sock\" \"$PWD/b.sock\""
        let (_, result) = try Self.runStep(
            """
            python3 server.py & i=0; while [ ! -e b.sock.ready ] || [ ! -e a.sock.ready ]; do sleep 0.05; i=$((i+1)); [ $i -lt 200 ] || exit 83; done
            \(run)
            touch done; wait

            """, files: ["server.py": Self.server, "client.py": Self.client])
        #expect(result.status == 0, "\(result.status): \(result.stdout) \(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map { String($0.split(separator: "/").last ?? "") }
        #expect(lines == [underExec ? "a.sock refused \(ECONNREFUSED)" : "a.sock got served", "b.sock got served"], "\(result.stdout)")
    }

    /// An --allow-socket that names no socket is refused before anything runs.
    @Test func anAllowedSocketMustBeASocket() throws {
        let sandbox = try Sandbox()
        let run = sandbox.run(["exec", "--allow-socket", sandbox.folder, "--", "true"])
        #expect(run.status == 64, "\(run.status): \(run.stderr)")
        #expect(run.stderr.contains("--allow-socket \(sandbox.folder): no unix socket there."), "\(run.stderr)")
    }

    static let hasTmux = FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")

    /// The review's N1 as reproduced: the command asks the user's tmux to type a line into a shell
    /// that has the cached key. Under exec, tmux's socket is covered and nothing is typed; the
    /// control, the same command outside exec, reads the item through tmux.
    @Test(
        .enabled(if: TestMachine.hasKeyring && hasTmux && TestMachine.hasOwnView, "machine: keyring tmux own-view"),
        arguments: [false, true])
    func tmuxSendKeysDoesNotTypeForTheCommand(underExec: Bool) throws {
        let evil = "tmux send-keys -t victim './keychainctl get other ci > stolen 2>&1' Enter 2> send.err; echo sent=$?\n"
        let run = underExec ? "./keychainctl exec -- sh evil.sh" : "sh evil.sh"
        let (sandbox, result) = try Self.runStep(
            """
            export TMUX_TMPDIR="$PWD" SHELL=/bin/sh
            tmux -f /dev/null new-session -d -s victim 'bash --noprofile --norc' < /dev/null > /dev/null 2>&1
            tmux display-message -p '#{pid}' > tmux.pid
            \(run)
            i=0; while [ ! -s stolen ] && [ $i -lt 60 ]; do sleep 0.05; i=$((i+1)); done
            tmux kill-server || true
            kill -9 "$(cat tmux.pid)" 2> /dev/null || true
            echo ended

            """, files: ["evil.sh": evil])
        #expect(result.status == 0, "\(result.status): \(result.stdout) \(result.stderr)")
        let stolen = Way.read(sandbox, "stolen")
        if underExec {
            #expect(result.stdout.contains("sent=1"), "\(result.stdout) \(Way.read(sandbox, "send.err"))")
            #expect(stolen.isEmpty, "\(stolen)")
        } else {
            #expect(result.stdout.contains("sent=0"), "\(result.stdout)")
            #expect(stolen.contains("OTHER-SECRET"), "the control: tmux typed for the command: \(stolen)")
        }
    }

    /// The review's finding 4 and S3: the key file exec opened the keychain with reads as empty
    /// under exec, and exec says nothing of it. Where the system refuses a namespace (NONAMESPACE),
    /// the command reads it and exec says so once, with advice that the README does not contradict.
    /// The control: outside exec, the same read gets the key.
    @Test(.enabled(if: TestMachine.hasOwnView, "machine: own-view"), arguments: [false, true])
    func theKeyFileIsOutOfTheCommandsReach(namespaces: Bool) throws {
        let step = """
            set -u
            cd "$(dirname "$0")"
            export HOME="$PWD" KEYCHAINCTL_KEYCHAIN="$PWD/k.db" KEYCHAINCTL_KEY_FILE="$PWD/k.key"
            ./keychainctl init --generate-key-file "$PWD/k.key" > /dev/null 2>&1 || exit 80
            printf OTHER-SECRET | ./keychainctl set other ci || exit 81
            echo "plain: $(wc -c < k.key)"
            ./keychainctl exec --env T=other -- sh -c 'echo "exec: $(wc -c < k.key)"; [ "$(wc -c < k.key)" = 45 ] || printf x > k.key'
            echo "after: $(wc -c < k.key)"
            ./keychainctl get other ci

            """
        let sandbox = try Way.stage(["step.sh": step])
        let settings = namespaces ? [] : ["NONAMESPACE"]
        let result = Way.runAsUser(
            sandbox, settings + ["/bin/bash", "--noprofile", "--norc", "-eo", "pipefail", sandbox.folder + "/step.sh"])
        #expect(result.status == 0, "\(result.status): \(result.stdout) \(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "plain: 45", "\(result.stdout)")
        // What the command wrote to the covered path went nowhere; the key and the item are intact.
        #expect(lines.contains("after: 45"), "\(result.stdout)")
        #expect(lines.last == "OTHER-SECRET", "\(result.stdout) \(result.stderr)")
        #expect(lines.dropFirst().first == (namespaces ? "exec: 0" : "exec: 45"), "\(result.stdout) \(result.stderr)")
        let warnings = result.stderr.components(separatedBy: "CMD can read the key file").count - 1
        #expect(warnings == (namespaces ? 0 : 1), "\(result.stderr)")
        if !namespaces { #expect(result.stderr.contains("sysctl user.max_user_namespaces"), "\(result.stderr)") }
    }

    /// The review's N1 for metadata: under --writable, chmod, chown and utime outside the writable
    /// folder are refused as writes are, and allowed inside it. The control: without --writable
    /// the same changes go through.
    @Test(.enabled(if: ChildProcess.Isolation.landlock && TestMachine.hasOwnView, "machine: landlock own-view"), arguments: [false, true])
    func metadataOutsideTheWritableFolderIsRefused(writable: Bool) throws {
        let change = """
            for f in outside out/inside; do
              c=ok; chmod 600 "$f" 2> /dev/null || c=refused
              o=ok; chown "$(id -u)" "$f" 2> /dev/null || o=refused
              t=ok; touch -m -d 2001-01-01 "$f" 2> /dev/null || t=refused
              echo "$f chmod=$c chown=$o utime=$t"
            done

            """
        let option = writable ? "--writable \"$PWD/out\" " : ""
        let (_, result) = try Self.runStep(
            """
            mkdir -p out; : > outside; : > out/inside
            ./keychainctl exec \(option)-- sh change.sh

            """, files: ["change.sh": change])
        #expect(result.status == 0, "\(result.status): \(result.stdout) \(result.stderr)")
        let outside = writable ? "refused" : "ok"
        #expect(
            result.stdout.split(separator: "\n").map(String.init) == [
                "outside chmod=\(outside) chown=\(outside) utime=\(outside)", "out/inside chmod=ok chown=ok utime=ok",
            ], "\(result.stdout) \(result.stderr)")
    }
}
