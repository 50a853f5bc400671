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

    /// The bytes equality is defined on within a kind (`matches` also compares kinds); the keyed
    /// digest hashes `digestBytes(for:)`.
    package var canonicalBytes: [UInt8] {
        switch self {
        case .string(let text), .fourCharCode(let text): Array(text.utf8)
        case .data(let bytes): bytes
        case .number(let value), .date(let value): Array(String(value).utf8)
        case .bool(let value): value ? [0x31] : [0x30]
        }
    }

    /// How Apple's keychain binds the value into SQLite (`SecDb.c`, `SecDbBindObject`): a string as
    /// text, data as a blob but empty data as the empty text, a number or boolean as an integer, a
    /// date as a real.
    package enum StorageClass: Sendable {
        case text, blob, integer, real

        /// How explain names it: "a string", "data", "a number", "a date".
        package var article: String {
            switch self {
            case .text: "a string"
            case .blob: "data"
            case .integer: "a number"
            case .real: "a date"
            }
        }
    }

    package var storageClass: StorageClass {
        switch self {
        case .string, .fourCharCode: .text
        case .data(let bytes): bytes.isEmpty ? .text : .blob
        case .number, .bool: .integer
        case .date: .real
        }
    }

    /// Whether a query's `self` matches a stored `value` as SQLite compares what Apple binds: the same
    /// storage class and the same bytes. A string never matches data of the same bytes (except the
    /// empty ones), nor a number the string of its digits.
    package func matches(_ value: AttributeValue) -> Bool {
        storageClass == value.storageClass && canonicalBytes == value.canonicalBytes
    }

    /// The bytes the keyed digest (and with it the primary key) hashes for an attribute of `kind`:
    /// the canonical bytes when the value is of a storage class the attribute holds (text for a
    /// string attribute, a blob or the empty text for a data one, an integer or text for a number
    /// one…), and otherwise the same bytes after a mark no UTF-8 text begins with (0xFF) and the
    /// class. So a string and data of the same bytes are two primary keys, as SQLite keeps what
    /// Apple binds apart, while every value of its attribute's own kind hashes as it always has
    /// and files written before keep their digests.
    package func digestBytes(for kind: ValueKind) -> [UInt8] {
        let storage = storageClass
        let natural: Bool =
            switch kind {
            case .string, .fourCharCode: storage == .text
            case .data: storage == .blob || (storage == .text && canonicalBytes.isEmpty)
            case .number, .bool: storage == .integer || storage == .text
            case .date: storage == .real
            }
        guard !natural else { return canonicalBytes }
        let mark: UInt8 =
            switch storage {
            case .text: 0x74
            case .blob: 0x62
            case .integer: 0x69
            case .real: 0x72
            }
        return [0xFF, mark] + canonicalBytes
    }

    /// Lends `digestBytes(for:)` to `body` without building an array for the common values: a
    /// string or four-character code of a text attribute, a date of a date attribute.
    package func withDigestBytes<R>(for kind: ValueKind, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        switch (self, kind) {
        case (.string(var text), .string), (.string(var text), .fourCharCode), (.fourCharCode(var text), .string),
            (.fourCharCode(var text), .fourCharCode):
            return text.withUTF8 { body(UnsafeRawBufferPointer($0)) }
        case (.date(let value), .date), (.number(let value), .number):
            var text = String(value)
            return text.withUTF8 { body(UnsafeRawBufferPointer($0)) }
        default:
            return digestBytes(for: kind).withUnsafeBytes(body)
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
