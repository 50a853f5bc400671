import Glibc
import KeychainCore

/// Asking the person at the terminal to confirm a destructive step.
enum Confirmation {
    /// Asks `question` on the terminal and reads one line; `true` only for y or yes. With no
    /// terminal, errSecInteractionNotAllowed (exit 36) telling the caller to pass `--yes`.
    static func ask(_ question: String) throws -> Bool {
        let fd = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard fd >= 0, StandardStreams.isTerminal(0) || StandardStreams.isTerminal(2) else {
            if fd >= 0 { close(fd) }
            throw KeychainError(.interactionNotAllowed, hint: "there is no terminal to confirm on; pass --yes to go ahead.")
        }
        defer { close(fd) }
        _ = question.withCString { Glibc.write(fd, $0, strlen($0)) }
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while line.count < 16, Glibc.read(fd, &byte, 1) == 1, byte != 0x0A { line.append(byte) }
        let answer = String(decoding: line, as: UTF8.self).lowercased()
        return answer == "y" || answer == "yes"
    }
}
