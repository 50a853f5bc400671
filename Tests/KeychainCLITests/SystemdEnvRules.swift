/// How systemd reads an `EnvironmentFile=` (systemd.exec(5), and its parser's states): `#` and
/// `;` start comment lines; single-quoted values are literal and may span lines; in double quotes
/// a backslash before `"`, `\`, `` ` `` or `$` is dropped, before a line break both go, and before
/// anything else it stays; unquoted values are trimmed, a backslash there keeps the next byte.
enum SystemdEnvRules {
    static func parse(_ bytes: [UInt8]) -> [String: [UInt8]] {
        enum State { case preKey, key, preValue, value, valueEscape, single, double, doubleEscape, comment }
        var out: [String: [UInt8]] = [:]
        var state = State.preKey
        var key: [UInt8] = []
        var value: [UInt8] = []
        func push() {
            var name = key
            while let last = name.last, last == 0x20 || last == 0x09 { name.removeLast() }
            out[String(decoding: name, as: UTF8.self)] = value
            key = []
            value = []
        }
        for byte in bytes {
            let space = byte == 0x20 || byte == 0x09 || byte == 0x0D
            switch state {
            case .preKey:
                if byte == UInt8(ascii: "#") || byte == UInt8(ascii: ";") {
                    state = .comment
                } else if !space && byte != 0x0A {
                    state = .key
                    key = [byte]
                }
            case .key:
                if byte == 0x0A {
                    state = .preKey
                    key = []
                } else if byte == UInt8(ascii: "=") {
                    state = .preValue
                } else {
                    key.append(byte)
                }
            case .preValue:
                if byte == 0x0A {
                    push()
                    state = .preKey
                } else if byte == UInt8(ascii: "'") {
                    state = .single
                } else if byte == UInt8(ascii: "\"") {
                    state = .double
                } else if byte == UInt8(ascii: "\\") {
                    state = .valueEscape
                } else if !space {
                    state = .value
                    value.append(byte)
                }
            case .value:
                if byte == 0x0A {
                    while let last = value.last, last == 0x20 || last == 0x09 { value.removeLast() }
                    push()
                    state = .preKey
                } else if byte == UInt8(ascii: "\\") {
                    state = .valueEscape
                } else {
                    value.append(byte)
                }
            case .valueEscape:
                state = .value
                if byte != 0x0A { value.append(byte) }
            case .single:
                if byte == UInt8(ascii: "'") { state = .preValue } else { value.append(byte) }
            case .double:
                if byte == UInt8(ascii: "\"") {
                    state = .preValue
                } else if byte == UInt8(ascii: "\\") {
                    state = .doubleEscape
                } else {
                    value.append(byte)
                }
            case .doubleEscape:
                state = .double
                if Array("\"\\`$".utf8).contains(byte) {
                    value.append(byte)
                } else if byte != 0x0A {
                    value += [UInt8(ascii: "\\"), byte]
                }
            case .comment:
                if byte == 0x0A { state = .preKey }
            }
        }
        if [.preValue, .value, .valueEscape, .single, .double, .doubleEscape].contains(state) { push() }
        return out
    }
}
