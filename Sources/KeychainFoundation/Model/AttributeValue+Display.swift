import TextEscaping

/// Human-readable text for a value (text output and hints).
extension AttributeValue {
    /// The explicit forms the command line reads (`parse`): data, and literal text.
    package static let base64Prefix = "base64:"
    package static let textPrefix = "text:"

    /// `text` as command-line attribute text that `parse` reads back as that very text: behind
    /// `text:` when it begins with an explicit form's prefix (a name `set` was given, say).
    package static func literal(_ text: String) -> String {
        text.hasPrefix(base64Prefix) || text.hasPrefix(textPrefix) ? textPrefix + text : text
    }

    /// The value as the command line gives it back for attribute `kind`, so that a listing's word
    /// finds the item again: data in a string attribute as `base64:…` (its text would be a string,
    /// which a query does not match against data), and text that begins with an explicit form's
    /// prefix behind `text:`. Otherwise `displayText`.
    package func commandLineText(for kind: ValueKind) -> String {
        switch (self, kind) {
        case (.data(let bytes), .string), (.data(let bytes), .fourCharCode):
            return Self.base64Prefix + Base64.encode(bytes)
        case (.string(let text), _), (.fourCharCode(let text), _):
            return text.hasPrefix(Self.base64Prefix) || text.hasPrefix(Self.textPrefix) ? Self.textPrefix + text.terminalSafe : displayText
        case (.data(let bytes), _):
            // Shown as its text when printable (displayText); that text behind `text:` when it
            // would read as an explicit form.
            guard let text = String(validating: bytes, as: UTF8.self), !text.containsControlCharacters,
                text.hasPrefix(Self.base64Prefix) || text.hasPrefix(Self.textPrefix)
            else { return displayText }
            return Self.textPrefix + text
        default:
            return displayText
        }
    }

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
