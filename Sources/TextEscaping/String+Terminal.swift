extension String {
    /// The string made safe to print on a terminal: C0 control characters, DEL and C1 control
    /// characters become visible escapes (`\n`, `\t`, `\r`, `\x1B`, `\u{9B}`), so that a string
    /// from a file or the command line cannot move the cursor, forge a line or send a terminal
    /// command. Everything else is kept; JSON output carries the exact value.
    public var terminalSafe: String {
        guard containsControlCharacters else { return self }
        return escaping { scalar in
            guard Self.isControl(scalar) else { return nil }
            switch scalar {
            case "\n": return "\\n"
            case "\t": return "\\t"
            case "\r": return "\\r"
            default: return scalar.value < 0x80 ? "\\x" + Self.hex(scalar.value, digits: 2) : "\\u{\(Self.hex(scalar.value, digits: 1))}"
            }
        }
    }

    /// Each line made terminal-safe (`terminalSafe`), the line breaks kept: for messages of several
    /// lines that quote strings from files.
    public var linesTerminalSafe: String {
        guard containsControlCharacters else { return self }
        return split(separator: "\n", omittingEmptySubsequences: false).map { String($0).terminalSafe }.joined(separator: "\n")
    }

    /// Whether the string holds a C0 or C1 control character or DEL.
    /// Scanned as UTF-8: C0 and DEL are single bytes, C1 is 0xC2 followed by 0x80-0x9F.
    public var containsControlCharacters: Bool {
        var previous: UInt8 = 0
        for byte in utf8 {
            if byte < 0x20 || byte == 0x7F || (previous == 0xC2 && (0x80...0x9F).contains(byte)) { return true }
            previous = byte
        }
        return false
    }

    /// Whether `scalar` is a C0 or C1 control character or DEL.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
