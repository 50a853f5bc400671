import CCrypto

/// DER's tag-and-length headers, read and written by OpenSSL (no hand-written length arithmetic):
/// what walks a name's structure and a certificate's.
package enum DERHeader {
    /// A DER TLV's header read with OpenSSL's own decoder: its tag, class, whether it is
    /// constructed, and the range of its content within `bytes[from...]`. `nil` for a bad or
    /// indefinite length, or one running past `limit`.
    package static func read(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int, limit: Int)
        -> (tag: Int32, tagClass: Int32, constructed: Bool, content: Range<Int>)?
    {
        guard let base = bytes.baseAddress, offset < limit, limit <= bytes.count else { return nil }
        var cursor: UnsafePointer<UInt8>? = base + offset
        var length = 0
        var tag: Int32 = 0
        var tagClass: Int32 = 0
        let flags = ASN1_get_object(&cursor, &length, &tag, &tagClass, limit - offset)
        // 0x80: an error (or a length past the limit); 0x01: an indefinite length, which DER forbids.
        guard flags & 0x81 == 0, let cursor else { return nil }
        let start = cursor - base
        guard length >= 0, start + length <= limit else { return nil }
        return (tag, tagClass, flags & V_ASN1_CONSTRUCTED != 0, start..<(start + length))
    }

    /// A DER header (tag and length) for `length` content bytes, written by OpenSSL.
    package static func bytes(constructed: Bool, length: Int, tag: Int32, tagClass: Int32 = V_ASN1_UNIVERSAL) -> [UInt8] {
        let total = Int(ASN1_object_size(constructed ? 1 : 0, Int32(length), tag))
        guard total > length else { return [] }
        var header = [UInt8](repeating: 0, count: total - length)
        header.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            ASN1_put_object(&cursor, constructed ? 1 : 0, Int32(length), tag, tagClass)
        }
        return header
    }
}
