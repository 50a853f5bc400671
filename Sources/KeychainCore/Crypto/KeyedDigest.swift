import CSodium

/// Keyed BLAKE2b digests of attribute values, so that equal values can be matched in SQL without
/// the file revealing guessable values (a server name, an account) the way a plain hash would.
package struct KeyedDigest: Sendable {
    /// Bytes per digest: 128 bits is ample for equality matching under a secret key.
    package static let length = 16
    private let key: SecretBytes
    /// Whether the class is hashed in too (schema version 2): equal accounts in two classes then
    /// have unrelated digests.
    private let classBound: Bool

    init(key: SecretBytes, classBound: Bool) {
        self.key = key
        self.classBound = classBound
    }

    /// The digest of `value` as attribute `code` of `itemClass`: the code (and, from version 2, the
    /// class) is hashed too, so the same value under two attributes gives two unrelated digests.
    func digest(_ itemClass: ItemClass, code: String, value: [UInt8]) -> [UInt8] {
        var message: [UInt8] = []
        if classBound {
            message += Array(itemClass.rawValue.utf8)
            message.append(0)
        }
        message += Array(code.utf8)
        message.append(0)
        message += value
        var out = [UInt8](repeating: 0, count: Self.length)
        key.withUnsafeBytes { keyBuffer in
            _ = crypto_generichash(
                &out, Self.length, message, UInt64(message.count),
                keyBuffer.baseAddress!.assumingMemoryBound(to: UInt8.self), keyBuffer.count)
        }
        return out
    }

    /// The digest column values of `attributes` for `schema`: one per digest attribute present.
    func columns(of attributes: [String: AttributeValue], schema: ClassSchema) -> [String: [UInt8]] {
        var digests: [String: [UInt8]] = [:]
        for attribute in schema.digestAttributes {
            if let value = attributes[attribute.code] {
                digests[attribute.code] = digest(schema.itemClass, code: attribute.code, value: value.canonicalBytes)
            }
        }
        return digests
    }
}
