import KeychainFoundation

/// Reads the fields of a store file or a sync state in order, every read bounded by what is left:
/// a count or a length read from hostile bytes never reaches past them, nor allocates more.
struct ByteCursor {
    let bytes: [UInt8]
    var offset = 0

    var isAtEnd: Bool { offset == bytes.count }

    mutating func take(_ count: Int) -> [UInt8]? {
        guard count >= 0, bytes.count - offset >= count else { return nil }
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }

    /// Sixteen bytes: an identity, a UUID or a digest.
    mutating func uuid() -> Bytes16? {
        guard let bytes = take(16) else { return nil }
        return Bytes16(bytes)
    }

    /// A big-endian integer.
    mutating func integer<T: FixedWidthInteger>(_: T.Type) -> T? {
        take(MemoryLayout<T>.size).map { T(truncatingIfNeeded: ByteOrder.bigEndian($0)) }
    }

    /// One byte.
    mutating func byte() -> UInt8? { take(1)?.first }

    /// A short text: its length in one byte, then that many bytes of UTF-8 (a device's name).
    mutating func shortText() -> String? {
        guard let length = byte(), let text = take(Int(length)) else { return nil }
        return String(validating: text, as: UTF8.self)
    }

    /// A count (32 bits) of items at least `each` bytes long: never more than the bytes left could hold.
    mutating func count(each: Int) -> Int? {
        guard let count = integer(UInt32.self).map(Int.init), count <= (bytes.count - offset) / each else { return nil }
        return count
    }
}
