import Testing

@testable import KeychainCore

/// The JSON reader behind `import`.
@Suite struct JSONReaderTests {
    func parse(_ text: String) throws -> (JSONReader.Value, [UInt8]) {
        let bytes = Array(text.utf8)
        return (try bytes.withUnsafeBytes { try JSONReader.parse($0) }, bytes)
    }

    @Test func escapesAndSurrogatesResolve() throws {
        let (value, bytes) = try parse(#" {"k\"ey": ["a\n\u00e9\ud83d\ude00\/", 12.5e3, true, null, {}] } "#)
        guard case .object(let members) = value, case .array(let elements) = members[0].value, case .string(let range) = elements[0] else {
            Issue.record("wrong shape")
            return
        }
        #expect(members[0].key == "k\"ey")
        #expect(bytes.withUnsafeBytes { JSONReader.text(range, in: $0) } == "a\n\u{e9}\u{1F600}/")
        guard case .number(let number) = elements[1] else {
            Issue.record("not a number")
            return
        }
        #expect(number == "12.5e3")
    }

    @Test(arguments: [
        "", "{", "[1,]", "{\"a\" 1}", "\"\\ud83d\"", "\"\\x\"", "[1] 2", "tru", "{\"a\":1,}",
        String(repeating: "[", count: 17) + String(repeating: "]", count: 17),
    ])
    func malformedTextIsRefused(text: String) {
        let bytes = Array(text.utf8)
        let parsed = try? bytes.withUnsafeBytes { try JSONReader.parse($0) }
        if case .string(let range)? = parsed {
            #expect(bytes.withUnsafeBytes { JSONReader.text(range, in: $0) } == nil, "\(text)")
        } else {
            #expect(parsed == nil, "\(text) was accepted")
        }
    }
}
