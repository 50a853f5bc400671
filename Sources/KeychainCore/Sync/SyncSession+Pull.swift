import KeychainFormats
import KeychainFoundation

/// Pulling: what other devices changed, applied by record UUID, collisions resolved as CKKS does.
extension SyncSession {
    // MARK: Pull

    /// Applies every record that changed in the cloud since this device last saw it.
    func pull() throws {
        // Only records whose file changed are read, in UUID order (so the report's order). One
        // lookup per file both compares its stamp and marks its entry listed, for `push`.
        var changed: [(uuid: Bytes16, stamp: CloudStore.Stamp)] = []
        for (uuid, stamp) in listed {
            if let index = state.entries.index(forKey: uuid) {
                state.entries.values[index].listed = true
                if state.entries.values[index].stamp == stamp { continue }
            }
            changed.append((uuid, stamp))
        }
        changed.sort { $0.uuid < $1.uuid }
        if !changed.isEmpty, cloud.format != .v1 { _ = try loadHead() }
        for (uuid, stamp) in changed {
            guard !vanished.contains(uuid), !settled.contains(uuid), pendingDeletes[uuid] == nil else { continue }
            let entry = state.entries[uuid]
            let record: CloudRecord
            do {
                guard let found = try cloud.record(uuid) else {
                    vanished.insert(uuid)
                    continue
                }
                record = found
            } catch let error as KeychainError {
                fail(uuid, .decode, error.hint)
                continue
            } catch let error as StoreError {
                fail(uuid, .io, error.message)
                continue
            }
            if var entry, record.tag == entry.tag, cloud.format == .v1 || record.fileDigest == head?.manifest[uuid]?.digest {
                entry.stamp = stamp
                remember(uuid, entry)
                continue
            }
            if cloud.format != .v1, let problem = check(record) {
                // Never applied; the store gets back what it should hold, from this device.
                var reason = "cloud record \(CloudStore.name(uuid)) \(problem); nothing was applied from it"
                if let entry, try reupload(uuid, entry: entry, over: record.tag) {
                    reason += ", and this device's copy was uploaded again"
                } else if head?.manifest[uuid]?.isTombstone == true || (entry == nil && state.deleted.contains(uuid)) {
                    retire(uuid, record.itemClass, tag: record.tag)
                    reason += ", and its deletion record was written again"
                }
                fail(uuid, .decode, reason + ".")
                continue
            }
            // An older version than the one this device applied, or a record it saw deleted, was
            // put back (a file server or git host replaying an old copy): never applied.
            if let entry, let theirs = Self.version(record.tag), let ours = Self.version(entry.tag), theirs < ours {
                try rolledBack(record, entry: entry, theirs: theirs, ours: ours)
                continue
            }
            if record.isTombstone {
                try incomingDeletion(record, entry: entry)
                continue
            }
            if entry == nil, state.deleted.contains(uuid) {
                retire(uuid, record.itemClass, tag: record.tag)
                fail(
                    uuid, .decode,
                    "cloud record \(CloudStore.name(uuid)) was deleted and is back: an older copy of the store was put back "
                        + "(rolled back); it was not applied, and is deleted again.")
                continue
            }
            if record.origin == state.deviceID {
                adopt(record, stamp: stamp)
                continue
            }
            if let problem = Self.problem(with: record) {
                fail(uuid, .decode, "cloud record \(CloudStore.name(uuid)) \(problem); nothing was applied from it.")
                continue
            }
            if let entry {
                try incomingChange(record, stamp: stamp, entry: entry)
            } else {
                try incomingNew(record, stamp: stamp)
            }
        }
    }

    /// Record `record` is older than the version `entry` says this device applied: reported (exit
    /// 93), not applied, and this device's copy uploaded again over it when it can be read, so the
    /// cloud holds the newer version once more.
    func rolledBack(_ record: CloudRecord, entry: SyncState.Entry, theirs: UInt64, ours: UInt64) throws {
        let uuid = record.uuid
        var reason =
            "cloud record \(CloudStore.name(uuid)) is version \(theirs), older than version \(ours) applied here: "
            + "an older copy was put back (rolled back); it was not applied"
        if try reupload(uuid, entry: entry, over: record.tag) { reason += ", and this device's copy was uploaded again" }
        fail(uuid, .decode, reason + ".")
    }

    /// Uploads this device's copy of record `uuid` (mapped by `entry`) again, one version newer
    /// than `entry`, `seen` and what the head lists: the store lost, replaced or rolled back the
    /// record. Whether it was: not for a row that is gone, no longer syncs, is of a class the
    /// device's lock keeps closed, or does not open.
    @discardableResult
    func reupload(_ uuid: Bytes16, entry: SyncState.Entry, over seen: UInt64) throws -> Bool {
        guard let here = local[entry.rowUUID], Self.eligibility(here.row) == nil, !isLocked(here.row),
            let opened = try openLocal(here.itemClass, here.row)
        else { return false }
        var entry = entry
        entry.tag = max(entry.tag, seen, head?.manifest[uuid]?.tag ?? 0)
        remember(uuid, entry)
        let newer = outgoing(opened, row: here.row, as: uuid)
        upload(newer, content: newer.contentDigest, of: opened.item, row: here.row)
        return true
    }

    /// A tombstone: the item is deleted here when this device holds it (the deletion wins over a
    /// change made here, as CloudKit's does), and its UUID remembered, so that an older copy put
    /// back later is a rollback.
    func incomingDeletion(_ record: CloudRecord, entry: SyncState.Entry?) throws {
        settled.insert(record.uuid)
        guard let entry else {
            if state.deleted.insert(record.uuid).inserted { stateChanged = true }
            return
        }
        if let here = local[entry.rowUUID], Self.eligibility(here.row) == nil {
            try store.delete(here.itemClass, rowid: here.row.rowid)
            local[entry.rowUUID] = nil
            add(
                .deleted, uuid: record.uuid, entry.itemClass, "deleted on another device", ref: here.row.ref(here.itemClass),
                writer: writerName(record))
        }
        forget(record.uuid)
    }

    /// A record this device wrote but never recorded: its sync was killed after writing the cloud
    /// and before its keychain committed. The record is mapped back to the row it came from as it
    /// was then, so `push` uploads whatever changed there since (or deletes the record when the
    /// row is gone), instead of taking it for another device's copy and losing the later change.
    func adopt(_ record: CloudRecord, stamp: CloudStore.Stamp) {
        if let previous = mappedRecord(ofRow: record.originRow), previous != record.uuid { forget(previous) }
        remember(
            record.uuid,
            SyncState.Entry(
                itemClass: record.itemClass, rowUUID: record.originRow, tag: record.tag, sealedDigest: .zero,
                contentDigest: record.contentDigest, primaryKeyDigest: Self.primaryKeyDigest(Self.item(record, rowUUID: record.originRow)),
                stamp: stamp))
    }

    /// A change from another device to a record this device holds.
    func incomingChange(_ record: CloudRecord, stamp: CloudStore.Stamp, entry: SyncState.Entry) throws {
        // Deleted or taken out of sync here: the deletion wins (CloudKit deletions are not
        // conditional), and `push` deletes the record.
        guard let here = local[entry.rowUUID], Self.eligibility(here.row) == nil else { return }
        settled.insert(record.uuid)
        if waits(record, orRow: here.row) { return }
        if here.row.sealedDigest == entry.sealedDigest, record.contentDigest == entry.contentDigest {
            // A new version of what this device holds (a copy uploaded again): nothing to apply.
            var entry = entry
            (entry.tag, entry.stamp) = (record.tag, stamp)
            remember(record.uuid, entry)
            report.unchanged += 1
            return
        }
        var changedHere = false
        if here.row.sealedDigest != entry.sealedDigest {
            guard let opened = try openLocal(here.itemClass, here.row) else { return }
            changedHere = outgoing(opened, row: here.row, as: record.uuid).contentDigest != entry.contentDigest
        }
        guard let sealed = try place(record, over: (here.row.rowid, here.row.uuid), itemClass: here.itemClass) else { return }
        remember(record, stamp: stamp, rowUUID: here.row.uuid, sealed: sealed)
        add(
            changedHere ? .conflictLost : .updated, record,
            changedHere
                ? "changed here and on another device; the other device's change reached the cloud first and replaced this one "
                    + "(server record changed)"
                : "changed on another device")
    }

    /// A record this device has never held: added here, unless an item here holds its primary key,
    /// when CKKS's rules decide (docs/FIDELITY.md).
    func incomingNew(_ record: CloudRecord, stamp: CloudStore.Stamp) throws {
        settled.insert(record.uuid)
        if waits(record, orRow: nil) { return }
        let item = Self.item(record, rowUUID: Bytes16.random())
        let sealed = try keys.seal(item, secret: record.secret)
        let holder: (rowid: Int64, opened: OpenedRow)?
        do {
            holder = try keychain.clearTombstone(for: sealed, record.itemClass, inGroup: item.accessGroup)
        } catch let error as KeychainError where error.status == .decode {
            fail(record.uuid, .decode, error.hint)
            return
        }
        guard let holder else {
            guard try store.insert(record.itemClass, sealed) == .written else {
                throw KeychainError(.duplicateItem, hint: "cloud record \(CloudStore.name(record.uuid)) collides with an item here.")
            }
            try keychain.noteAccessControl(of: sealed)
            let rowUUID = noteLocal(record.itemClass, sealed, rowid: nil)
            remember(record, stamp: stamp, rowUUID: rowUUID, sealed: sealed)
            add(.pulled, record, "added on another device", ref: item.persistentRef)
            return
        }
        let holderUUID = Bytes16(holder.opened.row.uuid) ?? .zero
        let uploaded = mappedRecord(ofRow: holderUUID)
        if let uploaded, isListed(uploaded), pendingDeletes[uploaded] == nil {
            let (oursWins, why) = try firstCopy(ours: uploaded, theirs: record)
            if oursWins {
                // Both copies reached the cloud: the same one wins on every device.
                retire(record.uuid, record.itemClass, tag: record.tag)
                add(
                    .conflictWon, record,
                    "the same item was added on another device as \(SyncReport.uuidText(record.uuid)); this device's copy, "
                        + "\(SyncReport.uuidText(uploaded)), \(why) and stays everywhere",
                    ref: PersistentRef(itemClass: record.itemClass, uuid: holderUUID.bytes))
                return
            }
            retire(uploaded, record.itemClass, tag: state.entries[uploaded]?.tag ?? 0)
            settled.insert(uploaded)
            forget(uploaded)
            guard let sealed = try place(record, over: (holder.rowid, holderUUID), itemClass: record.itemClass) else { return }
            remember(record, stamp: stamp, rowUUID: holderUUID, sealed: sealed)
            add(
                .conflictLost, record,
                "the same item was added here as \(SyncReport.uuidText(uploaded)); the other device's copy \(why) and "
                    + "replaces it everywhere")
            return
        }
        if let uploaded { forget(uploaded) }
        guard let sealed = try place(record, over: (holder.rowid, holderUUID), itemClass: record.itemClass) else { return }
        remember(record, stamp: stamp, rowUUID: holderUUID, sealed: sealed)
        add(.conflictLost, record, "the same item was added here but had not reached the cloud; the cloud's copy replaces it")
    }

    /// Which of two copies of one item, both in the cloud, stays everywhere: in a version-1 store
    /// the lower UUID (CKKS's rule); in a version-2 store the copy written first, by the signed
    /// times, then the device that joined first, never a UUID a writer picks. Returns whether
    /// this device's copy `ours` wins, and why in words that fit either copy.
    func firstCopy(ours: Bytes16, theirs record: CloudRecord) throws -> (Bool, String) {
        guard cloud.format != .v1 else { return (ours < record.uuid, "has the lower UUID") }
        // This device's copy already deleted (by a device that settled the conflict first): theirs stays.
        guard let mine = try? cloud.record(ours), !mine.isTombstone else { return (false, "was written first (signed times)") }
        let order = try loadHead().devices.map(\.id)
        let rank = { (copy: CloudRecord) in (copy.written, order.firstIndex(of: copy.origin) ?? order.count) }
        let oursFirst = rank(mine) < rank(record) || (rank(mine) == rank(record) && ours < record.uuid)
        return (oursFirst, "was written first (signed times)")
    }

    /// Writes `record` over row `target` (keeping its UUID, so its persistent reference); the
    /// sealed row, or `nil` when another item holds the record's primary key (reported).
    func place(_ record: CloudRecord, over target: (rowid: Int64, uuid: Bytes16), itemClass: ItemClass) throws
        -> SealedItem?
    {
        let item = Self.item(record, rowUUID: target.uuid)
        let sealed = try keys.seal(item, secret: record.secret)
        do {
            if try keychain.clearTombstone(for: sealed, itemClass, inGroup: item.accessGroup, except: target.rowid) != nil {
                fail(record.uuid, .decode, "cloud record \(CloudStore.name(record.uuid)) has the primary key of another item here.")
                return nil
            }
        } catch let error as KeychainError where error.status == .decode {
            fail(record.uuid, .decode, error.hint)
            return nil
        }
        guard try store.update(itemClass, rowid: target.rowid, sealed) == .written else {
            throw KeychainError(.duplicateItem, hint: "cloud record \(CloudStore.name(record.uuid)) collides with an item here.")
        }
        try keychain.noteAccessControl(of: sealed)
        noteLocal(itemClass, sealed, rowid: target.rowid)
        return sealed
    }
}
