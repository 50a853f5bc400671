import TextEscaping

/// Human-readable text for a value (text output and hints).
extension AttributeValue {
    /// Strings with control characters escaped (`String.terminalSafe`), numbers in decimal,
    /// booleans as yes/no, dates in ISO-8601, data as text when it is printable UTF-8 (no control
    /// character) and as base64 otherwise.
    package var displayText: String {
        switch self {
        case .string(let text), .fourCharCode(let text): text.terminalSafe
        case .number(let value): String(value)
        case .bool(let value): value ? "yes" : "no"
        case .date(let milliseconds): ISO8601.format(milliseconds)
        case .data(let bytes):
            if let text = String(validating: bytes, as: UTF8.self), !text.containsControlCharacters {
                text
            } else {
                "base64:" + Base64.encode(bytes)
            }
        }
    }
}
