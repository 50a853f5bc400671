import CSodium

extension SecretBytes {
    /// The SHA-256 of the bytes.
    package var sha256: [UInt8] {
        _ = Sodium.ready
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        let empty: [UInt8] = [0]
        withUnsafeBytes { bytes in
            empty.withUnsafeBufferPointer { fallback in
                let input = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? fallback.baseAddress!
                _ = digest.withUnsafeMutableBufferPointer { crypto_hash_sha256($0.baseAddress!, input, UInt64(bytes.count)) }
            }
        }
        return digest
    }

    /// The SHA-256 of the bytes, as `sha256sum` prints it (lowercase hex): what `get --clip`'s
    /// clearer compares the clipboard with, so that it holds no copy of the secret.
    package var sha256Hex: String {
        let hex = Array("0123456789abcdef".utf8)
        return String(decoding: sha256.flatMap { [hex[Int($0 >> 4)], hex[Int($0 & 0x0F)]] }, as: UTF8.self)
    }
}
