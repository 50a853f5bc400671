extension String {
    /// Whether the two strings are the same bytes. Swift's `==` treats canonically equivalent
    /// strings (`é` as one code point or as `e` and a combining accent) as equal, but SQLite, the
    /// authenticated data and Apple's `CFEqual` on access groups compare bytes: every entitlement
    /// check uses this, so that the check and the SQL can never disagree about a group.
    package func sameBytes(as other: String) -> Bool { utf8.elementsEqual(other.utf8) }

    /// The string made safe to print on a terminal: C0 control characters, DEL and C1 control
    /// characters become visible escapes (`\n`, `\t`, `\r`, `\x1B`, `\u{9B}`), so that an
    /// attribute cannot move the cursor, forge a line or send a terminal command. Everything else is
    /// kept; JSON output carries the exact value.
    package var terminalSafe: String {
        guard containsControlCharacters else { return self }
        var out = ""
        for scalar in unicodeScalars {
            guard Self.isControl(scalar) else {
                out.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out += scalar.value < 0x80 ? "\\x" + (hex.count == 1 ? "0" : "") + hex : "\\u{\(hex)}"
            }
        }
        return out
    }

    /// The string as one word of a POSIX shell command, for a command keychainctl prints for the
    /// user to run: as it is when it holds only characters no shell treats specially, else in single
    /// quotes (each `'` written `'\''`); terminal-safe either way.
    package var shellQuoted: String {
        let plain =
            !isEmpty
            && utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || "@%+=:,./_-".utf8.contains(byte)
            }
        return plain ? self : ("'" + split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'").terminalSafe
    }

    /// Each line made terminal-safe (`terminalSafe`), the line breaks kept: for messages of several
    /// lines that quote strings from files.
    package var linesTerminalSafe: String {
        guard containsControlCharacters else { return self }
        return split(separator: "\n", omittingEmptySubsequences: false).map { String($0).terminalSafe }.joined(separator: "\n")
    }

    /// Whether the string holds a C0 or C1 control character or DEL.
    /// Scanned as UTF-8: C0 and DEL are single bytes, C1 is 0xC2 followed by 0x80-0x9F.
    package var containsControlCharacters: Bool {
        var previous: UInt8 = 0
        for byte in utf8 {
            if byte < 0x20 || byte == 0x7F || (previous == 0xC2 && (0x80...0x9F).contains(byte)) { return true }
            previous = byte
        }
        return false
    }

    /// Whether `scalar` is a C0 or C1 control character or DEL.
    package static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}

extension Collection where Element == UInt8 {
    /// Where `pattern` first occurs, compared byte for byte. The standard library's `firstRange(of:)`
    /// and `contains(_:)` for strings live in `_StringProcessing`, whose protocol conformances alone
    /// made every conformance lookup at start-up a fifth slower. Inlinable, so each module that
    /// calls it specialises it for its collection (the plist reader's slices).
    @inlinable package func firstRange(ofBytes pattern: some Collection<UInt8>) -> Range<Index>? {
        guard let first = pattern.first else { return startIndex..<startIndex }
        var start = startIndex
        while let candidate = self[start...].firstIndex(of: first) {
            var position = candidate
            var matched = true
            for byte in pattern {
                guard position != endIndex, self[position] == byte else {
                    matched = false
                    break
                }
                formIndex(after: &position)
            }
            if matched { return candidate..<position }
            start = index(after: candidate)
        }
        return nil
    }
}

extension String {
    /// Whether `other` occurs in the string, byte for byte.
    package func containsBytes(_ other: String) -> Bool { utf8.firstRange(ofBytes: other.utf8) != nil }

    /// The string with every occurrence of `target` replaced by `replacement`, byte for byte.
    package func replacingBytes(_ target: String, with replacement: String) -> String {
        var result = ""
        var rest = self[...]
        while let range = rest.utf8.firstRange(ofBytes: target.utf8) {
            result += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}

extension BidirectionalCollection where Element == UInt8 {
    /// The bytes without the ASCII spaces, tabs, carriage returns and newlines around them (empty
    /// when there is nothing else).
    @inlinable package func trimmingASCIIWhitespace() -> SubSequence {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}
