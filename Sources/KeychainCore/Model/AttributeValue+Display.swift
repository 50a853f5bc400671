/// Human-readable text for a value (text output and hints).
extension AttributeValue {
    /// Strings as they are, numbers in decimal, booleans as yes/no, dates in ISO-8601, data as
    /// text when it is printable UTF-8 and as base64 otherwise.
    package var displayText: String {
        switch self {
        case .string(let text), .fourCharCode(let text): text
        case .number(let value): String(value)
        case .bool(let value): value ? "yes" : "no"
        case .date(let milliseconds): ISO8601.format(milliseconds)
        case .data(let bytes):
            if let text = String(validating: bytes, as: UTF8.self), text.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F })
            {
                text
            } else {
                "base64:" + Base64.encode(bytes)
            }
        }
    }
}
