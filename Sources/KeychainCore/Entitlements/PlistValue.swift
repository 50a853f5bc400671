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

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode(Int.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .real(value)
        } else if let value = try? container.decode(Data.self) {
            self = .data(Array(value))
        } else if let value = try? container.decode(Date.self) {
            self = .date(value.timeIntervalSince1970)
        } else if let value = try? container.decode([PlistValue].self) {
            self = .array(value)
        } else {
            self = .dictionary(try container.decode([String: PlistValue].self))
        }
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
