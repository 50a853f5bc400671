import CSodium

/// Keyed BLAKE2b digests of attribute values, so that equal values can be matched in SQL without
/// the file revealing guessable values (a server name, an account) the way a plain hash would.
package struct KeyedDigest: Sendable {
    /// Bytes per digest: 128 bits is ample for equality matching under a secret key.
    static let length = 16
    private let key: SecretBytes

    init(key: SecretBytes) { self.key = key }

    /// The digest of `value` as attribute `code`: the code is hashed too, so the same value under
    /// two attributes gives two unrelated digests.
    func digest(code: String, value: [UInt8]) -> [UInt8] {
        var message = Array(code.utf8)
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
}
