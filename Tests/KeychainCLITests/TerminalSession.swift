import Foundation

/// A program run on a pseudo-terminal (Python's pty module), expect-style, as a person at a
/// terminal would run it: each step waits for its prompt text to appear after the previous one
/// matched (at most 30 s) before typing, so a slow machine cannot make a test type too early, and
/// a prompt shown again (a shell's) is waited for each time; the session is killed after 90 s.
enum TerminalSession {
    /// One step: wait until the terminal shows `expect` (nil: do not wait), then type `send`.
    struct Step: Encodable {
        var expect: String?
        var send: String
    }

    /// What a session ended with: exit status (or 128 + signal), everything the terminal showed,
    /// and whether echo was on once the program was gone.
    struct Session {
        let status: Int32
        let shown: String
        let echoOnAfter: Bool
    }

    static let driver = """
        import json, os, pty, select, sys, termios, time
        args, steps = json.loads(sys.argv[1]), json.loads(sys.argv[2])
        pid, fd = pty.fork()
        if pid == 0:
            # The terminal is its user's, as a login gives it (the program may drop to that user).
            if os.environ.get("TERMINAL_OWNER"):
                os.fchown(0, int(os.environ["TERMINAL_OWNER"]), -1)
            os.execv(args[0], args)
        out = b""
        def read_for(seconds):
            global out
            end = time.time() + seconds
            while time.time() < end:
                ready, _, _ = select.select([fd], [], [], max(0, end - time.time()))
                if not ready:
                    return
                try:
                    data = os.read(fd, 4096)
                except OSError:
                    return
                if not data:
                    return
                out += data
                return
        seen = 0
        for step in steps:
            if step.get("expect") is not None:
                wanted = step["expect"].encode()
                deadline = time.time() + 30
                while out.find(wanted, seen) < 0 and time.time() < deadline:
                    read_for(deadline - time.time())
                if out.find(wanted, seen) >= 0:
                    seen = out.find(wanted, seen) + len(wanted)
            os.write(fd, step["send"].encode())
        deadline = time.time() + 30
        while time.time() < deadline:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            read_for(0.1)
        else:
            os.kill(pid, 9)
            _, status = os.waitpid(pid, 0)
        while True:
            ready, _, _ = select.select([fd], [], [], 0.1)
            if not ready:
                break
            try:
                data = os.read(fd, 4096)
            except OSError:
                break
            if not data:
                break
            out += data
        try:
            echo = bool(termios.tcgetattr(fd)[3] & termios.ECHO)
        except termios.error:
            echo = False
        code = os.waitstatus_to_exitcode(status)
        sys.stdout.write(json.dumps({"status": code if code >= 0 else 128 - code, "shown": out.decode(errors="replace"), "echo": echo}))
        """

    /// Runs `argv` (its first word a path) on a new terminal with `environment`, typing `steps`.
    static func run(_ argv: [String], steps: [Step], environment: [String: String]) throws -> Session {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let arguments = String(decoding: try JSONSerialization.data(withJSONObject: argv), as: UTF8.self)
        let typed = String(decoding: try JSONEncoder().encode(steps), as: UTF8.self)
        process.arguments = ["python3", "-c", driver, arguments, typed]
        process.environment = environment
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let pid = process.processIdentifier
        let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 90, execute: watchdog)
        defer { watchdog.cancel() }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let result = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return Session(
            status: Int32(result?["status"] as? Int ?? -1), shown: result?["shown"] as? String ?? "",
            echoOnAfter: result?["echo"] as? Bool ?? false)
    }
}
