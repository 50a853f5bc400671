import KeychainFormats
import KeychainFoundation

/// Changing a store as a whole (docs/SYNC.md): upgrading a version-1 store, and rotating the
/// account key (revoking a device on the way). Each holds the store's lock throughout.
extension CloudStore {
    /// What a rotation did.
    package struct Rotation: Sendable {
        package var epoch: UInt32
        package var resealed = 0
        /// Record files that opened under neither key: left as they are (no device applies them).
        package var unopened: [Bytes16] = []
        package var revoked: String?
        /// Whether an interrupted rotation was finished.
        package var resumed = false
    }

    /// Re-seals every record and the head under `newKey`, one epoch on, and leaves in the marker a
    /// notice under `oldKey` saying so; with `revoking`, marks that device revoked first. The new
    /// marker is written first: from then on the old key opens nothing but the notice, and running
    /// the same rotation again after an interruption finishes it.
    package static func rotate(path: String, oldKey: SecretBytes, newKey: SecretBytes, revoking: String?) throws -> Rotation {
        guard !oldKey.equals(newKey) else {
            throw ConfigurationError("the new account key is the current one: a rotation needs a new key; nothing was changed.")
        }
        return try withLock(path: path) {
            let markerPath = path + "/" + marker
            guard let bytes = try readFile(markerPath, limit: CloudMarker.byteLimit) else {
                throw StoreError("\(path) is not a keychainctl cloud store (no \(marker)); make one with 'keychainctl cloud init'")
            }
            guard let current = CloudMarker(parsing: bytes) else {
                throw ConfigurationError(
                    "\(path) is a version-1 cloud store, which has no epochs to rotate: upgrade it first with "
                        + "'keychainctl cloud upgrade --cloud \(path)'; nothing was changed.")
            }
            guard let sealedHead = try readFile(path + "/" + headName, limit: CloudHead.byteLimit) else {
                throw KeychainError(.decode, hint: "the cloud store \(path) has no head file (\(headName)); nothing was changed.")
            }
            var rotation: Rotation
            var head: CloudHead
            switch (current.open(with: oldKey), current.open(with: newKey)) {
            case (.current(let epoch)?, _):
                guard let old = CloudHead.open(sealedHead, epoch: epoch, accountKey: oldKey) else {
                    throw KeychainError(.decode, hint: "the head of the cloud store \(path) does not open; nothing was changed.")
                }
                head = old
                rotation = Rotation(epoch: epoch + 1)
                try revoke(revoking, in: &head, rotation: &rotation)
                head.epoch = rotation.epoch
                // The commit point: the old key now opens only its notice.
                let notice = CloudMarker.notice(rotatingTo: rotation.epoch, oldKey: oldKey)
                try writeAtomically(
                    CloudMarker(epoch: rotation.epoch, key: newKey, notices: [notice] + current.notices).bytes, to: markerPath)
            case (.rotated(let notice)?, .current(let epoch)?) where notice.epoch == epoch:
                rotation = Rotation(epoch: epoch, resumed: true)
                if let done = CloudHead.open(sealedHead, epoch: epoch, accountKey: newKey) {
                    head = done
                } else if let old = CloudHead.open(sealedHead, epoch: epoch - 1, accountKey: oldKey) {
                    head = old
                    head.epoch = epoch
                } else {
                    throw KeychainError(.decode, hint: "the head of the cloud store \(path) opens under neither key; nothing was changed.")
                }
                try revoke(revoking, in: &head, rotation: &rotation)
            default:
                throw KeychainError(
                    .authFailed,
                    hint: "the account key does not open the cloud store \(path) (neither as its current key nor as the one "
                        + "before a rotation the new key finished); nothing was changed.")
            }
            let store = try CloudStore(path: path, accountKey: newKey)
            var files: [(uuid: Bytes16, sealed: [UInt8])] = []
            // The records whose file is the one the head lists: they keep their place in it. A
            // replayed or planted file is re-sealed too, and every device checks it as any file
            // the head does not list.
            var listed: Set<Bytes16> = []
            for (uuid, _) in try store.listing() {
                guard let sealed = try store.rawRecord(uuid) else { continue }
                if let resealed = CloudRecord.reseal(sealed, uuid: uuid, from: oldKey, to: newKey) {
                    if head.manifest[uuid]?.digest == digest(sealed) { listed.insert(uuid) }
                    files.append((uuid, resealed))
                } else if let done = CloudRecord.open(sealed, uuid: uuid, accountKey: newKey) {
                    // Re-sealed by the interrupted run, from the file the head listed at this version.
                    if rotation.resumed, head.manifest[uuid]?.tag == done.tag { head.manifest[uuid]?.digest = digest(sealed) }
                } else {
                    rotation.unopened.append(uuid)
                }
            }
            for start in stride(from: 0, to: files.count, by: 1000) {
                let batch = Array(files[start..<min(start + 1000, files.count)])
                for (uuid, written) in try store.write(batch) where listed.contains(uuid) {
                    head.manifest[uuid]?.digest = written.digest
                }
                rotation.resealed += batch.count
            }
            head.advance()
            _ = try store.write(head)
            return rotation
        }
    }

    /// Marks device `name` (or identity prefix) revoked in `head`.
    private static func revoke(_ name: String?, in head: inout CloudHead, rotation: inout Rotation) throws {
        guard let name else { return }
        guard let device = head.device(named: name), let index = head.devices.firstIndex(of: device) else {
            let known = head.devices.map(\.name).joined(separator: ", ")
            throw ConfigurationError(
                "no device named \(name) in the store's device list (\(known.isEmpty ? "none yet" : known)); nothing was changed.")
        }
        head.devices[index].revoked = true
        rotation.revoked = device.name
    }

    /// What an upgrade did: whether the store was version 1, how many records the new head lists,
    /// and the record files that did not open (left out of it).
    package struct Upgrade: Sendable {
        package var upgraded: Bool
        package var records = 0
        package var unopened: [Bytes16] = []
    }

    /// Makes the version-1 store at `path` a version-2 one: a head listing every record as it is,
    /// the `.gitignore` that keeps the head, and a version-2 marker, written last. A version-2 store
    /// is left as it is.
    package static func upgrade(path: String, accountKey: SecretBytes) throws -> Upgrade {
        try withLock(path: path) {
            let store = try CloudStore(path: path, accountKey: accountKey)
            guard store.format == .v1 else { return Upgrade(upgraded: false) }
            var result = Upgrade(upgraded: true)
            var head = CloudHead(epoch: 1)
            for (uuid, _) in try store.listing() {
                guard let sealed = try store.rawRecord(uuid) else { continue }
                guard let record = CloudRecord.open(sealed, uuid: uuid, accountKey: accountKey) else {
                    result.unopened.append(uuid)
                    continue
                }
                head.manifest[uuid] = CloudHead.Entry(tag: record.tag, digest: digest(sealed), isTombstone: false, isUnsigned: true)
            }
            result.records = head.manifest.count
            head.advance()
            _ = try store.write(head)
            try writeAtomically(gitignore, to: path + "/.gitignore")
            try store.write(CloudMarker(epoch: 1, key: accountKey))
            return result
        }
    }
}
