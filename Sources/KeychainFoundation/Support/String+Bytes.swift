import KeychainPlatform

extension String {
    /// Whether the two strings are the same bytes. Swift's `==` treats canonically equivalent
    /// strings (`é` as one code point or as `e` and a combining accent) as equal, but SQLite, the
    /// authenticated data and Apple's `CFEqual` on access groups compare bytes: every entitlement
    /// check uses this, so that the check and the SQL can never disagree about a group.
    package func sameBytes(as other: String) -> Bool {
        // Through contiguous UTF-8 (free for a native string): the views' generic comparison
        // walked both strings index by index.
        var (left, right) = (self, other)
        return left.withUTF8 { leftBytes in right.withUTF8 { leftBytes.elementsEqual($0) } }
    }

    /// The string whose UTF-8 is exactly `bytes`; `nil` when they are not valid UTF-8. What
    /// `String(validating:as:)` answers, without its generic path, which cost an opened row a
    /// fifth of its instructions: decoding repairs a bad sequence, so a repaired string differs.
    package init?(exactly bytes: UnsafeRawBufferPointer) {
        var text = String(decoding: bytes, as: UTF8.self)
        guard text.withUTF8({ $0.elementsEqual(bytes) }) else { return nil }
        self = text
    }
}

extension String {
    /// Whether `other` occurs in the string, byte for byte.
    package func containsBytes(_ other: String) -> Bool { utf8.firstRange(ofBytes: other.utf8) != nil }

    /// The string with every occurrence of `target` replaced by `replacement`, byte for byte.
    package func replacingBytes(_ target: String, with replacement: String) -> String {
        var result = ""
        var rest = self[...]
        while let range = rest.utf8.firstRange(ofBytes: target.utf8) {
            result += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}

extension BidirectionalCollection where Element == UInt8 {
    /// The bytes without the ASCII spaces, tabs, carriage returns and newlines around them (empty
    /// when there is nothing else).
    @inlinable package func trimmingASCIIWhitespace() -> SubSequence {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}
