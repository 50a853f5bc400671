import KeychainFoundation
import Testing

/// Values compare as Apple's SQLite compares what `SecDbBindObject` binds: by storage class, then
/// bytes; and the keyed digest keeps a value of its attribute's own kind as it always was, so files
/// written before keep their digests, while another kind of the same bytes is another key.
@Suite struct AttributeBindingTests {
    @Test func aStringAndDataOfTheSameBytesDiffer() {
        #expect(!AttributeValue.string("alice").matches(.data(Array("alice".utf8))))
        #expect(AttributeValue.data([]).matches(.string("")))
        #expect(!AttributeValue.number(5).matches(.string("5")))
        #expect(AttributeValue.bool(true).matches(.number(1)))
    }

    @Test func aValueOfItsAttributesKindHashesItsBytesAsBefore() {
        let natural: [(AttributeValue, ValueKind)] = [
            (.string("alice"), .string), (.data([1, 2]), .data), (.data([]), .string), (.string(""), .data), (.number(443), .number),
            (.string(""), .number), (.fourCharCode("htps"), .fourCharCode), (.bool(true), .bool), (.date(1000), .date),
        ]
        for (value, kind) in natural { #expect(value.digestBytes(for: kind) == value.canonicalBytes, "\(value) as \(kind)") }
    }

    @Test func anotherKindOfTheSameBytesIsAnotherKey() {
        let alice = Array("alice".utf8)
        #expect(AttributeValue.data(alice).digestBytes(for: .string) != AttributeValue.string("alice").digestBytes(for: .string))
        #expect(AttributeValue.string("alice").digestBytes(for: .data) != AttributeValue.data(alice).digestBytes(for: .data))
        #expect(AttributeValue.number(5).digestBytes(for: .string) != AttributeValue.string("5").digestBytes(for: .string))
        // No text hashes like a marked value: UTF-8 never holds 0xFF.
        #expect(AttributeValue.data(alice).digestBytes(for: .string).first == 0xFF)
    }

    /// The digest reads a value's bytes in place for the common kinds; every value of every case,
    /// under every kind, must lend exactly the bytes `digestBytes(for:)` builds.
    @Test func theBytesLentInPlaceAreTheBytesBuilt() {
        let values: [AttributeValue] = [
            .string("alice"), .string(""), .string("é\u{0}x"), .fourCharCode("htps"), .data([1, 2]), .data([]), .number(443), .number(-7),
            .bool(true), .bool(false), .date(1_700_000_000_000), .date(-1),
        ]
        let kinds: [ValueKind] = [.string, .fourCharCode, .data, .number, .bool, .date]
        for value in values {
            for kind in kinds {
                #expect(value.withDigestBytes(for: kind) { Array($0) } == value.digestBytes(for: kind), "\(value) as \(kind)")
            }
        }
    }

    /// Bytes become text only when they are valid UTF-8 as they are: a repaired string never
    /// stands for them (it would equal another value's bytes).
    @Test func textFromBytesIsExactOrNothing() {
        func text(_ bytes: [UInt8]) -> String? { bytes.withUnsafeBytes { String(exactly: $0) } }
        #expect(text(Array("api-token".utf8)) == "api-token")
        #expect(text(Array("é€😀".utf8)) == "é€😀")
        #expect(text([]) == "")
        #expect(text([0x61, 0x00, 0x62]) == "a\u{0}b")
        #expect(text([0x61, 0xFF]) == nil)
        #expect(text([0xC3]) == nil)
        #expect(text([0xED, 0xA0, 0x80]) == nil)  // a surrogate's encoding
        #expect(text([0xEF, 0xBF, 0xBD]) == "\u{FFFD}")  // the replacement character itself is valid
    }
}
