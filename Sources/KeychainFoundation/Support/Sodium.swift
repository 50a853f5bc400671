import CSodium

/// The libsodium library, initialised once per process, and what needs no key: random bytes and
/// unkeyed fingerprints. Keys, sealing and keyed digests are `Crypto/`'s; only `Support/` and
/// `Crypto/` talk to libsodium.
package enum Sodium {
    /// Runs `sodium_init` the first time it is read; later reads are free.
    package static let ready: Bool = sodium_init() >= 0

    /// BLAKE2b-256 of `bytes`, unkeyed: a fingerprint of public data (the file's schema).
    package static func fingerprint(_ bytes: [UInt8]) -> [UInt8] {
        fingerprint { (feed) throws(Never) in bytes.withUnsafeBytes(feed) }
    }

    /// BLAKE2b-256, unkeyed, of the pieces `body` passes to the function it is given, in order: a
    /// fingerprint of public data read piece by piece (the file's schema, row by row).
    package static func fingerprint<E: Error>(_ body: ((UnsafeRawBufferPointer) -> Void) throws(E) -> Void) throws(E) -> [UInt8] {
        try withUnsafeTemporaryAllocation(byteCount: 32, alignment: 8) { (out) throws(E) in
            try generichash(into: out) { (state) throws(E) in try body { update(state, $0) } }
            return Array(UnsafeRawBufferPointer(out))
        }
    }

    /// BLAKE2b-128, unkeyed, of the pieces `body` passes, each prefixed with its length (so that
    /// pieces cannot run together): what a sync compares to tell a changed row or record.
    package static func pieceDigest<E: Error>(_ body: ((UnsafeRawBufferPointer) -> Void) throws(E) -> Void) throws(E) -> Bytes16 {
        try withUnsafeTemporaryAllocation(byteCount: 16, alignment: 8) { (out) throws(E) in
            try generichash(into: out) { (state) throws(E) in
                try body { piece in
                    withUnsafeBytes(of: UInt32(piece.count).littleEndian) { update(state, $0) }
                    update(state, piece)
                }
            }
            return Bytes16(UnsafeRawBufferPointer(out))!
        }
    }

    private static func generichash<E: Error>(into out: UnsafeMutableRawBufferPointer, _ body: (OpaquePointer) throws(E) -> Void)
        throws(E)
    {
        precondition(ready)
        try withUnsafeTemporaryAllocation(byteCount: crypto_generichash_statebytes(), alignment: 64) { (buffer) throws(E) in
            let state = OpaquePointer(buffer.baseAddress!)
            _ = crypto_generichash_init(state, nil, 0, out.count)
            try body(state)
            _ = crypto_generichash_final(state, out.baseAddress!.assumingMemoryBound(to: UInt8.self), out.count)
        }
    }

    private static func update(_ state: OpaquePointer, _ piece: UnsafeRawBufferPointer) {
        _ = crypto_generichash_update(state, piece.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(piece.count))
    }

    /// Fills a fresh array with `count` random bytes (for nonces, salts and UUIDs; not for keys).
    package static func randomBytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { fill($0) }
        return bytes
    }

    /// Fills `buffer` with random bytes in place: the caller's memory is the only copy (what a
    /// key drawn into it needs).
    package static func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        precondition(ready)
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        randombytes_buf(base, buffer.count)
    }
}
