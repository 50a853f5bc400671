import Glibc
import KeychainCore
import KeychainPlatform

/// `get --clip`: the secret copied to the desktop's clipboard, never printed, and cleared after a
/// while unless something else was copied since (as `pass -c` does). The copy goes through the
/// desktop's own tool, started as `exec`'s command is (no keyring, no descriptor of keychainctl's,
/// no ptrace); the clearer is a small shell that outlives keychainctl and knows only the secret's
/// SHA-256, which it compares with what the clipboard holds then.
struct Clipboard {
    /// One desktop tool: how it copies standard input, pastes, and clears.
    struct Tool {
        let copy: [String]
        let paste: [String]
        let clear: [String]
    }

    let tool: Tool
    /// The tool's full path (`copy[0]` found on PATH) and the variables it needs to reach the display.
    let executable: String
    let environment: [(name: String, value: SecretBytes)]

    /// The tool for this session: wl-copy under Wayland, else xclip or xsel under X11; a
    /// configuration error (78) naming what is missing when there is none.
    init() throws {
        let path = Environment.value("PATH")
        var candidates: [Tool] = []
        if Environment.value("WAYLAND_DISPLAY") != nil {
            candidates.append(Tool(copy: ["wl-copy"], paste: ["wl-paste", "--no-newline"], clear: ["wl-copy", "--clear"]))
        }
        if Environment.value("DISPLAY") != nil {
            candidates.append(
                Tool(
                    copy: ["xclip", "-selection", "clipboard", "-in"], paste: ["xclip", "-selection", "clipboard", "-out"],
                    clear: ["xclip", "-selection", "clipboard", "-in", "/dev/null"]))
            candidates.append(
                Tool(
                    copy: ["xsel", "--clipboard", "--input"], paste: ["xsel", "--clipboard", "--output"],
                    clear: ["xsel", "--clipboard", "--clear"]))
        }
        guard !candidates.isEmpty else {
            throw ConfigurationError(
                "no clipboard: --clip needs a desktop session (WAYLAND_DISPLAY or DISPLAY is unset); nothing was copied. Without --clip the secret goes to standard output."
            )
        }
        for candidate in candidates {
            if case .found(let found) = ChildProcess.resolve(candidate.copy[0], path: path) {
                tool = candidate
                executable = found
                environment = ["PATH", "DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "XDG_RUNTIME_DIR", "HOME"].compactMap { name in
                    Environment.value(name).map { (name, SecretBytes(copying: Array($0.utf8))) }
                }
                return
            }
        }
        throw ConfigurationError(
            "no clipboard tool: --clip needs wl-copy (wl-clipboard) under Wayland, or xclip or xsel under X11, on PATH; nothing was copied."
        )
    }

    /// Puts `secret` on the clipboard, and starts the clearer: after `seconds`, the clipboard is
    /// emptied if it still holds `secret`.
    func copy(_ secret: SecretBytes, clearAfter seconds: Int) throws {
        guard let pipe = Spawn.pipe() else { throw InputError("cannot make a pipe: \(SystemError.text(errno)).") }
        let ends = [pipe.read, pipe.write]
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        defer { close(null) }
        let child = start(executable, tool.copy, environment: EnvironmentBlock(environment), dups: [(ends[0], 0), (null, 1), (null, 2)])
        close(ends[0])
        guard child > 0 else {
            close(ends[1])
            throw ConfigurationError("cannot run \(tool.copy[0]): \(SystemError.text(errno)); nothing was copied.")
        }
        // The tool gets the secret on a pipe, never in its arguments or environment.
        signal(SIGPIPE, SIG_IGN)
        let written = secret.withUnsafeBytes { FileBytes.writeAll(ends[1], $0) }
        close(ends[1])
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0, errno == EINTR {}
        guard written, status & 0x7F == 0, (status >> 8) & 0xFF == 0 else {
            throw ConfigurationError("\(tool.copy[0]) could not take the secret (exit \((status >> 8) & 0xFF)); nothing was copied.")
        }
        guard seconds > 0 else { return }
        // A shell of its own session, deaf to the terminal's hangup: it outlives keychainctl.
        // $1: the seconds; the rest: the paste command, whose output's SHA-256 must still be the secret's.
        let script = """
            trap '' HUP INT
            seconds=$1; shift
            sleep "$seconds" || exit 0
            [ "$("$@" 2>/dev/null | sha256sum | cut -d ' ' -f 1)" = "$KEYCHAINCTL_CLIP_SUM" ] || exit 0

            """ + tool.clear.joined(separator: " ") + " < /dev/null > /dev/null 2>&1\n"
        let variables = environment + [("KEYCHAINCTL_CLIP_SUM", SecretBytes(copying: Array(secret.sha256Hex.utf8)))]
        _ = start(
            "/bin/sh", ["sh", "-c", script, "sh", String(seconds)] + tool.paste, environment: EnvironmentBlock(variables),
            dups: [(null, 0), (null, 1), (null, 2)])
    }

    /// Starts `program` with `arguments` (its name first), isolated as `exec`'s command is, its
    /// descriptors `dups`; its pid, or -1.
    private func start(_ program: String, _ arguments: [String], environment: EnvironmentBlock, dups: [(from: Int32, to: Int32)])
        -> pid_t
    {
        ChildProcess.start(program, arguments: arguments, environment: environment, isolation: ChildProcess.Isolation(), dups: dups).pid
    }
}
