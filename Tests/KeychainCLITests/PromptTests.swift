import Foundation
import Testing

/// On a terminal, keychainctl prompts for the passphrase and the secret without echo.
@Suite struct PromptTests {
    /// Runs the binary on a pseudo-terminal (through Python's pty module), typing `lines` one after
    /// another, and returns (exit status, everything the terminal showed).
    func onTerminal(_ arguments: [String], typing lines: [String], environment: [String: String]) throws -> (Int32, String) {
        let script = """
            import os, pty, sys, time, json
            args, lines = json.loads(sys.argv[1]), json.loads(sys.argv[2])
            pid, fd = pty.fork()
            if pid == 0:
                os.execv(args[0], args)
            out = b""
            for line in lines:
                time.sleep(0.3)
                os.write(fd, line.encode())
            time.sleep(0.3)
            try:
                while True:
                    data = os.read(fd, 4096)
                    if not data:
                        break
                    out += data
            except OSError:
                pass
            _, status = os.waitpid(pid, 0)
            sys.stdout.write(out.decode(errors="replace"))
            sys.exit(os.waitstatus_to_exitcode(status))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let argv = String(decoding: try JSONSerialization.data(withJSONObject: [Sandbox.binary] + arguments), as: UTF8.self)
        let typed = String(decoding: try JSONSerialization.data(withJSONObject: lines), as: UTF8.self)
        process.arguments = ["python3", "-c", script, argv, typed]
        process.environment = environment
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func passphraseAndSecretArePromptedWithoutEcho() throws {
        let sandbox = try Sandbox(initialize: false)
        var environment = sandbox.baseEnvironment
        environment["KEYCHAINCTL_KEY_FILE"] = nil
        environment["KEYCHAINCTL_PROFILE"] = Sandbox.profiles + "/app.plist"
        let (initStatus, initShown) = try onTerminal(
            ["init", "--kdf", "interactive"], typing: ["pass phrase\n", "pass phrase\n"], environment: environment)
        #expect(initStatus == 0)
        #expect(initShown.contains("New keychain passphrase:"))
        #expect(!initShown.contains("pass phrase"))
        let (addStatus, addShown) = try onTerminal(
            ["add", "-s", "tty"], typing: ["pass phrase\n", "typed-secret\n"], environment: environment)
        #expect(addStatus == 0)
        #expect(addShown.contains("Secret for the new item:"))
        #expect(!addShown.contains("typed-secret"))
        let (findStatus, findShown) = try onTerminal(["find", "-s", "tty", "-w"], typing: ["pass phrase\n"], environment: environment)
        #expect(findStatus == 0)
        // On a terminal, -w adds the newline that a pipe does not get.
        #expect(findShown.hasSuffix("typed-secret\r\n"))
        let (wrongStatus, _) = try onTerminal(["find", "-s", "tty"], typing: ["wrong\n"], environment: environment)
        #expect(wrongStatus == 51)
    }
}
