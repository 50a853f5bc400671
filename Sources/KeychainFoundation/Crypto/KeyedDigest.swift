import CSodium

/// Keyed BLAKE2b digests of attribute values, so that equal values can be matched in SQL without
/// the file revealing guessable values (a server name, an account) the way a plain hash would.
package struct KeyedDigest: Sendable {
    /// Bytes per digest: 128 bits is ample for equality matching under a secret key.
    package static let length = 16
    /// BLAKE2b's state once the key block is absorbed: every digest starts from a copy of it,
    /// which saves hashing the key block again per digest (half the work of a short value).
    private let keyedState: SecretBytes
    /// Whether the class is hashed in too (schema version 2): equal accounts in two classes then
    /// have unrelated digests.
    private let classBound: Bool

    package init(key: SecretBytes, classBound: Bool) {
        keyedState = SecretBytes(count: crypto_generichash_statebytes())
        keyedState.withUnsafeMutableBytes { state in
            key.withUnsafeBytes { keyBuffer in
                _ = crypto_generichash_init(
                    OpaquePointer(state.baseAddress!), keyBuffer.baseAddress!.assumingMemoryBound(to: UInt8.self),
                    keyBuffer.count, Self.length)
            }
        }
        self.classBound = classBound
    }

    /// The digest of `value` as attribute `code` of `itemClass`: the code (and, from version 2, the
    /// class) is hashed too, so the same value under two attributes gives two unrelated digests.
    package func digest(_ itemClass: ItemClass, code: String, value: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Self.length)
        let stateBytes = keyedState.count
        // The copy of the keyed state is as good as the key: it lives on the stack only while the
        // digest is computed and is wiped before the stack is given back.
        withUnsafeTemporaryAllocation(byteCount: stateBytes, alignment: 64) { buffer in
            keyedState.withUnsafeBytes { buffer.copyMemory(from: $0) }
            let state = OpaquePointer(buffer.baseAddress!)
            var separator: UInt8 = 0
            var classText = itemClass.rawValue
            var codeText = code
            if classBound {
                _ = classText.withUTF8 { crypto_generichash_update(state, $0.baseAddress, UInt64($0.count)) }
                _ = crypto_generichash_update(state, &separator, 1)
            }
            _ = codeText.withUTF8 { crypto_generichash_update(state, $0.baseAddress, UInt64($0.count)) }
            _ = crypto_generichash_update(state, &separator, 1)
            _ = value.withUnsafeBufferPointer { crypto_generichash_update(state, $0.baseAddress, UInt64($0.count)) }
            _ = crypto_generichash_final(state, &out, Self.length)
            sodium_memzero(buffer.baseAddress!, stateBytes)
        }
        return out
    }

    /// Whether `stored` holds exactly the digest columns of `attributes`: what `columns(of:schema:)`
    /// would build, compared without building it (every opened row is checked this way).
    package func match(_ stored: [String: [UInt8]], of attributes: [String: AttributeValue], schema: ClassSchema) -> Bool {
        var present = 0
        for attribute in schema.digestAttributes {
            guard let value = attributes[attribute.code] else { continue }
            present += 1
            guard let digest = stored[attribute.code],
                digest == self.digest(schema.itemClass, code: attribute.code, value: value.digestBytes(for: attribute.kind))
            else { return false }
        }
        return present == stored.count
    }

    /// The digest column values of `attributes` for `schema`: one per digest attribute present.
    package func columns(of attributes: [String: AttributeValue], schema: ClassSchema) -> [String: [UInt8]] {
        var digests: [String: [UInt8]] = [:]
        for attribute in schema.digestAttributes {
            if let value = attributes[attribute.code] {
                digests[attribute.code] = digest(schema.itemClass, code: attribute.code, value: value.digestBytes(for: attribute.kind))
            }
        }
        return digests
    }
}
