/// Unsigned integers as file formats store them: the one reader of big- and little-endian fields
/// (Mach-O headers and signatures, binary plists, DER lengths, the profile's CMS header).
package enum ByteOrder {
    /// The big-endian unsigned integer in `bytes` (at most 8 of them).
    @inlinable package static func bigEndian(_ bytes: some Collection<UInt8>) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// The little-endian unsigned integer in `bytes` (at most 8 of them).
    @inlinable package static func littleEndian(_ bytes: some BidirectionalCollection<UInt8>) -> UInt64 {
        bytes.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }
}
