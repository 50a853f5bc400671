import KeychainFoundation
import TextEscaping

/// Reads the DER form of entitlements that codesign writes beside the XML one (the code
/// signature's slot 7, magic 0xfade7172; a simulator build's `__TEXT,__ents_der` section):
/// CoreEntitlements' `[APPLICATION 16] { INTEGER version, dictionary }`, where a dictionary is
/// `[CONTEXT 16]` (or, in the first version, a SET) of `SEQUENCE { UTF8String key, value }`, an array a
/// SEQUENCE, a string a UTF8String and a boolean a BOOLEAN.
///
/// Untrusted input, read as the plist readers read: one pass, linear in its size, recursing once
/// per nesting level up to `PlistValue.maximumDepth`; lengths are definite and must fit inside
/// what holds them; a key given twice, a string that is not UTF-8 or trailing bytes are refused.
/// Integers and data are kept as `.other`, never converted.
package struct DEREntitlementsReader {
    /// `[APPLICATION 16]`, constructed: the first byte of every DER entitlements blob.
    package static let entitlementsTag: UInt8 = 0x70
    private static let dictionaryTags: Set<UInt8> = [0xB0, 0x31]
    private static let sequenceTag: UInt8 = 0x30
    private static let utf8StringTag: UInt8 = 0x0C
    private static let booleanTag: UInt8 = 0x01
    private static let integerTag: UInt8 = 0x02
    private static let octetStringTag: UInt8 = 0x04

    private let bytes: [UInt8]

    /// Whether `bytes` are one DER entitlements element and nothing else: the tag, then a length
    /// that covers exactly the rest (a text file that happens to start with `p` is not).
    package static func looksLikeDER(_ bytes: some Collection<UInt8>) -> Bool {
        let head = Array(bytes.prefix(6))
        guard head.count >= 2, head[0] == entitlementsTag else { return false }
        let first = Int(head[1])
        guard first & 0x80 != 0 else { return first == bytes.count - 2 }
        let count = first & 0x7F
        guard count >= 1, count <= 4, head.count >= 2 + count else { return false }
        return Int(ByteOrder.bigEndian(head[2..<2 + count])) == bytes.count - 2 - count
    }

    package init(_ bytes: ArraySlice<UInt8>) { self.bytes = Array(bytes) }

    /// The entitlements dictionary.
    package func read() throws(PlistProblem) -> PlistValue {
        var at = 0
        let (tag, body) = try element(&at, end: bytes.count)
        guard tag == Self.entitlementsTag else { throw .malformed("its DER does not start with the entitlements tag") }
        guard at == bytes.count else { throw .malformed("bytes follow its DER entitlements") }
        var inside = body.lowerBound
        let (versionTag, _) = try element(&inside, end: body.upperBound)
        guard versionTag == Self.integerTag else { throw .malformed("its DER entitlements have no version") }
        let (dictionaryTag, dictionary) = try element(&inside, end: body.upperBound)
        guard Self.dictionaryTags.contains(dictionaryTag), inside == body.upperBound else {
            throw .malformed("its DER entitlements are not one dictionary")
        }
        return try value(dictionaryTag, dictionary, depth: 1)
    }

    /// One tag and the range of its body, read at `at` (which moves past it) before `end`.
    private func element(_ at: inout Int, end: Int) throws(PlistProblem) -> (UInt8, Range<Int>) {
        guard end - at >= 2 else { throw .malformed("its DER is truncated") }
        let tag = bytes[at]
        // Multi-byte tags (low five bits all set) are not part of the format.
        guard tag & 0x1F != 0x1F else { throw .malformed("its DER uses a tag form entitlements never use") }
        let first = Int(bytes[at + 1])
        at += 2
        var length = first
        if first & 0x80 != 0 {
            let count = first & 0x7F
            // 0x80 is BER's indefinite length; more than four length bytes is more than any profile.
            guard count >= 1, count <= 4, end - at >= count else { throw .malformed("its DER has a length it cannot hold") }
            length = Int(ByteOrder.bigEndian(bytes[at..<at + count]))
            at += count
        }
        guard length <= end - at else { throw .malformed("its DER runs past its end") }
        defer { at += length }
        return (tag, at..<at + length)
    }

    private func value(_ tag: UInt8, _ body: Range<Int>, depth: Int) throws(PlistProblem) -> PlistValue {
        switch tag {
        case Self.utf8StringTag:
            guard let text = String(validating: bytes[body], as: UTF8.self) else { throw .malformed("a DER string is not UTF-8") }
            return .string(text)
        case Self.booleanTag:
            guard body.count == 1 else { throw .malformed("a DER boolean is not one byte") }
            return .bool(bytes[body.lowerBound] != 0)
        case Self.integerTag, Self.octetStringTag:
            return .other
        case Self.sequenceTag:
            guard depth < PlistValue.maximumDepth else { throw .tooDeep }
            var elements: [PlistValue] = []
            var at = body.lowerBound
            while at < body.upperBound {
                let (tag, inner) = try element(&at, end: body.upperBound)
                elements.append(try value(tag, inner, depth: depth + 1))
            }
            return .array(elements)
        case _ where Self.dictionaryTags.contains(tag):
            guard depth < PlistValue.maximumDepth else { throw .tooDeep }
            var entries: [String: PlistValue] = [:]
            var at = body.lowerBound
            while at < body.upperBound {
                let (pairTag, pair) = try element(&at, end: body.upperBound)
                guard pairTag == Self.sequenceTag else { throw .malformed("a DER dictionary entry is not a key and a value") }
                var inside = pair.lowerBound
                let (keyTag, key) = try element(&inside, end: pair.upperBound)
                guard keyTag == Self.utf8StringTag, let name = String(validating: bytes[key], as: UTF8.self) else {
                    throw .malformed("a DER dictionary key is not a UTF-8 string")
                }
                let (valueTag, valueBody) = try element(&inside, end: pair.upperBound)
                guard inside == pair.upperBound else { throw .malformed("a DER dictionary entry holds more than a key and a value") }
                guard entries.updateValue(try value(valueTag, valueBody, depth: depth + 1), forKey: name) == nil else {
                    throw .hostile("the key \(name.terminalSafe) appears twice in one dictionary")
                }
            }
            return .dictionary(entries)
        default:
            throw .malformed("its DER holds a value of tag 0x\(String(tag, radix: 16)), which entitlements never use")
        }
    }
}
