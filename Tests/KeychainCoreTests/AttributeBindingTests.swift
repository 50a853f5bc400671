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
}
