/// A typed attribute value.
package enum AttributeValue: Sendable, Hashable {
    case string(String)
    case data([UInt8])
    case number(Int64)
    case bool(Bool)
    /// Milliseconds since 1970-01-01 UTC.
    case date(Int64)
    /// Exactly four bytes, e.g. `htps`.
    case fourCharCode(String)

    /// The bytes that equality (and the keyed digest) is defined on. A string and the same bytes as
    /// data are equal, as in Apple's keychain (docs/FIDELITY.md).
    package var canonicalBytes: [UInt8] {
        switch self {
        case .string(let text), .fourCharCode(let text): Array(text.utf8)
        case .data(let bytes): bytes
        case .number(let value), .date(let value): Array(String(value).utf8)
        case .bool(let value): value ? [0x31] : [0x30]
        }
    }

    /// The value a primary-key attribute takes when the caller leaves it out: `""`, empty data, 0.
    package static func defaultValue(for kind: ValueKind) -> AttributeValue {
        switch kind {
        case .string: .string("")
        case .data: .data([])
        case .number: .number(0)
        case .bool: .bool(false)
        case .date: .date(AppleEpoch.referenceDateMilliseconds)
        case .fourCharCode: .fourCharCode("")
        }
    }

    /// The value's kind.
    package var kind: ValueKind {
        switch self {
        case .string: .string
        case .data: .data
        case .number: .number
        case .bool: .bool
        case .date: .date
        case .fourCharCode: .fourCharCode
        }
    }

    /// The string inside, for string-like values.
    package var stringValue: String? {
        switch self {
        case .string(let text), .fourCharCode(let text): text
        case .data(let bytes): String(validating: bytes, as: UTF8.self)
        default: nil
        }
    }
}

/// Apple's reference date (2001-01-01 UTC), the default of date attributes in a primary key.
package enum AppleEpoch {
    /// 2001-01-01T00:00:00Z in milliseconds since 1970.
    package static let referenceDateMilliseconds: Int64 = 978_307_200_000
}
