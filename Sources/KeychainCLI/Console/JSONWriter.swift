import KeychainCore

/// A small JSON writer: objects with sorted keys, no Foundation at start-up.
enum JSON {
    /// A JSON value.
    indirect enum Value {
        case string(String)
        case number(Int64)
        case bool(Bool)
        case null
        case array([Value])
        case object([String: Value])
        /// A string that is a secret, already base64 (no quoting needed), in guarded memory.
        case secret(SecretBytes)
    }

    /// Compact text of `value`, keys sorted; `value` must hold no secret.
    static func render(_ value: Value) -> String { output(value).publicText }

    /// Compact output of `value`, keys sorted, secrets kept in guarded memory.
    static func output(_ value: Value) -> Output {
        var out = Output()
        write(value, to: &out)
        return out
    }

    private static func write(_ value: Value, to out: inout Output) {
        switch value {
        case .secret(let secret):
            out.append("\"")
            out.append(secret: secret)
            out.append("\"")
        case .string(let text): quote(text, to: &out)
        case .number(let number): out.append(String(number))
        case .bool(let flag): out.append(flag ? "true" : "false")
        case .null: out.append("null")
        case .array(let elements):
            out.append("[")
            for (index, element) in elements.enumerated() {
                if index > 0 { out.append(",") }
                write(element, to: &out)
            }
            out.append("]")
        case .object(let members):
            out.append("{")
            for (index, member) in members.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { out.append(",") }
                quote(member.key, to: &out)
                out.append(":")
                write(member.value, to: &out)
            }
            out.append("}")
        }
    }

    /// Appends `text` as a JSON string: `"` and `\\` escaped, control characters (and DEL) as
    /// escapes, everything else as it is. Works on UTF-8 bytes: a report of 10,000 items quotes
    /// 200,000 strings.
    private static func quote(_ text: String, to out: inout Output) {
        out.append(utf8: 0x22)
        for byte in text.utf8 {
            switch byte {
            case 0x22, 0x5C:
                out.append(utf8: 0x5C)
                out.append(utf8: byte)
            case 0x0A: out.append("\\n")
            case 0x0D: out.append("\\r")
            case 0x09: out.append("\\t")
            case 0..<0x20, 0x7F:
                let hex = Array("0123456789abcdef".utf8)
                out.append("\\u00")
                out.append(utf8: hex[Int(byte >> 4)])
                out.append(utf8: hex[Int(byte & 0xF)])
            default: out.append(utf8: byte)
            }
        }
        out.append(utf8: 0x22)
    }
}
