import KeychainFoundation
import TextEscaping

/// A property list written as Apple's XML format, for a user to read and edit (`profile show`):
/// keys sorted, text escaped. Values keychainctl does not read (numbers, data, sets, dates it could
/// not represent) are written as a comment naming the key, since their bytes were never kept.
package enum PlistXMLWriter {
    package static func document(_ value: PlistValue) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """ + element(value, depth: 0) + "</plist>\n"
    }

    private static func element(_ value: PlistValue, depth: Int) -> String {
        let indent = String(repeating: "\t", count: depth)
        switch value {
        case .string(let text): return indent + "<string>\(escaped(text))</string>\n"
        case .bool(let flag): return indent + (flag ? "<true/>\n" : "<false/>\n")
        case .date(let milliseconds): return indent + "<date>\(ISO8601.format(milliseconds).prefix(19))Z</date>\n"
        case .other: return indent + "<!-- a value keychainctl does not read: copy it from the original -->\n"
        case .array(let elements):
            guard !elements.isEmpty else { return indent + "<array/>\n" }
            return indent + "<array>\n" + elements.map { element($0, depth: depth + 1) }.joined() + indent + "</array>\n"
        case .dictionary(let entries):
            guard !entries.isEmpty else { return indent + "<dict/>\n" }
            let keys = entries.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            return indent + "<dict>\n"
                + keys.map { "\(indent)\t<key>\(escaped($0))</key>\n" + element(entries[$0]!, depth: depth + 1) }.joined()
                + indent + "</dict>\n"
        }
    }

    /// `text` with `&`, `<` and `>` escaped (control characters cannot be in a plist at all, and
    /// the readers refuse them in groups: they are written as character references).
    private static func escaped(_ text: String) -> String {
        text.escaping { scalar in
            switch scalar {
            case "&": "&amp;"
            case "<": "&lt;"
            case ">": "&gt;"
            case "\t", "\n": nil
            case _ where scalar.value < 0x20: "&#\(scalar.value);"
            default: nil
            }
        }
    }
}
