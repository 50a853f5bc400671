import KeychainFormats
import KeychainFoundation

/// What a sync is told besides the store: the name this device joins under, and the head the
/// store is expected to descend from (handed out of band, or accepting a deliberate reset).
package struct SyncOptions: Sendable {
    package var deviceName: String
    /// `SEQUENCE:LINK` as `cloud head` prints it.
    package var expectedHead: String?

    package init(deviceName: String, expectedHead: String? = nil) {
        self.deviceName = deviceName
        self.expectedHead = expectedHead
    }

    /// A head as `cloud head` prints it, parsed; `nil` when it is not one.
    package static func parseHead(_ text: String) -> (sequence: Int, link: [UInt8])? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let sequence = Int(parts[0]), sequence >= 0, let link = Hex.decode(String(parts[1])),
            link.count == (sequence == 0 ? 0 : 32)
        else { return nil }
        return (sequence, link)
    }
}

/// A version-2 store's head, as a sync checks and extends it (docs/SYNC.md): the chain must pass
/// through the last head this device saw, every record read must be the one the head lists or a
/// newer one its writer signed, and a sync that writes appends a link.
extension SyncSession {
    /// Takes this device's signing key, and reads and checks the head when it changed since this
    /// device's last sync (or a head is expected).
    func checkHead() throws {
        guard let epoch = cloud.format.epoch else { return }
        if state.signingSeed.isEmpty {
            state.signingSeed = keys.syncSigningSeed.withUnsafeBytes { Array($0) }
            stateChanged = true
        }
        signer = DeviceSigningKey(seed: SecretBytes(copying: state.signingSeed))
        if options.expectedHead != nil || state.head.sequence == 0 || state.head.epoch != epoch
            || cloud.headStamp() != state.head.stamp
        {
            _ = try loadHead()
        }
    }

    /// The head, read and checked once.
    func loadHead() throws -> CloudHead {
        if let head { return head }
        let read = try cloud.head()
        try accept(read)
        head = read
        return read
    }

    /// Refuses a head that does not descend from the one expected or last seen, or that changes a
    /// pinned device; pins the devices it lists.
    private func accept(_ head: CloudHead) throws {
        let remembered = CloudHead.text(sequence: state.head.sequence, link: state.head.link)
        if let expected = options.expectedHead {
            guard let (sequence, link) = SyncOptions.parseHead(expected) else {
                throw ConfigurationError("--expect-head takes a head as 'keychainctl cloud head' prints it (SEQUENCE:LINK).")
            }
            guard head.descends(from: sequence, link: link) else {
                throw KeychainError(
                    .decode,
                    hint: "the cloud store \(cloud.path) has head \(head.text), which does not pass through the head expected, "
                        + "\(expected): it is not the store that head came from, or it was rewound; nothing was applied or changed.")
            }
        } else if state.head.sequence > 0, !head.descends(from: state.head.sequence, link: state.head.link) {
            let what =
                head.sequence < state.head.sequence
                ? "rewound: its head is \(head.text), older than \(remembered), the head this device saw last"
                : "forked or replaced: its head is \(head.text), which does not pass through \(remembered), the head this device saw last"
            throw KeychainError(
                .decode,
                hint: "the cloud store \(cloud.path) was \(what) (an older copy of the store was put back, or another history "
                    + "replaced it); nothing was applied or changed. If it was reset on purpose, accept it as it is now: run "
                    + "this sync again with --expect-head \(head.text)")
        }
        if let me = head.devices.first(where: { $0.id == state.deviceID }), me.revoked {
            throw KeychainError(
                .authFailed,
                hint: "this device (\(me.name)) was revoked from the cloud store \(cloud.path): the other devices refuse what it "
                    + "writes; nothing was read or changed.")
        }
        for device in head.devices {
            let name = device.name
            if let pinned = state.devices[device.id] {
                guard pinned.publicKey == device.publicKey else {
                    throw KeychainError(
                        .decode,
                        hint: "the cloud store \(cloud.path) lists device \(name) with a signing key other than the one this device "
                            + "knows for it: its device list was forged; nothing was applied or changed.")
                }
            } else if state.devices.contains(where: { $0.value.name == name && $0.key != device.id }) {
                throw KeychainError(
                    .decode,
                    hint: "the cloud store \(cloud.path) lists a new device under the name \(name), which this device knows as "
                        + "another device: its device list was forged; nothing was applied or changed.")
            }
        }
        for device in head.devices {
            let pinned = state.devices[device.id]
            let pin = SyncState.PinnedDevice(
                publicKey: device.publicKey, revoked: device.revoked || pinned?.revoked == true, name: device.name)
            if pinned != pin {
                state.devices[device.id] = pin
                stateChanged = true
            }
        }
    }

    /// Why `record` (read from a version-2 store) is not applied; `nil` when it may be. A record
    /// older than the head lists, or of the version it lists but another file, is an older copy
    /// put back. Any other must carry the signature of the device it names, which must be in good
    /// standing (a revoked device's record only as the head listed it before the revocation). An
    /// unsigned record (written before the store's upgrade) is taken only by a device that holds
    /// that very version, which then signs it again (`push`).
    func check(_ record: CloudRecord) -> String? {
        let listed = head?.manifest[record.uuid]
        let asListed = listed?.digest == record.fileDigest
        if let listed, !asListed, let theirs = Self.version(record.tag), let known = Self.version(listed.tag), theirs <= known {
            return theirs < known
                ? "is version \(theirs), older than version \(known) the store's head lists: an older copy was put back (rolled back)"
                : "is not the version-\(known) file the store's head lists: it was replaced"
        }
        guard record.signature != nil else {
            if let entry = state.entries[record.uuid], entry.tag == record.tag { return nil }
            return "is unsigned (written by keychainctl 1.0 or earlier, or forged): only a device that already holds this version "
                + "takes it, and signs it again on its next sync"
        }
        let key: [UInt8]
        let name: String
        if record.origin == state.deviceID, let signer {
            (key, name) = (signer.publicKey, "this device")
        } else {
            guard let device = state.devices[record.origin] else {
                return "was written by a device that is not in the store's device list"
            }
            guard !device.revoked || asListed else { return "was written by \(device.name), a revoked device, after its revocation" }
            (key, name) = (device.publicKey, device.name)
        }
        guard record.isSigned(by: key) else {
            return "does not carry the signature of \(name), the device it names as its writer: it was forged"
        }
        if !asListed {
            verified[record.uuid] = CloudHead.Entry(tag: record.tag, digest: record.fileDigest, isTombstone: record.isTombstone)
        }
        return nil
    }

    /// This device's name: the one it joined under, or, until it joined, the one it was given.
    var deviceName: String { state.deviceName.isEmpty ? options.deviceName : state.deviceName }

    /// The name of the device that signed `record`, when the store is version 2.
    func writerName(_ record: CloudRecord) -> String? {
        guard cloud.format != .v1, record.signature != nil else { return nil }
        if record.origin == state.deviceID { return deviceName }
        return state.devices[record.origin]?.name
    }

    /// Records the head lists that are not in the store and that this device holds no entry for:
    /// named (the devices holding them upload them again); a lost tombstone is written again.
    func reportVanished() {
        guard let head else { return }
        for (uuid, entry) in head.manifest.sorted(by: { $0.key < $1.key })
        where !isListed(uuid) && state.entries[uuid] == nil && pendingDeletes[uuid] == nil && pendingWrites[uuid] == nil {
            if entry.isTombstone {
                retire(uuid, .genericPassword, tag: entry.tag)
            }
            fail(
                uuid, .decode,
                "cloud record \(CloudStore.name(uuid)) vanished from the store without a deletion record (its host or a forced push "
                    + "removed it)"
                    + (entry.isTombstone ? "; it was a deletion record, written again" : "; this device holds no copy of it"))
        }
    }

    /// Appends a link to the head for what this sync wrote (and newer records it checked), and
    /// lists this device when it is not yet; remembers the head.
    func commitHead(written: [Bytes16: (stamp: CloudStore.Stamp, digest: Bytes16)]) throws {
        let joined = state.devices[state.deviceID] != nil && !state.deviceName.isEmpty
        if written.isEmpty, verified.isEmpty, joined, head == nil { return }
        var next = try loadHead()
        var changed = false
        for (uuid, entry) in verified where next.manifest[uuid] != entry {
            next.manifest[uuid] = entry
            changed = true
        }
        for (uuid, file) in written {
            guard let record = pendingWrites[uuid] else { continue }
            next.manifest[uuid] = CloudHead.Entry(tag: record.tag, digest: file.digest, isTombstone: record.isTombstone)
            changed = true
        }
        if !next.devices.contains(where: { $0.id == state.deviceID }), let signer {
            let taken = Set(next.devices.map(\.name))
            var name = deviceName
            let base = name
            var suffix = 2
            while taken.contains(name) {
                name = "\(base)-\(suffix)"
                suffix += 1
            }
            next.devices.append(CloudHead.Device(id: state.deviceID, name: name, publicKey: signer.publicKey, revoked: false))
            state.deviceName = name
            changed = true
        }
        if let me = next.devices.first(where: { $0.id == state.deviceID }), !joined {
            state.devices[me.id] = SyncState.PinnedDevice(publicKey: me.publicKey, revoked: me.revoked, name: me.name)
            state.deviceName = me.name
            stateChanged = true
        }
        var stamp = cloud.headStamp() ?? .none
        if changed {
            next.advance()
            stamp = try cloud.write(next)
        }
        head = next
        let remembered = SyncState.RememberedHead(epoch: next.epoch, sequence: next.sequence, link: next.current, stamp: stamp)
        if remembered != state.head {
            state.head = remembered
            stateChanged = true
        }
    }
}
