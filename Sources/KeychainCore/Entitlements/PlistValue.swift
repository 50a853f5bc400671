#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Any property-list value, decoded through `PropertyListDecoder` into this fixed type only:
/// untrusted profiles never go through `PropertyListSerialization` (ARCHITECTURE.md).
package indirect enum PlistValue: Decodable, Sendable, Equatable {
    case string(String)
    case bool(Bool)
    case integer(Int)
    case real(Double)
    case data([UInt8])
    case date(Double)
    case array([PlistValue])
    case dictionary([String: PlistValue])

    /// Decodes one value. A string, the commonest value in an entitlements file, is tried first;
    /// then containers (asking a container for a scalar, or for a container of the other kind,
    /// fails at once), so no subtree is decoded twice: the work is linear in the input, and nesting
    /// is cut off at `PlistShape.maximumDepth` whatever the parser let through.
    package init(from decoder: any Decoder) throws {
        guard decoder.codingPath.count < PlistShape.maximumDepth else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: [], debugDescription: "nested deeper than \(PlistShape.maximumDepth) levels"))
        }
        if let value = try? decoder.singleValueContainer().decode(String.self) {
            self = .string(value)
            return
        }
        if var array = try? decoder.unkeyedContainer() {
            var elements: [PlistValue] = []
            while !array.isAtEnd { elements.append(try array.decode(PlistValue.self)) }
            self = .array(elements)
            return
        }
        if let dictionary = try? decoder.container(keyedBy: AnyKey.self) {
            var members: [String: PlistValue] = [:]
            for key in dictionary.allKeys { members[key.stringValue] = try dictionary.decode(PlistValue.self, forKey: key) }
            self = .dictionary(members)
            return
        }
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .real(value)
        } else if let value = try? container.decode(Data.self) {
            self = .data(Array(value))
        } else if let value = try? container.decode(Date.self) {
            self = .date(value.timeIntervalSince1970)
        } else {
            let key = decoder.codingPath.map(\.stringValue).joined(separator: ".")
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: [],
                    debugDescription: "the value of \(key.isEmpty ? "the top level" : key) cannot be read "
                        + "(an integer or real out of range, or a malformed date or data)"))
        }
    }

    /// Any dictionary key.
    private struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
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
