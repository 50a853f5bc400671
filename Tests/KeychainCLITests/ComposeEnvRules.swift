/// How docker compose reads a `.env` file, written from its documentation ("Set environment
/// variables", the env file syntax: comments, `export`, quoting, escapes, interpolation) and its
/// parser's reading of the cases the page leaves open (compose-go's `dotenv` package: an escaped
/// quote, the escapes double quotes take). Docker is not installed on the test machines, so the
/// dotenv tests read keychainctl's output with this.
///
/// - `#` starts a comment line; blank lines are skipped; `export ` before a name is dropped.
/// - Unquoted values end at the line's end or at ` #`, trailing spaces trimmed, and interpolated.
/// - Single-quoted values are literal, except `\'`, which is a quote; they may span lines.
/// - Double-quoted values may span lines; `\"` is a quote, and then `\n`, `\r`, `\t`, `\\`, `\a`,
///   `\b`, `\f`, `\v` and `\$` are unescaped; the result is interpolated (`$$` is `$`,
///   `$NAME` and `${NAME}` are the variable's value, empty when it is unset).
enum ComposeEnvRules {
    struct Unreadable: Error, CustomStringConvertible { let description: String }

    static func parse(_ bytes: [UInt8], variables: [String: String] = [:]) throws -> [String: [UInt8]] {
        var out: [String: [UInt8]] = [:]
        var index = 0
        func skipSpaces() { while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 } }
        while index < bytes.count {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
            guard index < bytes.count else { break }
            if bytes[index] == UInt8(ascii: "#") {
                while index < bytes.count, bytes[index] != 0x0A { index += 1 }
                continue
            }
            if bytes[index...].starts(with: Array("export ".utf8)) { index += 7 }
            skipSpaces()
            let nameStart = index
            while index < bytes.count, bytes[index] != UInt8(ascii: "=") {
                guard bytes[index] != 0x0A else { throw Unreadable(description: "a line without '='") }
                index += 1
            }
            guard index < bytes.count else { throw Unreadable(description: "a line without '='") }
            let name = String(decoding: bytes[nameStart..<index], as: UTF8.self).trimmingTrailingSpaces
            index += 1
            skipSpaces()
            let quote = index < bytes.count ? bytes[index] : 0
            guard quote == UInt8(ascii: "'") || quote == UInt8(ascii: "\"") else {
                let end = bytes[index...].firstIndex(of: 0x0A) ?? bytes.count
                var value = Array(bytes[index..<end])
                if let comment = value.firstRange(ofBytes: Array(" #".utf8)) { value = Array(value[..<comment.lowerBound]) }
                while let last = value.last, last == 0x20 || last == 0x09 || last == 0x0D { value.removeLast() }
                out[name] = try interpolate(value, variables)
                index = end
                continue
            }
            index += 1
            var chars: [UInt8] = []
            var escaped = false
            var closed = false
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                if byte == quote {
                    if escaped {
                        chars.append(byte)
                        escaped = false
                        continue
                    }
                    closed = true
                    break
                }
                if escaped {
                    chars += [UInt8(ascii: "\\"), byte]
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else {
                    chars.append(byte)
                }
            }
            guard closed else { throw Unreadable(description: "an unterminated quoted value") }
            out[name] = quote == UInt8(ascii: "'") ? chars : try interpolate(unescape(chars), variables)
        }
        return out
    }

    /// The double-quoted escapes; `\$` stays a dollar that interpolation does not expand.
    private static func unescape(_ chars: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var index = 0
        let table: [UInt8: [UInt8]] = [
            UInt8(ascii: "n"): [0x0A], UInt8(ascii: "r"): [0x0D], UInt8(ascii: "t"): [0x09], UInt8(ascii: "\\"): [0x5C],
            UInt8(ascii: "a"): [0x07], UInt8(ascii: "b"): [0x08], UInt8(ascii: "f"): [0x0C], UInt8(ascii: "v"): [0x0B],
            UInt8(ascii: "\""): [0x22], UInt8(ascii: "$"): Array("$$".utf8),
        ]
        while index < chars.count {
            if chars[index] == UInt8(ascii: "\\"), index + 1 < chars.count, let replacement = table[chars[index + 1]] {
                out += replacement
                index += 2
            } else {
                out.append(chars[index])
                index += 1
            }
        }
        return out
    }

    /// `$$` is a dollar; `$NAME` and `${NAME}` are the variable's value (empty when unset).
    private static func interpolate(_ value: [UInt8], _ variables: [String: String]) throws -> [UInt8] {
        var out: [UInt8] = []
        var index = 0
        func isNameByte(_ byte: UInt8) -> Bool {
            byte == 0x5F || (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
        }
        while index < value.count {
            guard value[index] == UInt8(ascii: "$"), index + 1 < value.count else {
                out.append(value[index])
                index += 1
                continue
            }
            let next = value[index + 1]
            if next == UInt8(ascii: "$") {
                out.append(next)
                index += 2
            } else if next == UInt8(ascii: "{") {
                guard let close = value[(index + 2)...].firstIndex(of: UInt8(ascii: "}")) else {
                    throw Unreadable(description: "an unclosed ${")
                }
                out += Array((variables[String(decoding: value[(index + 2)..<close], as: UTF8.self)] ?? "").utf8)
                index = close + 1
            } else if isNameByte(next) {
                var end = index + 1
                while end < value.count, isNameByte(value[end]) { end += 1 }
                out += Array((variables[String(decoding: value[(index + 1)..<end], as: UTF8.self)] ?? "").utf8)
                index = end
            } else {
                out.append(value[index])
                index += 1
            }
        }
        return out
    }
}

extension String {
    fileprivate var trimmingTrailingSpaces: String {
        var text = self
        while text.last == " " || text.last == "\t" { text.removeLast() }
        return text
    }
}
