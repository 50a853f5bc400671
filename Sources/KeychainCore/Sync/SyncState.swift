import KeychainFormats
import KeychainFoundation

/// What one device remembers between syncs (docs/SYNC.md), CKKS's "mirror": for each cloud record it
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
        package var rowUUID: Bytes16
        /// The record's change tag when this device last read or wrote it.
        package var tag: UInt64
        /// The local row's sealed columns then: unchanged means the row was not written since.
        package var sealedDigest: Bytes16
        /// The item's synced content (attributes and secret) then: after a rekey re-sealed a row,
        /// the content tells that nothing changed.
        package var contentDigest: Bytes16
        /// The item's primary key then: a change travels as a deletion and an addition.
        package var primaryKeyDigest: Bytes16
        /// The record file's status then: unchanged means the file was not replaced since.
        package var stamp: CloudStore.Stamp
        /// Whether this sync found the record's file: set while it reads the listing, so that a
        /// sync with nothing to do needs no index of the listing. Never stored, never compared.
        var listed = false

        package init(
            itemClass: ItemClass, rowUUID: Bytes16, tag: UInt64, sealedDigest: Bytes16, contentDigest: Bytes16,
            primaryKeyDigest: Bytes16, stamp: CloudStore.Stamp
        ) {
            self.itemClass = itemClass
            self.rowUUID = rowUUID
            self.tag = tag
            self.sealedDigest = sealedDigest
            self.contentDigest = contentDigest
            self.primaryKeyDigest = primaryKeyDigest
            self.stamp = stamp
        }

        package static func == (lhs: Entry, rhs: Entry) -> Bool {
            lhs.itemClass == rhs.itemClass && lhs.rowUUID == rhs.rowUUID && lhs.tag == rhs.tag && lhs.sealedDigest == rhs.sealedDigest
                && lhs.contentDigest == rhs.contentDigest && lhs.primaryKeyDigest == rhs.primaryKeyDigest && lhs.stamp == rhs.stamp
        }
    }

    /// Entries by cloud UUID.
    package var entries: [Bytes16: Entry] = [:]
    /// This device's identity among the account's (records name the device that wrote them).
    package var deviceID: Bytes16
    /// The UUIDs of records deleted since this device took part in them (here or elsewhere): a
    /// record UUID is never used twice, so one of these found again is an old copy put back.
    package var deleted: Set<Bytes16> = []
    /// The seed of this device's signing key (empty until a sync with a version-2 store saved it:
    /// the keychain's derived one until then).
    package var signingSeed: [UInt8] = []
    /// The name this device joined the store's device list under (empty until it joined).
    package var deviceName = ""
    /// The last head this device saw or wrote (version 2): a store whose head does not descend from
    /// it is refused.
    package var head = RememberedHead()
    /// The devices this device has seen listed, pinned: a listing that changes one's key is
    /// refused, and a revocation, once seen, is never undone.
    package var devices: [Bytes16: PinnedDevice] = [:]

    package struct RememberedHead: Equatable {
        package var epoch: UInt32 = 0
        package var sequence = 0
        package var link: [UInt8] = []
        /// The head file's status then: unchanged means the head was not rewritten since.
        package var stamp = CloudStore.Stamp.none
    }

    package struct PinnedDevice: Equatable {
        package var publicKey: [UInt8]
        package var revoked: Bool
        package var name: String
    }

    /// A new state for the device `deviceID`.
    package init(deviceID: Bytes16) { self.deviceID = deviceID }

    /// 1: entries only; 2: entries, then the deleted UUIDs; 3: then the device's signing seed and
    /// name, the last head and the pinned devices.
    private static let format: UInt8 = 3
    private static let entryBytes = 16 + 1 + 16 + 8 + 3 * 16 + 24

    /// A digest of the given pieces, in order (`Sodium.pieceDigest`).
    static func digest(_ pieces: [[UInt8]]) -> Bytes16 {
        Sodium.pieceDigest { (feed) throws(Never) in for piece in pieces { piece.withUnsafeBytes(feed) } }
    }

    /// The encoded form: a format byte, the device's identity, the count, fixed-size entries in
    /// UUID order, then the count of deleted UUIDs and those UUIDs in order.
    package var encoded: [UInt8] {
        var out: [UInt8] = [Self.format] + deviceID.bytes
        out.reserveCapacity(21 + entries.count * Self.entryBytes)
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.bigEndian) { out += $0 } }
        append(UInt32(entries.count))
        for (uuid, entry) in entries.sorted(by: { $0.key < $1.key }) {
            out += uuid.bytes
            out.append(UInt8(ItemClass.stored.firstIndex(of: entry.itemClass) ?? 0))
            out += entry.rowUUID.bytes
            append(entry.tag)
            out += entry.sealedDigest.bytes + entry.contentDigest.bytes + entry.primaryKeyDigest.bytes
            append(entry.stamp.inode)
            append(entry.stamp.changed)
            append(entry.stamp.size)
        }
        append(UInt32(deleted.count))
        for uuid in deleted.sorted() { out += uuid.bytes }
        out.append(UInt8(signingSeed.count))
        out += signingSeed
        let name = Array(deviceName.utf8.prefix(255))
        out.append(UInt8(name.count))
        out += name
        append(head.epoch)
        append(UInt64(head.sequence))
        out.append(UInt8(head.link.count))
        out += head.link
        append(head.stamp.inode)
        append(head.stamp.changed)
        append(head.stamp.size)
        append(UInt32(devices.count))
        for (id, device) in devices.sorted(by: { $0.key < $1.key }) {
            out += id.bytes + device.publicKey
            out.append(device.revoked ? 1 : 0)
            let name = Array(device.name.utf8.prefix(255))
            out.append(UInt8(name.count))
            out += name
        }
        return out
    }

    /// The state `bytes` encodes; `nil` when it is not one (a value that opened under the key but
    /// does not parse is a bug or a downgrade, never silently emptied).
    package init?(encoded bytes: [UInt8]) {
        guard bytes.count >= 21, (1...Self.format).contains(bytes[0]), let device = Bytes16(Array(bytes[1..<17])) else { return nil }
        deviceID = device
        let withDeleted = bytes[0] >= 2
        let withDevice = bytes[0] >= 3
        var tail = 0
        let parsed = bytes.withUnsafeBytes { raw -> ([Bytes16: Entry], Set<Bytes16>)? in
            var offset = 0
            func integer() -> UInt64 {
                defer { offset += 8 }
                return UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            }
            func sixteen() -> Bytes16 {
                defer { offset += 16 }
                return Bytes16(UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + 16)]))!
            }
            let count = Int(ByteOrder.bigEndian(raw[17..<21]))
            offset = 21
            let entriesEnd = 21 + count * Self.entryBytes
            guard withDeleted ? raw.count >= entriesEnd + 4 : raw.count == entriesEnd else { return nil }
            var entries: [Bytes16: Entry] = [:]
            entries.reserveCapacity(count)
            for _ in 0..<count {
                let uuid = sixteen()
                let classIndex = Int(raw[offset])
                offset += 1
                guard classIndex < ItemClass.stored.count else { return nil }
                let rowUUID = sixteen()
                let tag = integer()
                let (sealed, content, primaryKey) = (sixteen(), sixteen(), sixteen())
                let stamp = CloudStore.Stamp(inode: integer(), changed: integer(), size: integer())
                entries[uuid] = Entry(
                    itemClass: ItemClass.stored[classIndex], rowUUID: rowUUID, tag: tag, sealedDigest: sealed, contentDigest: content,
                    primaryKeyDigest: primaryKey, stamp: stamp)
            }
            var deleted: Set<Bytes16> = []
            if withDeleted {
                let deletedCount = Int(ByteOrder.bigEndian(raw[offset..<(offset + 4)]))
                offset += 4
                guard withDevice ? raw.count >= offset + deletedCount * 16 : raw.count == offset + deletedCount * 16 else { return nil }
                deleted.reserveCapacity(deletedCount)
                for _ in 0..<deletedCount { deleted.insert(sixteen()) }
            }
            tail = offset
            return (entries, deleted)
        }
        guard let parsed else { return nil }
        (entries, deleted) = parsed
        guard withDevice else { return }
        guard parseDevice(Array(bytes[tail...])) else { return nil }
    }

    /// Reads format 3's tail: the signing seed, name, head and pinned devices.
    private mutating func parseDevice(_ bytes: [UInt8]) -> Bool {
        var cursor = ByteCursor(bytes: bytes)
        guard let seedLength = cursor.byte(), seedLength == 0 || Int(seedLength) == DeviceSigningKey.seedBytes,
            let seed = cursor.take(Int(seedLength)), let name = cursor.shortText(), let epoch = cursor.integer(UInt32.self),
            let sequence = cursor.integer(UInt64.self), let linkLength = cursor.byte(), let link = cursor.take(Int(linkLength)),
            let inode = cursor.integer(UInt64.self), let changed = cursor.integer(UInt64.self), let size = cursor.integer(UInt64.self),
            let count = cursor.count(each: 50), let sequenceNumber = Int(exactly: sequence)
        else { return false }
        signingSeed = seed
        deviceName = name
        head = RememberedHead(
            epoch: epoch, sequence: sequenceNumber, link: link, stamp: CloudStore.Stamp(inode: inode, changed: changed, size: size))
        for _ in 0..<count {
            guard let id = cursor.uuid(), let key = cursor.take(32), let revoked = cursor.byte(), revoked <= 1,
                let name = cursor.shortText()
            else { return false }
            devices[id] = PinnedDevice(publicKey: key, revoked: revoked == 1, name: name)
        }
        return cursor.isAtEnd
    }
}
