import KeychainFoundation

/// How an access group's App ID prefix reads.
package enum GroupPrefix: Equatable {
    /// Ten upper-case letters or digits, then a dot.
    case valid(String)
    /// Starts with a dot.
    case empty
    /// Something that is meant as a prefix but is not one (lower case, wrong length).
    case malformed(String)
    /// No prefix at all (`com.example.shared`, `group.x`).
    case none
    /// `com.apple.token`, which has none and needs none.
    case token

    /// The prefix of `group`.
    package static func of(_ group: String) -> GroupPrefix {
        if group.sameBytes(as: AccessGroupList.tokenGroup) { return .token }
        let bytes = Array(group.utf8)
        guard let dot = bytes.firstIndex(of: UInt8(ascii: ".")) else { return .none }
        let first = bytes[..<dot]
        if first.isEmpty { return .empty }
        let isUpperAlnum = first.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) }
        if first.count == 10, isUpperAlnum { return .valid(String(decoding: first, as: UTF8.self)) }
        let isAlnum = first.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }
        if isAlnum, (8...12).contains(first.count), first.contains(where: { (0x30...0x39).contains($0) }) {
            return .malformed(String(decoding: first, as: UTF8.self))
        }
        return .none
    }

    package var valid: String? {
        if case .valid(let prefix) = self { return prefix }
        return nil
    }
}
