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
        value.withUnsafeBytes { bytes in withDigest(itemClass, code: code, value: bytes) { Array($0) } }
    }

    /// The digest of `value` as attribute `code` of `itemClass`, the value's bytes as `AttributeValue.digestBytes(for:)` gives them.
    package func digest(_ itemClass: ItemClass, code: String, value: AttributeValue, kind: ValueKind) -> [UInt8] {
        value.withDigestBytes(for: kind) { bytes in withDigest(itemClass, code: code, value: bytes) { Array($0) } }
    }

    /// Whether `stored` is the digest of `value`, computed on the stack (every opened row checks
    /// its digest columns so).
    private func isDigest(_ stored: [UInt8], of value: AttributeValue, _ itemClass: ItemClass, code: String, kind: ValueKind) -> Bool {
        value.withDigestBytes(for: kind) { bytes in withDigest(itemClass, code: code, value: bytes) { $0.elementsEqual(stored) } }
    }

    /// Lends the digest to `body`: it lives on the stack, beside the copy of the keyed state.
    private func withDigest<R>(_ itemClass: ItemClass, code: String, value: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> R)
        -> R
    {
        let stateBytes = keyedState.count
        // The copy of the keyed state is as good as the key: it lives on the stack only while the
        // digest is computed and is wiped before the stack is given back.
        return withUnsafeTemporaryAllocation(byteCount: stateBytes + Self.length, alignment: 64) { buffer in
            keyedState.withUnsafeBytes { buffer.copyMemory(from: $0) }
            let state = OpaquePointer(buffer.baseAddress!)
            let out = buffer.baseAddress!.advanced(by: stateBytes).assumingMemoryBound(to: UInt8.self)
            var separator: UInt8 = 0
            var classText = itemClass.rawValue
            var codeText = code
            if classBound {
                _ = classText.withUTF8 { crypto_generichash_update(state, $0.baseAddress, UInt64($0.count)) }
                _ = crypto_generichash_update(state, &separator, 1)
            }
            _ = codeText.withUTF8 { crypto_generichash_update(state, $0.baseAddress, UInt64($0.count)) }
            _ = crypto_generichash_update(state, &separator, 1)
            _ = crypto_generichash_update(state, value.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(value.count))
            _ = crypto_generichash_final(state, out, Self.length)
            sodium_memzero(buffer.baseAddress!, stateBytes)
            return body(UnsafeRawBufferPointer(start: out, count: Self.length))
        }
    }

    /// Whether `stored` holds exactly the digest columns of `attributes`: what `columns(of:schema:)`
    /// would build, compared without building it (every opened row is checked this way). A value
    /// among `known` (the query's own, hashed once for the SQL) is not hashed again: its digest is
    /// a function of the class, the code and the value alone.
    package func match(
        _ stored: [String: [UInt8]], of attributes: [String: AttributeValue], schema: ClassSchema,
        known: [DigestedAttribute] = []
    ) -> Bool {
        var present = 0
        // The row's few attributes, each looked up in the schema: not the schema's many digest
        // attributes, each looked up in the row.
        for (code, value) in attributes {
            guard let attribute = schema.attribute(code), attribute.storage == .digest else { continue }
            present += 1
            guard let digest = stored[code] else { return false }
            if let computed = known.first(where: { $0.code == code && $0.value == value }) {
                guard digest == computed.digest else { return false }
            } else {
                guard isDigest(digest, of: value, schema.itemClass, code: code, kind: attribute.kind) else { return false }
            }
        }
        return present == stored.count
    }

    /// The digest column values of `attributes` for `schema`: one per digest attribute present.
    package func columns(of attributes: [String: AttributeValue], schema: ClassSchema) -> [String: [UInt8]] {
        var digests: [String: [UInt8]] = [:]
        for attribute in schema.digestAttributes {
            if let value = attributes[attribute.code] {
                digests[attribute.code] = digest(schema.itemClass, code: attribute.code, value: value, kind: attribute.kind)
            }
        }
        return digests
    }
}

/// An attribute's value with its keyed digest and the column that holds it: a query's, matched
/// in SQL by `column = digest`. A row the SQL selects by it holds that value, and opening the row
/// need not hash it again to check the column.
package struct DigestedAttribute: Sendable {
    package let column: String
    package let digest: [UInt8]
    /// The attribute's code and value.
    package let code: String
    package let value: AttributeValue

    package init(column: String, digest: [UInt8], code: String, value: AttributeValue) {
        self.column = column
        self.digest = digest
        self.code = code
        self.value = value
    }
}
