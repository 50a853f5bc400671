import KeychainFoundation
import KeychainPlatform

/// Reads an XML property list (Apple's `PropertyList-1.0.dtd`, as CoreFoundation's
/// `CFPropertyList.c` parses it): `<plist>` around one value (or the value alone), comments,
/// processing instructions and a DOCTYPE between elements, CDATA sections and the five named and
/// numeric character references in text.
///
/// One pass, each byte looked at a bounded number of times; it recurses once per nesting level and
/// stops at `PlistValue.maximumDepth`. Entity declarations are refused outright (they are how a
/// small file expands to gigabytes) and so are elements outside the DTD. The bytes are valid UTF-8
/// already (`ProfileDocument` checks).
package struct XMLPlistReader {
    private let bytes: [UInt8]
    private var index = 0

    package init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The one value of the document.
    package mutating func read() throws(PlistProblem) -> PlistValue {
        if find("<!ENTITY", from: 0) != nil { throw .hostile("it declares XML entities") }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }  // a byte-order mark
        try skipMisc()
        guard let (name, empty) = try openTag() else { throw problem("no property list element") }
        let value: PlistValue
        if name == "plist" {
            guard !empty else { throw problem("the plist element holds no value") }
            try skipMisc()
            guard let (inner, innerEmpty) = try openTag() else { throw problem("the plist element holds no value") }
            value = try element(inner, empty: innerEmpty, depth: 0)
            try skipMisc()
            try closeTag("plist")
        } else {
            value = try element(name, empty: empty, depth: 0)
        }
        try skipMisc()
        guard index == bytes.count else { throw problem("text after the property list") }
        return value
    }

    /// The element `name` whose start tag was just read, and its content; `depth` is its parent's.
    private mutating func element(_ name: String, empty: Bool, depth: Int) throws(PlistProblem) -> PlistValue {
        switch name {
        case "dict":
            guard depth < PlistValue.maximumDepth else { throw .tooDeep }
            var members: [String: PlistValue] = [:]
            while !empty {
                try skipMisc()
                if at("</") { break }
                guard let (keyTag, keyEmpty) = try openTag(), keyTag == "key" else {
                    throw problem("a dictionary entry does not start with <key>")
                }
                let key = keyEmpty ? "" : try textUntilClose("key")
                try skipMisc()
                guard let (valueTag, valueEmpty) = try openTag() else { throw problem("the key \(key) has no value") }
                guard members[key] == nil else { throw problem("the key \(key) appears twice in one dictionary") }
                members[key] = try element(valueTag, empty: valueEmpty, depth: depth + 1)
            }
            if !empty { try closeTag("dict") }
            return .dictionary(members)
        case "array":
            guard depth < PlistValue.maximumDepth else { throw .tooDeep }
            var elements: [PlistValue] = []
            while !empty {
                try skipMisc()
                if at("</") { break }
                guard let (tag, tagEmpty) = try openTag() else { throw problem("an array holds text outside any element") }
                elements.append(try element(tag, empty: tagEmpty, depth: depth + 1))
            }
            if !empty { try closeTag("array") }
            return .array(elements)
        case "string":
            return .string(empty ? "" : try textUntilClose("string"))
        case "true", "false":
            if !empty { try closeTag(name) }  // nothing between the tags, as CFPropertyList insists
            return .bool(name == "true")
        case "date":
            let text = empty ? "" : try textUntilClose(name)
            return ISO8601.parse(text).map(PlistValue.date) ?? .other
        case "integer", "real", "data":
            if !empty { _ = try textUntilClose(name) }
            return .other
        default:
            throw problem("<\(name)> is not a property list element")
        }
    }

    // MARK: Markup

    /// Reads a start tag (`<name attributes>` or `<name attributes/>`) at the current position;
    /// `nil`, reading nothing, when there is none.
    private mutating func openTag() throws(PlistProblem) -> (name: String, empty: Bool)? {
        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "<"), Self.isNameByte(bytes[index + 1]) else { return nil }
        let start = index + 1
        var end = start
        while end < bytes.count, Self.isNameByte(bytes[end]) { end += 1 }
        let name = String(decoding: bytes[start..<end], as: UTF8.self)
        index = end
        // Attributes are skipped to the first ">", quoted or not, as CFPropertyList skips them.
        while index < bytes.count, bytes[index] != UInt8(ascii: "<") {
            index += 1
            if bytes[index - 1] == UInt8(ascii: ">") { return (name, bytes[index - 2] == UInt8(ascii: "/")) }
        }
        throw problem("the <\(name)> tag is not closed")
    }

    /// Reads `</name>`, with optional white space before the `>`.
    private mutating func closeTag(_ name: String) throws(PlistProblem) {
        let expected = Array("</\(name)".utf8)
        guard bytes[index...].starts(with: expected) else { throw problem("expected </\(name)>") }
        index += expected.count
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ">") else { throw problem("expected </\(name)>") }
        index += 1
    }

    /// Skips white space, comments, processing instructions and a DOCTYPE.
    private mutating func skipMisc() throws(PlistProblem) {
        while true {
            skipWhitespace()
            if at("<!--") {
                guard let end = find("-->", from: index + 4) else { throw problem("a comment is not closed") }
                index = end + 3
            } else if at("<?") {
                guard let end = find("?>", from: index + 2) else { throw problem("a processing instruction is not closed") }
                index = end + 2
            } else if at("<!DOCTYPE") {
                try skipDoctype()
            } else {
                return
            }
        }
    }

    /// Skips `<!DOCTYPE …>`, including an internal subset in brackets and quoted identifiers.
    private mutating func skipDoctype() throws(PlistProblem) {
        var quote: UInt8? = nil
        var brackets = 0
        index += 9
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: "[") {
                brackets += 1
            } else if byte == UInt8(ascii: "]") {
                brackets -= 1
            } else if byte == UInt8(ascii: ">"), brackets <= 0 {
                return
            }
        }
        throw problem("the DOCTYPE is not closed")
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x09 || bytes[index] == 0x0D {
            index += 1
        }
    }

    // MARK: Text

    /// The text up to `</name>` (CDATA sections kept as written, character references replaced),
    /// and the end tag read.
    private mutating func textUntilClose(_ name: String) throws(PlistProblem) -> String {
        var text: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "<") {
                guard at("<![CDATA[") else { break }
                guard let end = find("]]>", from: index + 9) else { throw problem("a CDATA section is not closed") }
                text += bytes[(index + 9)..<end]
                index = end + 3
            } else if byte == UInt8(ascii: "&") {
                try appendReference(to: &text)
            } else {
                text.append(byte)
                index += 1
            }
        }
        guard index < bytes.count else { throw problem("<\(name)> is not closed") }
        try closeTag(name)
        return String(decoding: text, as: UTF8.self)
    }

    /// Reads `&name;` or `&#n;` / `&#xh;` and appends the character it stands for as UTF-8.
    private mutating func appendReference(to text: inout [UInt8]) throws(PlistProblem) {
        let start = index + 1
        guard let semicolon = bytes[start..<min(bytes.count, start + 12)].firstIndex(of: UInt8(ascii: ";")) else {
            throw problem("an & in text does not start a character reference")
        }
        let name = String(decoding: bytes[start..<semicolon], as: UTF8.self)
        let scalar: Unicode.Scalar?
        switch name {
        case "lt": scalar = "<"
        case "gt": scalar = ">"
        case "amp": scalar = "&"
        case "quot": scalar = "\""
        case "apos": scalar = "'"
        default:
            var digits = Substring(name)
            var radix = 10
            if digits.hasPrefix("#x") {
                digits = digits.dropFirst(2)
                radix = 16
            } else if digits.hasPrefix("#") {
                digits = digits.dropFirst()
            } else {
                throw problem("&\(name); is not a character reference XML property lists have")
            }
            scalar = UInt32(digits, radix: radix).flatMap(Unicode.Scalar.init).flatMap { $0.value == 0 ? nil : $0 }
        }
        guard let scalar else { throw problem("&\(name); is not a valid character") }
        text += Array(String(Character(scalar)).utf8)
        index = semicolon + 1
    }

    // MARK: Helpers

    private static func isNameByte(_ byte: UInt8) -> Bool {
        (0x61...0x7A).contains(byte) || (0x41...0x5A).contains(byte) || (0x30...0x39).contains(byte)
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":")
    }

    private func at(_ literal: String) -> Bool { bytes[index...].starts(with: literal.utf8) }

    /// Where `literal` next occurs at or after `start`.
    private func find(_ literal: String, from start: Int) -> Int? {
        bytes[min(start, bytes.count)...].firstRange(ofBytes: literal.utf8)?.lowerBound
    }

    /// A syntax error at the current position.
    private func problem(_ text: String) -> PlistProblem {
        var line = 1
        for byte in bytes[..<min(index, bytes.count)] where byte == 0x0A { line += 1 }
        return .malformed("line \(line): \(text)")
    }
}
