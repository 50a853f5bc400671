import Glibc
import KeychainCore
import TextEscaping

/// Asking the person at the terminal to confirm a destructive step.
enum Confirmation {
    /// Asks `question` on the terminal and reads one line; `true` only for y or yes. With no
    /// terminal, errSecInteractionNotAllowed (exit 36) telling the caller to pass `--yes`.
    static func ask(_ question: String) throws -> Bool {
        let answer = try readLine(question, orElse: "there is no terminal to confirm on; pass --yes to go ahead.").lowercased()
        return answer == "y" || answer == "yes"
    }

    /// Asks the user for a protected item's authentication (`--auth` answers for them):
    /// approve, cancel or fail; anything else is errSecParam, nothing done.
    static func authenticate(_ prompt: Authentication.Prompt) throws -> Authentication.Answer {
        let line = try readLine(
            "\(prompt.text.terminalSafe)\n[\(Authentication.Answer.allNames.replacingBytes(", ", with: "/"))] ",
            orElse: "there is no terminal to authenticate on; pass --auth approve|cancel|fail.")
        guard let answer = Authentication.Answer(rawValue: line.lowercased()) else {
            throw KeychainError(.param, hint: "answer approve, cancel or fail (the answer given is not shown); nothing was done.")
        }
        return answer
    }

    /// Writes `question` on the terminal and reads one line (at most 16 bytes kept). With no
    /// terminal, errSecInteractionNotAllowed (exit 36) with `hint`.
    private static func readLine(_ question: String, orElse hint: String) throws -> String {
        let fd = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard fd >= 0, StandardStreams.isTerminal(0) || StandardStreams.isTerminal(2) else {
            if fd >= 0 { close(fd) }
            throw KeychainError(.interactionNotAllowed, hint: hint)
        }
        defer { close(fd) }
        _ = question.withCString { Glibc.write(fd, $0, strlen($0)) }
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while Glibc.read(fd, &byte, 1) == 1, byte != 0x0A {
            if line.count < 16 { line.append(byte) }
        }
        return String(decoding: line, as: UTF8.self)[...].trimmingSpaces
    }
}
