import KeychainFormats
import KeychainFoundation

/// The dotenv format, as `exec --env-file` and `import` read it (docs/CI.md):
/// UTF-8 with an optional BOM, LF or CRLF lines; blank lines and `#` comment lines; an optional
/// `export ` prefix; names `[A-Za-z_][A-Za-z0-9_.-]*`; unquoted values trimmed, ` #` starting a
/// comment; single quotes literal; double quotes with `\n \r \t \" \\ \$` escapes; real newlines
/// inside either quote. Nothing is expanded: a value using `$NAME` or `$(…)` outside single
/// quotes is taken literally, with a warning naming its line. A name given twice is an error
/// naming both lines. Values are read into guarded memory and never appear in an error.
package enum DotEnv {
    /// One assignment.
    package struct Entry {
        package let name: String
        package let value: SecretBytes
        /// The 1-based line its name is on.
        package let line: Int
    }

    /// What a file holds: its assignments in order, and warnings (line numbers and names, never values).
    package struct Parsed {
        package var entries: [Entry] = []
        package var warnings: [String] = []
    }

    /// A file that is not dotenv: errSecParam (exit 206) naming the source and line, not the value.
    package static func error(_ source: String, line: Int, _ what: String) -> KeychainError {
        KeychainError(.param, hint: "\(source), line \(line): \(what). Nothing was read from it.")
    }

    /// Parses `bytes` (the whole file) named `source` in messages.
    package static func parse(_ bytes: UnsafeRawBufferPointer, source: String) throws(KeychainError) -> Parsed {
        var parser = Parser(bytes: bytes, source: source)
        return try parser.run()
    }

    private struct Parser {
        let bytes: UnsafeRawBufferPointer
        let source: String
        var index = 0
        var line = 1
        var parsed = Parsed()
        var seen: [String: Int] = [:]
        /// The line of the last unquoted value: a bad line right after it is likely its continuation.
        var lastUnquotedLine: Int?

        /// A hint for a bad line that follows an unquoted value.
        var continuation: String {
            lastUnquotedLine == line - 1 ? " (a value spanning lines must be quoted)" : ""
        }

        init(bytes: UnsafeRawBufferPointer, source: String) {
            self.bytes = bytes
            self.source = source
            if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
        }

        var atEnd: Bool { index >= bytes.count }
        var current: UInt8 { bytes[index] }

        func fail(_ what: String, line: Int? = nil) -> KeychainError { DotEnv.error(source, line: line ?? self.line, what) }

        mutating func run() throws(KeychainError) -> Parsed {
            guard String(validating: bytes.bindMemory(to: UInt8.self), as: UTF8.self) != nil else {
                throw fail("the file is not UTF-8", line: 1)
            }
            while !atEnd {
                skip { $0 == 0x20 || $0 == 0x09 }
                if atEnd { break }
                if current == UInt8(ascii: "#") || isLineEnd(current) {
                    skipToLineEnd()
                    endLine()
                    continue
                }
                try assignment()
            }
            return parsed
        }

        mutating func assignment() throws(KeychainError) {
            let startLine = line
            var name = word()
            if name == "export", !atEnd, current == 0x20 || current == 0x09 {
                skip { $0 == 0x20 || $0 == 0x09 }
                name = word()
            }
            // Neither message quotes the line: a bare token, or the second line of an unquoted
            // multi-line value (a pasted key), is a secret.
            guard let first = name.utf8.first, Self.isNameStart(first), name.utf8.allSatisfy(Self.isNameByte) else {
                throw fail(
                    "expected NAME=value, and the line does not start with a variable name ([A-Za-z_][A-Za-z0-9_.-]*)" + continuation)
            }
            skip { $0 == 0x20 || $0 == 0x09 }
            guard !atEnd, current == UInt8(ascii: "=") else { throw fail("expected NAME=value, and the line has no '='" + continuation) }
            index += 1
            skip { $0 == 0x20 || $0 == 0x09 }
            let value = SecretBytes(count: 0)
            var expands = false
            if !atEnd, current == UInt8(ascii: "'") {
                index += 1
                try quoted(into: value, closing: UInt8(ascii: "'"), escapes: false, name: name, expands: &expands)
            } else if !atEnd, current == UInt8(ascii: "\"") {
                index += 1
                try quoted(into: value, closing: UInt8(ascii: "\""), escapes: true, name: name, expands: &expands)
            } else {
                unquoted(into: value, expands: &expands)
                lastUnquotedLine = startLine
            }
            skip { $0 == 0x20 || $0 == 0x09 }
            if !atEnd, !isLineEnd(current) {
                guard current == UInt8(ascii: "#") else { throw fail("\(name): unexpected text after the closing quote") }
                skipToLineEnd()
            }
            if let earlier = seen[name] {
                throw fail("\(name) is assigned twice (lines \(earlier) and \(startLine))", line: startLine)
            }
            seen[name] = startLine
            if expands {
                parsed.warnings.append(
                    "\(source), line \(startLine): \(name) uses $ outside single quotes; nothing is expanded, the value is taken as written."
                )
            }
            parsed.entries.append(Entry(name: name, value: value, line: startLine))
            endLine()
        }

        /// An unquoted value: to the end of the line or a ` #` comment, trailing blanks trimmed.
        mutating func unquoted(into value: SecretBytes, expands: inout Bool) {
            let start = index
            var end = index
            while !atEnd, !isLineEnd(current) {
                if current == UInt8(ascii: "#"), index > start, bytes[index - 1] == 0x20 || bytes[index - 1] == 0x09 { break }
                if current == UInt8(ascii: "$") { expands = true }
                index += 1
                if bytes[index - 1] != 0x20, bytes[index - 1] != 0x09 { end = index }
            }
            value.append(UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
        }

        /// A quoted value up to its closing quote, across lines.
        mutating func quoted(into value: SecretBytes, closing: UInt8, escapes: Bool, name: String, expands: inout Bool)
            throws(KeychainError)
        {
            let startLine = line
            while true {
                guard !atEnd else { throw fail("\(name): the quote opened here is never closed", line: startLine) }
                var byte = current
                index += 1
                if byte == closing { return }
                if byte == 0x0D, !atEnd, current == 0x0A { continue }  // CRLF inside quotes is LF
                if byte == 0x0A { line += 1 }
                if escapes, byte == UInt8(ascii: "$") { expands = true }
                if escapes, byte == UInt8(ascii: "\\"), !atEnd {
                    let next = current
                    switch next {
                    case UInt8(ascii: "n"): byte = 0x0A
                    case UInt8(ascii: "r"): byte = 0x0D
                    case UInt8(ascii: "t"): byte = 0x09
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "$"), UInt8(ascii: "`"): byte = next
                    default:
                        append(0x5C, to: value)  // any other escape is kept as written
                        continue
                    }
                    index += 1
                }
                append(byte, to: value)
            }
        }

        func append(_ byte: UInt8, to value: SecretBytes) {
            var copy = byte
            withUnsafeBytes(of: &copy) { value.append($0) }
        }

        mutating func word() -> String {
            let start = index
            while !atEnd, current != UInt8(ascii: "="), current != 0x20, current != 0x09, !isLineEnd(current) { index += 1 }
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        }

        mutating func skip(_ predicate: (UInt8) -> Bool) { while !atEnd, predicate(current) { index += 1 } }

        mutating func skipToLineEnd() { while !atEnd, !isLineEnd(current) { index += 1 } }

        /// Steps over one line ending (LF or CRLF) if there is one.
        mutating func endLine() {
            if !atEnd, current == 0x0D { index += 1 }
            if !atEnd, current == 0x0A { index += 1 }
            line += 1
        }

        func isLineEnd(_ byte: UInt8) -> Bool { byte == 0x0A || byte == 0x0D }

        static func isNameStart(_ byte: UInt8) -> Bool {
            (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F
        }

        static func isNameByte(_ byte: UInt8) -> Bool {
            isNameStart(byte) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2E || byte == 0x2D
        }
    }
}
