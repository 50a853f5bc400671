import KeychainFormats
import KeychainFoundation

/// A version-2 cloud store's head (docs/SYNC.md): what the store held after its last change, sealed
/// under the account key, which every device checks before it applies anything.
///
/// - `links`: a hash chain, one link per change of the store; link n digests link n-1, the epoch
///   (which account key sealed it), n and everything below. A device remembers the last link it
///   saw and refuses a head whose chain does not pass through it: the store was rewound, forked or
///   replaced.
/// - `devices`: every device that joined, with its signing key, and which are revoked.
/// - `manifest`: every record (tombstones too) with its version and the digest of its file: a
///   record missing from the folder, an older copy put back or a file that is not the one listed is
///   told apart from a real change.
package struct CloudHead: Equatable {
    package struct Device: Equatable {
        package var id: Bytes16
        package var name: String
        package var publicKey: [UInt8]
        package var revoked: Bool
    }

    package struct Entry: Equatable {
        package var tag: UInt64
        /// BLAKE2b-128 of the record file's bytes.
        package var digest: Bytes16
        package var isTombstone: Bool
        /// A record written before the store's upgrade (no signature): the devices that hold it
        /// sign it again on their next sync.
        package var isUnsigned = false

        package init(tag: UInt64, digest: Bytes16, isTombstone: Bool, isUnsigned: Bool = false) {
            self.tag = tag
            self.digest = digest
            self.isTombstone = isTombstone
            self.isUnsigned = isUnsigned
        }
    }

    /// Which account key seals the store: 1 at creation or upgrade, one more at each rotation.
    package var epoch: UInt32
    package var links: [[UInt8]] = []
    package var devices: [Device] = []
    package var manifest: [Bytes16: Entry] = [:]

    package init(epoch: UInt32) { self.epoch = epoch }

    /// How many changes the chain counts.
    package var sequence: Int { links.count }
    /// The current link (empty for a store nothing was written to).
    package var current: [UInt8] { links.last ?? [] }

    /// A head as printed for people: its sequence number and link, in hex.
    package static func text(sequence: Int, link: [UInt8]) -> String { "\(sequence):" + Hex.lowercase(link) }

    package var text: String { Self.text(sequence: sequence, link: current) }

    /// Whether this head's chain passes through link `link` at `sequence` (0: any head does).
    package func descends(from sequence: Int, link: [UInt8]) -> Bool {
        sequence == 0 || (sequence <= links.count && links[sequence - 1] == link)
    }

    /// The device named `name` or whose identity (hex) starts with `name`.
    package func device(named name: String) -> Device? {
        devices.first { $0.name == name }
            ?? (name.count >= 8 ? devices.first { Hex.lowercase($0.id.bytes).hasPrefix(name.lowercased()) } : nil)
    }

    /// Appends the link that seals the head as it now is.
    package mutating func advance() {
        links.append(link(after: current, sequence: links.count + 1))
    }

    /// Whether the last link is the one the head's contents make (a head whose body was swapped
    /// under an old chain is not).
    var isConsistent: Bool {
        links.isEmpty
            ? devices.isEmpty && manifest.isEmpty
            : link(after: links.count > 1 ? links[links.count - 2] : [], sequence: links.count) == current
    }

    private func link(after previous: [UInt8], sequence: Int) -> [UInt8] {
        let body = encodedBody
        return Sodium.fingerprint { (feed) throws(Never) in
            SealFormat.lengthPrefixed([Array("kcc2 link".utf8), previous]).withUnsafeBytes(feed)
            withUnsafeBytes(of: epoch.bigEndian, feed)
            withUnsafeBytes(of: UInt64(sequence).bigEndian, feed)
            body.withUnsafeBytes(feed)
        }
    }

    // MARK: Encoding

    private static let magic = Array("kch1".utf8)
    /// The largest head read: 64 MiB (a million records' entries).
    static let byteLimit = 64 << 20

    static func associatedData(epoch: UInt32) -> [UInt8] {
        SealFormat.lengthPrefixed([Array("kcc2 head".utf8), withUnsafeBytes(of: epoch.bigEndian) { Array($0) }])
    }

    private var encodedBody: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(8 + devices.count * 64 + manifest.count * 41)
        Self.append(UInt32(devices.count), to: &out)
        for device in devices {
            out += device.id.bytes + device.publicKey
            out.append(device.revoked ? 1 : 0)
            let name = Array(device.name.utf8.prefix(255))
            out.append(UInt8(name.count))
            out += name
        }
        Self.append(UInt32(manifest.count), to: &out)
        for (uuid, entry) in manifest.sorted(by: { $0.key < $1.key }) {
            out += uuid.bytes
            Self.append(entry.tag, to: &out)
            out += entry.digest.bytes
            out.append((entry.isTombstone ? 1 : 0) | (entry.isUnsigned ? 2 : 0))
        }
        return out
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to out: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { out += $0 }
    }

    /// The head sealed under `accountKey`.
    package func sealed(under accountKey: SecretBytes) -> [UInt8] {
        plain.withUnsafeBytes { AEAD.seal($0, key: accountKey, associatedData: Self.associatedData(epoch: epoch)) }
    }

    /// The head as it is sealed.
    package var plain: [UInt8] {
        var plain = Self.magic
        Self.append(epoch, to: &plain)
        Self.append(UInt32(links.count), to: &plain)
        for link in links { plain += link }
        return plain + encodedBody
    }

    /// The head `sealed` holds; `nil` when it does not open under `accountKey` as a head of epoch
    /// `epoch`, does not parse, or its last link is not its contents'.
    package static func open(_ sealed: [UInt8], epoch: UInt32, accountKey: SecretBytes) -> CloudHead? {
        guard let plain = AEAD.openPublic(sealed, key: accountKey, associatedData: associatedData(epoch: epoch)) else { return nil }
        return parse(plain, epoch: epoch)
    }

    /// The head an opened (plaintext) head of epoch `epoch` holds; `nil` when it does not parse or
    /// its last link is not its contents'.
    package static func parse(_ plain: [UInt8], epoch: UInt32) -> CloudHead? {
        var cursor = ByteCursor(bytes: plain)
        guard cursor.take(4) == magic, let readEpoch = cursor.integer(UInt32.self), readEpoch == epoch,
            let linkCount = cursor.count(each: 32)
        else { return nil }
        var head = CloudHead(epoch: epoch)
        head.links.reserveCapacity(linkCount)
        for _ in 0..<linkCount {
            guard let link = cursor.take(32) else { return nil }
            head.links.append(link)
        }
        guard let deviceCount = cursor.count(each: 50) else { return nil }
        for _ in 0..<deviceCount {
            guard let id = cursor.uuid(), let key = cursor.take(32), let revoked = cursor.byte(), revoked <= 1,
                let name = cursor.shortText()
            else { return nil }
            head.devices.append(Device(id: id, name: name, publicKey: key, revoked: revoked == 1))
        }
        guard Set(head.devices.map(\.id)).count == head.devices.count, Set(head.devices.map(\.name)).count == head.devices.count,
            let entryCount = cursor.count(each: 41)
        else { return nil }
        head.manifest.reserveCapacity(entryCount)
        for _ in 0..<entryCount {
            guard let uuid = cursor.uuid(), let tag = cursor.integer(UInt64.self),
                let digest = cursor.uuid(), let flags = cursor.take(1), flags[0] <= 3
            else { return nil }
            head.manifest[uuid] = Entry(tag: tag, digest: digest, isTombstone: flags[0] & 1 == 1, isUnsigned: flags[0] & 2 == 2)
        }
        guard cursor.isAtEnd, head.manifest.count == entryCount, head.isConsistent else { return nil }
        return head
    }
}
