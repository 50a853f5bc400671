import KeychainFoundation

/// A property-list value as keychainctl reads it from an untrusted profile: strings, booleans and
/// the containers that hold them, and dates (for a profile's expiry). Numbers and data play no part
/// in keychain access, so their text is never converted (a 5,000-digit integer costs nothing and breaks nothing).
package indirect enum PlistValue: Sendable, Equatable {
    case string(String)
    case bool(Bool)
    case array([PlistValue])
    case dictionary([String: PlistValue])
    /// A date, in milliseconds since 1970 UTC (a provisioning profile's `ExpirationDate`).
    case date(Int64)
    /// A number, data, set, null or an unrepresentable date: present, never read.
    case other

    /// The deepest nesting of arrays and dictionaries accepted. Real entitlements and provisioning
    /// profiles nest three or four levels deep; the readers recurse once per level, so this also
    /// bounds their stack.
    package static let maximumDepth = 32

    /// Reads a whole property list, binary (`bplist`), XML or DER entitlements, in time linear in its size.
    package static func read(_ bytes: ArraySlice<UInt8>) throws(PlistProblem) -> PlistValue {
        if bytes.starts(with: BinaryPlistReader.magic) { return try BinaryPlistReader(Array(bytes)).read() }
        if DEREntitlementsReader.looksLikeDER(bytes) { return try DEREntitlementsReader(bytes).read() }
        var reader = XMLPlistReader(Array(bytes))
        return try reader.read()
    }

    /// The string, if this is one.
    package var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The array's strings, or `nil` when this is not an array or holds any non-string element
    /// (Apple then ignores the entitlement entirely: `SecTaskCopyAccessGroups`).
    package var stringArray: [String]? {
        guard case .array(let elements) = self else { return nil }
        var strings: [String] = []
        for element in elements {
            guard case .string(let value) = element else { return nil }
            strings.append(value)
        }
        return strings
    }

    /// The boolean, if this is one.
    package var bool: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The dictionary, if this is one.
    package var dictionary: [String: PlistValue]? {
        if case .dictionary(let value) = self { return value }
        return nil
    }
}

/// Why a property list cannot be read.
package struct PlistProblem: Error {
    /// A hostile shape (a cycle, shared containers, nesting past `PlistValue.maximumDepth`, entity
    /// declarations, a binary object out of bounds) rather than an ordinary syntax error.
    package let hostile: Bool
    /// What is wrong, for the error message.
    package let text: String

    package static func hostile(_ text: String) -> PlistProblem { PlistProblem(hostile: true, text: text) }
    package static func malformed(_ text: String) -> PlistProblem { PlistProblem(hostile: false, text: text) }

    package static let tooDeep = hostile("it nests arrays and dictionaries deeper than \(PlistValue.maximumDepth) levels")
}
