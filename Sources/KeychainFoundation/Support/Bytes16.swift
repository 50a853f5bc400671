/// Sixteen bytes held inline (a UUID, a 128-bit digest): hashing, comparing and storing one costs
/// no allocation, which a sync of 100,000 items does hundreds of thousands of times. Ordered as its
/// bytes are (so as the uppercase UUID strings CKKS compares).
package struct Bytes16: Hashable, Comparable, Sendable {
    private var high: UInt64
    private var low: UInt64

    /// The first 16 bytes of `bytes`; `nil` when there are fewer.
    package init?(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= 16 else { return nil }
        high = UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
        low = UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
    }

    /// `bytes` when it holds exactly 16 bytes.
    package init?(_ bytes: [UInt8]) {
        guard bytes.count == 16, let value = bytes.withUnsafeBytes({ Bytes16($0) }) else { return nil }
        self = value
    }

    /// All zero bytes.
    package static let zero = Bytes16([UInt8](repeating: 0, count: 16))!

    /// Sixteen random bytes (a new UUID, a change tag's source).
    package static func random() -> Bytes16 { Bytes16(Sodium.randomBytes(16))! }

    package var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(16)
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: high >> UInt64(shift))) }
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: low >> UInt64(shift))) }
        return out
    }

    /// One word hashed, not two: the bytes are random (UUIDs, digests), so either half keys well.
    package func hash(into hasher: inout Hasher) { hasher.combine(low ^ high) }

    package static func < (lhs: Bytes16, rhs: Bytes16) -> Bool { (lhs.high, lhs.low) < (rhs.high, rhs.low) }
}
