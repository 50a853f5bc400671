import KeychainFormats
import KeychainFoundation

/// A small JSON reader over bytes, for `import`: objects keep their members in order, strings are
/// left as ranges of the input so that a secret (`v_Data`) goes from the input's guarded memory
/// to the item's without passing through an ordinary string. Nesting is capped, every error names
/// the byte offset, never the text.
package enum JSONReader {
    /// A parsed value; strings and numbers are ranges of the input.
    package indirect enum Value {
        case object([(key: String, value: Value)])
        case array([Value])
        case string(StringRange)
        case number(String)
        case bool(Bool)
        case null
    }

    /// A string's bytes in the input, between its quotes, with escapes still in them.
    package struct StringRange {
        package let start: Int
        package let end: Int
        package let escaped: Bool
    }

    /// Why a text is not JSON, and where.
    package struct Failure: Error {
        package let offset: Int
        package let what: String
    }

    /// How deep arrays and objects may nest: an item is two levels deep.
    package static let maximumDepth = 16

    /// Parses the one value `bytes` holds (surrounding white space allowed).
    package static func parse(_ bytes: UnsafeRawBufferPointer) throws(Failure) -> Value {
        var parser = Parser(bytes: bytes)
        parser.skipSpace()
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.index == bytes.count else { throw Failure(offset: parser.index, what: "text after the value") }
        return value
    }

    /// The text of `string` in `bytes`, escapes resolved; `nil` for invalid escapes or UTF-8.
    package static func text(_ string: StringRange, in bytes: UnsafeRawBufferPointer) -> String? {
        let out = SecretBytes(count: 0)
        guard unescape(string, in: bytes, into: out) else { return nil }
        return out.withUnsafeBytes { String(validating: $0.bindMemory(to: UInt8.self), as: UTF8.self) }
    }

    /// Appends the bytes of `string` in `bytes`, escapes resolved, to `out` (guarded memory).
    package static func unescape(_ string: StringRange, in bytes: UnsafeRawBufferPointer, into out: SecretBytes) -> Bool {
        guard string.escaped else {
            out.append(UnsafeRawBufferPointer(rebasing: bytes[string.start..<string.end]))
            return true
        }
        var index = string.start
        var pendingHigh: UInt32?
        func put(_ scalar: UInt32) -> Bool {
            guard let unicode = Unicode.Scalar(scalar) else { return false }
            for byte in String(Character(unicode)).utf8 { withUnsafeBytes(of: byte) { out.append($0) } }
            return true
        }
        while index < string.end {
            let byte = bytes[index]
            guard byte == 0x5C else {
                if pendingHigh != nil { return false }
                withUnsafeBytes(of: byte) { out.append($0) }
                index += 1
                continue
            }
            guard index + 1 < string.end else { return false }
            let kind = bytes[index + 1]
            index += 2
            var simple: UInt8?
            switch kind {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): simple = kind
            case UInt8(ascii: "b"): simple = 0x08
            case UInt8(ascii: "f"): simple = 0x0C
            case UInt8(ascii: "n"): simple = 0x0A
            case UInt8(ascii: "r"): simple = 0x0D
            case UInt8(ascii: "t"): simple = 0x09
            case UInt8(ascii: "u"):
                guard index + 4 <= string.end else { return false }
                var code: UInt32 = 0
                for digit in bytes[index..<(index + 4)] {
                    guard let value = hexValue(digit) else { return false }
                    code = code << 4 | value
                }
                index += 4
                if let high = pendingHigh {
                    guard (0xDC00...0xDFFF).contains(code) else { return false }
                    pendingHigh = nil
                    guard put(0x10000 + ((high - 0xD800) << 10) + (code - 0xDC00)) else { return false }
                } else if (0xD800...0xDBFF).contains(code) {
                    pendingHigh = code
                } else {
                    guard put(code) else { return false }
                }
                continue
            default: return false
            }
            if pendingHigh != nil { return false }
            if let simple { withUnsafeBytes(of: simple) { out.append($0) } }
        }
        return pendingHigh == nil
    }

    private static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case 0x30...0x39: UInt32(byte - 0x30)
        case 0x41...0x46: UInt32(byte - 0x37)
        case 0x61...0x66: UInt32(byte - 0x57)
        default: nil
        }
    }

    private struct Parser {
        let bytes: UnsafeRawBufferPointer
        var index = 0

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        func fail(_ what: String) -> Failure { Failure(offset: index, what: what) }

        /// Steps into a container opening at `index` (nested `depth` deep), past the space after it:
        /// whether it closes at once with `close`.
        mutating func open(depth: Int, close: UInt8) throws(Failure) -> Bool {
            guard depth < JSONReader.maximumDepth else { throw fail("nested deeper than \(JSONReader.maximumDepth) levels") }
            index += 1
            skipSpace()
            guard index < bytes.count, bytes[index] == close else { return false }
            index += 1
            return true
        }

        /// After a container's element: past a ',' (true: another element follows) or the `close`
        /// that ends the container `inside` (false).
        mutating func next(close: UInt8, inside: String) throws(Failure) -> Bool {
            skipSpace()
            guard index < bytes.count else { throw fail("the text ends inside \(inside)") }
            index += 1
            if bytes[index - 1] == UInt8(ascii: ",") { return true }
            guard bytes[index - 1] == close else {
                index -= 1
                throw fail("expected ',' or '\(Character(Unicode.Scalar(close)))'")
            }
            return false
        }

        mutating func value(depth: Int) throws(Failure) -> Value {
            guard index < bytes.count else { throw fail("the text ends where a value should be") }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                var members: [(key: String, value: Value)] = []
                if try open(depth: depth, close: UInt8(ascii: "}")) { return .object(members) }
                repeat {
                    skipSpace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a member name") }
                    let keyRange = try string()
                    guard let key = JSONReader.text(keyRange, in: bytes) else { throw fail("a member name that is not text") }
                    skipSpace()
                    guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
                    index += 1
                    skipSpace()
                    members.append((key, try value(depth: depth + 1)))
                } while try next(close: UInt8(ascii: "}"), inside: "an object")
                return .object(members)
            case UInt8(ascii: "["):
                var elements: [Value] = []
                if try open(depth: depth, close: UInt8(ascii: "]")) { return .array(elements) }
                repeat {
                    skipSpace()
                    elements.append(try value(depth: depth + 1))
                } while try next(close: UInt8(ascii: "]"), inside: "an array")
                return .array(elements)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): return try literal("true", .bool(true))
            case UInt8(ascii: "f"): return try literal("false", .bool(false))
            case UInt8(ascii: "n"): return try literal("null", .null)
            default: return try number()
            }
        }

        mutating func literal(_ word: String, _ value: Value) throws(Failure) -> Value {
            let text = Array(word.utf8)
            guard index + text.count <= bytes.count, bytes[index..<(index + text.count)].elementsEqual(text) else {
                throw fail("not a JSON value")
            }
            index += text.count
            return value
        }

        mutating func number() throws(Failure) -> Value {
            let start = index
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) || [0x2D, 0x2B, 0x2E, 0x45, 0x65].contains(bytes[index]) {
                index += 1
            }
            guard index > start, index - start <= 40 else { throw fail("not a JSON value") }
            return .number(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
        }

        /// A string at `index` (its opening quote); control characters must be escaped.
        mutating func string() throws(Failure) -> StringRange {
            index += 1
            let start = index
            var escaped = false
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    defer { index += 1 }
                    return StringRange(start: start, end: index, escaped: escaped)
                }
                if byte < 0x20 { throw fail("a control character inside a string") }
                if byte == 0x5C {
                    escaped = true
                    index += 1
                }
                index += 1
            }
            throw fail("a string that never ends")
        }
    }
}
