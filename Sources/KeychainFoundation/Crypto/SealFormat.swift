/// How a keychain file binds its sealed blobs: which authenticated data and which derived keys.
///
/// - `v1` (schema version 1): the item's class, persistent reference, `agrp`, `sync` and `pdmn`
///   NUL-separated; class keys wrapped by the keychain key itself. Read until the file is upgraded.
/// - `v2` (schema version 2): every field length-prefixed, the keychain's random identity first,
///   then the class, the persistent reference and every plaintext column the schema declares
///   (`tomb` included); class and item keys wrapped by sub-keys kept to that one purpose; keyed
///   digests bound to their class.
package enum SealFormat: Sendable, Equatable {
    case v1
    case v2(keychainID: [UInt8])

    /// Bytes of a keychain identity.
    package static let keychainIDBytes = 16

    /// Authenticated data for `fields`, length-prefixed (v2) so that no two field lists encode alike.
    package static func lengthPrefixed(_ fields: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(fields.reduce(0) { $0 + 4 + $1.count })
        for field in fields { appendField(field, to: &out) }
        return out
    }

    /// Appends one length-prefixed field to `out`, as `lengthPrefixed` lays each out.
    package static func appendField(_ field: some Collection<UInt8>, to out: inout [UInt8]) {
        withUnsafeBytes(of: UInt32(field.count).littleEndian) { out.append(contentsOf: $0) }
        out.append(contentsOf: field)
    }
}
