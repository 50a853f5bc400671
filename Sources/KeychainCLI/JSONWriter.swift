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
        case .string(let text):
            var quoted = ""
            quote(text, to: &quoted)
            out.append(quoted)
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
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { out.append(",") }
                var quoted = ""
                quote(key, to: &quoted)
                out.append(quoted + ":")
                write(members[key]!, to: &out)
            }
            out.append("}")
        }
    }

    private static func quote(_ text: String, to out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
