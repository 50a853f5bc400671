import Foundation
import KeychainTestSupport
import Testing

@testable import KeychainCLI

/// `exec` on a terminal: the command runs on a terminal of its own that keychainctl relays, so it
/// never holds the caller's (the review's N2: a process it leaves reads the passphrase typed at the
/// next prompt). Each runs in an interactive bash on a new terminal, as a user other than root
/// (`ExecWayOutTests`), with a control outside exec where the test is an attack.
@Suite struct ExecTerminalTests {
    typealias WayOut = ExecWayOutTests
    typealias Step = TerminalSession.Step

    /// Starts the shell's session: the keychain set up, the window 77 by 21, the terminal's name in OUTER.
    static let setUp = Step(expect: nil, send: "stty cols 77 rows 21; export OUTER=$(tty); . ./setup.sh\n")

    static func shell(_ files: [String: String], _ steps: [Step]) throws -> (Sandbox, TerminalSession.Session) {
        let setup = WayOut.setUp.replacingOccurrences(of: "cd \"$(dirname \"$0\")\"", with: "cd \"$PWD\"")
        let sandbox = try WayOut.stage(files.merging(["setup.sh": setup]) { a, _ in a })
        let steps = [Step(expect: WayOut.prompt, send: "cd '\(sandbox.folder)'\n"), setUp] + steps
        return (sandbox, try WayOut.typeIntoAShell(sandbox, steps))
    }

    /// The command's standard streams are a terminal of its own, with the caller's window size;
    /// what is typed reaches it; the caller's terminal, opened by name, is not a terminal in its
    /// view. The control: the same probe run by the shell is on the caller's terminal and opens it.
    @Test(.enabled(if: TestMachine.hasKeyring && TestMachine.hasOwnView, "machine: keyring own-view"), arguments: [false, true])
    func theCommandRunsOnATerminalOfItsOwn(underExec: Bool) throws {
        let probe = """
            import os
            print("same-terminal", os.ttyname(0) == os.environ["OUTER"], os.ttyname(1) == os.ttyname(0))
            print("size %dx%d" % tuple(os.get_terminal_size()))
            try:
                print("caller-terminal-opens", os.isatty(os.open(os.environ["OUTER"], os.O_RDWR)))
            except OSError as error:
                print("caller-terminal-opens", False, error.errno)
            print("got", input("type: "))

            """
        let run = underExec ? "./keychainctl exec --env T=service=other,account=ci -- python3 probe.py" : "python3 probe.py"
        let (_, session) = try Self.shell(
            ["probe.py": probe],
            [WayOut.atThePrompt(run), Step(expect: "type: ", send: "typed line\n"), WayOut.atThePrompt("echo status=$?")])
        let shown = session.shown
        #expect(shown.contains("same-terminal \(underExec ? "False" : "True") True"), "\(shown)")
        #expect(shown.contains("size 77x21"), "\(shown)")
        #expect(shown.contains("caller-terminal-opens \(underExec ? "False" : "True")"), "\(shown)")
        #expect(shown.contains("got typed line") && shown.contains("status=0"), "\(shown)")
        #expect(session.echoOnAfter, "the caller's terminal is given back as it was")
    }

    /// ^C on the command's terminal interrupts it (exec ends as it did: 130); ^Z stops it, then
    /// exec, and `fg` continues both with typing relayed again; a window resized while it runs
    /// reaches it as SIGWINCH with the new size. Each key is typed once the command has printed
    /// (spelled apart on the command line, so that its echo does not count).
    @Test(.enabled(if: TestMachine.hasKeyring, "machine: keyring"))
    func signalsAndJobControlReachTheCommand() throws {
        let winch = """
            import os, signal, time
            signal.signal(signal.SIGWINCH, lambda *_: print("resized %dx%d" % tuple(os.get_terminal_size()), flush=True))
            open("waiting", "w").close()
            time.sleep(20)

            """
        let resize = """
            import fcntl, os, struct, termios, time
            for _ in range(200):
                if os.path.exists("waiting"): break
                time.sleep(0.05)
            fcntl.ioctl(os.open(os.environ["OUTER"], os.O_RDWR), termios.TIOCSWINSZ, struct.pack("HHHH", 21, 90, 0, 0))

            """
        // One process that is reading its terminal once it says so: ^Z stops it wherever it is.
        let upper = """
            import sys
            print("sta" "rted", flush=True)
            for line in sys.stdin:
                print(line.upper(), end="", flush=True)

            """
        let exec = "./keychainctl exec --env T=service=other,account=ci --"
        let (_, session) = try Self.shell(
            ["winch.py": winch, "resize.py": resize, "upper.py": upper],
            [
                WayOut.atThePrompt("\(exec) sh -c 'echo sl\"\"eeping; exec sleep 30'"), Step(expect: "sleeping", send: "\u{03}"),
                WayOut.atThePrompt("echo interrupted=$?"),
                WayOut.atThePrompt("\(exec) python3 upper.py"), Step(expect: "started", send: "\u{1A}"),
                WayOut.atThePrompt("fg"), Step(expect: "upper.py", send: "after fg\n"), Step(expect: "AFTER FG", send: "\u{04}"),
                WayOut.atThePrompt("echo continued=$?"),
                WayOut.atThePrompt("python3 resize.py & \(exec) python3 winch.py"), Step(expect: "resized", send: "\u{03}"),
                WayOut.atThePrompt("wait"),
            ])
        let shown = session.shown
        #expect(shown.contains("interrupted=130"), "\(shown)")
        #expect(shown.contains("Stopped"), "\(shown)")
        #expect(shown.contains("continued=0"), "\(shown)")
        #expect(shown.contains("resized 90x21"), "\(shown)")
        #expect(session.echoOnAfter)
    }

    /// The review's N2: a process the command leaves behind reads the caller's terminal once exec
    /// returned, and takes the next line typed (at the shell's prompt or while it runs `sleep`,
    /// whichever read comes first). Under exec it never gets the caller's terminal, and ends with
    /// exec. The control: the same command run by the shell leaves it reading, and it takes a line.
    @Test(.enabled(if: TestMachine.hasKeyring, "machine: keyring"), arguments: [false, true])
    func aProcessLeftBehindCannotReadTheNextLineTyped(underExec: Bool) throws {
        let leave = "setsid sh -c 'head -n 1 < \"$OUTER\" > captured' < /dev/null > /dev/null 2>&1 & sleep 0.5"
        let run = underExec ? "./keychainctl exec --env T=service=other,account=ci -- sh -c \"\(leave)\"" : "sh -c \"\(leave)\""
        let (sandbox, session) = try Self.shell(
            [:],
            [
                WayOut.atThePrompt(run), WayOut.atThePrompt(": the passphrase line; sleep 2"),
                Step(expect: nil, send: ": the passphrase line\n"), WayOut.atThePrompt("sleep 1"),
            ])
        let captured = WayOut.read(sandbox, "captured")
        #expect(captured.contains("the passphrase line") == !underExec, "\(captured) \(session.shown)")
    }
}
