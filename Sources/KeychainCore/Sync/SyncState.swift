/// What one device remembers between syncs (issue 11), CKKS's "mirror": for each cloud record it
/// took part in, the local row it maps to and what both looked like when they last agreed. Kept in
/// `keychain_meta` as `sync_state`, sealed under the keychain key (schema version 5): an edit of it
/// without the key is refused, so nobody can make a sync delete records by forging entries.
///
/// Each device has its own: cloud UUIDs are shared by the account, row UUIDs (persistent
/// references) are this file's own.
package struct SyncState: Equatable {
    /// One record's entry. Digests are BLAKE2b-128.
    package struct Entry: Equatable {
        package var itemClass: ItemClass
        /// The local row's UUID (its persistent reference).
        package var rowUUID: [UInt8]
        /// The record's change tag when this device last read or wrote it.
        package var tag: UInt64
        /// The local row's sealed columns then: unchanged means the row was not written since.
        package var sealedDigest: [UInt8]
        /// The item's synced content (attributes and secret) then: after a rekey re-sealed a row,
        /// the content tells that nothing changed.
        package var contentDigest: [UInt8]
        /// The item's primary key then: a change travels as a deletion and an addition.
        package var primaryKeyDigest: [UInt8]
        /// The record file's status then: unchanged means the file was not replaced since.
        package var stamp: CloudStore.Stamp
    }

    /// Entries by cloud UUID.
    package var entries: [[UInt8]: Entry] = [:]

    package init() {}

    private static let format: UInt8 = 1
    private static let digestBytes = 16
    private static let entryBytes = 16 + 1 + 16 + 8 + 3 * digestBytes + 24

    /// A digest of the given pieces, in order (`Sodium.pieceDigest`).
    static func digest(_ pieces: [[UInt8]]) -> [UInt8] {
        Sodium.pieceDigest { (feed) throws(Never) in for piece in pieces { piece.withUnsafeBytes(feed) } }
    }

    /// The encoded form: a format byte, the count, and fixed-size entries in UUID order.
    package var encoded: [UInt8] {
        var out: [UInt8] = [Self.format]
        out.reserveCapacity(5 + entries.count * Self.entryBytes)
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.bigEndian) { out += $0 } }
        append(UInt32(entries.count))
        for uuid in entries.keys.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            guard let entry = entries[uuid] else { continue }
            out += uuid
            out.append(UInt8(ItemClass.stored.firstIndex(of: entry.itemClass) ?? 0))
            out += entry.rowUUID
            append(entry.tag)
            out += entry.sealedDigest + entry.contentDigest + entry.primaryKeyDigest
            append(entry.stamp.inode)
            append(entry.stamp.changed)
            append(entry.stamp.size)
        }
        return out
    }

    /// The state `bytes` encodes; `nil` when it is not one (a value that opened under the key but
    /// does not parse is a bug or a downgrade, never silently emptied).
    package init?(encoded bytes: [UInt8]) {
        guard bytes.count >= 5, bytes[0] == Self.format else { return nil }
        var offset = 1
        func read<T: FixedWidthInteger>(_: T.Type) -> T {
            var value: T = 0
            for byte in bytes[offset..<(offset + MemoryLayout<T>.size)] { value = value << 8 | T(byte) }
            offset += MemoryLayout<T>.size
            return value
        }
        func take(_ count: Int) -> [UInt8] {
            defer { offset += count }
            return Array(bytes[offset..<(offset + count)])
        }
        let count = Int(read(UInt32.self))
        guard bytes.count == 5 + count * Self.entryBytes else { return nil }
        entries.reserveCapacity(count)
        for _ in 0..<count {
            let uuid = take(16)
            let classIndex = Int(take(1)[0])
            guard classIndex < ItemClass.stored.count else { return nil }
            let rowUUID = take(16)
            let tag = read(UInt64.self)
            let sealed = take(Self.digestBytes)
            let content = take(Self.digestBytes)
            let primaryKey = take(Self.digestBytes)
            let stamp = CloudStore.Stamp(inode: read(UInt64.self), changed: read(UInt64.self), size: read(UInt64.self))
            entries[uuid] = Entry(
                itemClass: ItemClass.stored[classIndex], rowUUID: rowUUID, tag: tag, sealedDigest: sealed, contentDigest: content,
                primaryKeyDigest: primaryKey, stamp: stamp)
        }
    }
}
