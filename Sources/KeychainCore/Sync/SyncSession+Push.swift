import KeychainFormats
import KeychainFoundation

/// Pushing: what changed here, uploaded (collected for `commitCloud`).
extension SyncSession {
    // MARK: Push

    /// Uploads what changed here, deletes what was deleted here, and deletes here what another
    /// device deleted.
    func push() throws {
        // Entries whose row and record are both as they were are counted, not visited in order.
        var visit: [Bytes16] = []
        // Rows here that an entry maps (an entry maps one row, a row has at most one entry).
        var mappedHere = 0
        let handled = !settled.isEmpty || !pendingDeletes.isEmpty
        // Records written before the store's upgrade, which this device signs again.
        let unsigned = Set(head?.manifest.lazy.filter { $0.value.isUnsigned }.map(\.key) ?? [])
        for (uuid, entry) in state.entries {
            let here = local[entry.rowUUID]
            if here != nil { mappedHere += 1 }
            if handled, settled.contains(uuid) || pendingDeletes[uuid] != nil { continue }
            if let here, here.row.sealedDigest == entry.sealedDigest, entry.listed, vanished.isEmpty || !vanished.contains(uuid),
                Self.eligibility(here.row) == nil, unsigned.isEmpty || !unsigned.contains(uuid)
            {
                report.unchanged += 1
            } else {
                visit.append(uuid)
            }
        }
        for uuid in visit.sorted() {
            guard let entry = state.entries[uuid] else { continue }
            let found = local[entry.rowUUID]
            let here = found.flatMap { Self.eligibility($0.row) == nil ? $0 : nil }
            // The two deletions below leave the row unmapped (or gone): it is counted no more.
            let present = isListed(uuid)
            if found != nil, here == nil || (!present && cloud.format == .v1) { mappedHere -= 1 }
            if !present, cloud.format != .v1, let here {
                // Gone from the store without a tombstone: the store was damaged, never a deletion.
                let reason =
                    "cloud record \(CloudStore.name(uuid)) vanished from the store without a deletion record (its host or a "
                    + "forced push removed it); the item here is kept"
                if isLocked(here.row) {
                    fail(uuid, .decode, reason + ", and is uploaded again by the first sync after 'keychainctl device unlock'.")
                } else {
                    try reupload(uuid, entry: entry, over: 0)
                    fail(uuid, .decode, reason + " and was uploaded again.")
                }
                continue
            }
            guard present || cloud.format != .v1 else {
                if let here {
                    try store.delete(here.itemClass, rowid: here.row.rowid)
                    local[entry.rowUUID] = nil
                    add(.deleted, uuid: uuid, entry.itemClass, "deleted on another device", ref: here.row.ref(here.itemClass))
                }
                forget(uuid)
                continue
            }
            guard let here else {
                retire(uuid, entry.itemClass, tag: entry.tag)
                forget(uuid)
                add(
                    .deleted, uuid: uuid, entry.itemClass, try deletionReason(entry),
                    ref: PersistentRef(itemClass: entry.itemClass, uuid: entry.rowUUID.bytes))
                continue
            }
            if unsigned.contains(uuid), !isLocked(here.row), here.row.sealedDigest == entry.sealedDigest {
                try reupload(uuid, entry: entry, over: entry.tag)
                add(
                    .pushed, uuid: uuid, entry.itemClass, "signed by this device: it was written before the store's upgrade",
                    ref: here.row.ref(here.itemClass))
                continue
            }
            guard here.row.sealedDigest != entry.sealedDigest, !isLocked(here.row) else {
                report.unchanged += 1
                continue
            }
            guard let opened = try openLocal(here.itemClass, here.row) else { continue }
            var record = outgoing(opened, row: here.row, as: uuid)
            let content = record.contentDigest
            guard content != entry.contentDigest else {
                var refreshed = entry
                refreshed.sealedDigest = here.row.sealedDigest
                remember(uuid, refreshed)
                report.unchanged += 1
                continue
            }
            if Self.primaryKeyDigest(opened.item) != entry.primaryKeyDigest {
                // A primary-key change travels as a deletion and an addition under a new UUID.
                retire(uuid, entry.itemClass, tag: entry.tag)
                forget(uuid)
                record.uuid = Bytes16.random()
                upload(record, content: content, of: opened.item, row: here.row)
                add(
                    .pushed, opened.item,
                    "its primary key changed here: record \(SyncReport.uuidText(uuid)) was deleted and the item uploaded as a new record")
                continue
            }
            upload(record, content: content, of: opened.item, row: here.row)
            add(.pushed, opened.item, "changed here")
        }
        // Rows no entry maps: none when every entry's row was found and they are all the rows.
        let unmapped = (mappedHere == local.count ? [] : local.values.filter { mappedRecord(ofRow: $0.row.uuid) == nil }).sorted {
            ($0.itemClass, $0.row.rowid) < ($1.itemClass, $1.row.rowid)
        }
        for (itemClass, row) in unmapped {
            if let why = Self.eligibility(row) {
                // Named by its attributes when its class is open; never its secret.
                let sealed = isLocked(row) ? nil : try store.row(itemClass, rowid: row.rowid)
                if let sealed, let opened = try? keys.openRow(sealed, itemClass: itemClass) {
                    add(.notSyncing, opened.item, why)
                } else {
                    add(.notSyncing, uuid: nil, itemClass, why, ref: row.ref(itemClass))
                }
                continue
            }
            guard !isLocked(row), let opened = try openLocal(itemClass, row) else { continue }
            let record = outgoing(opened, row: row, as: Bytes16.random())
            upload(record, content: record.contentDigest, of: opened.item, row: row)
            add(.pushed, opened.item, "added here")
        }
    }

    /// Queues `opened` (row `row`) for upload as record `uuid` with a new change tag.
    /// The record `opened` (row `row`) would be uploaded as, under `uuid` with a new change tag:
    /// every attribute but `tomb`, and the secret.
    func outgoing(_ opened: (item: Item, secret: ItemSecret), row: KeychainStore.SyncRow, as uuid: Bytes16) -> CloudRecord {
        var attributes = opened.item.attributes
        attributes[Schema.tombstone] = nil
        var record = CloudRecord(
            uuid: uuid, tag: Self.newTag(after: state.entries[uuid]?.tag), itemClass: opened.item.itemClass, attributes: attributes,
            secret: opened.secret,
            origin: state.deviceID, originRow: row.uuid)
        record.written = Self.now()
        return record
    }

    /// Queues `record` (whose `contentDigest` is `content`), made from `item` in row `row`, for upload.
    func upload(_ record: CloudRecord, content: Bytes16, of item: Item, row: KeychainStore.SyncRow) {
        pendingWrites[record.uuid] = record
        remember(
            record.uuid,
            SyncState.Entry(
                itemClass: record.itemClass, rowUUID: row.uuid, tag: record.tag, sealedDigest: row.sealedDigest,
                contentDigest: content, primaryKeyDigest: Self.primaryKeyDigest(item), stamp: .none))
    }

    /// Why a record this device uploaded is no longer an item to sync here.
    func deletionReason(_ entry: SyncState.Entry) throws -> String {
        var filter = RowFilter.everyRow
        filter.uuid = entry.rowUUID.bytes
        guard let row = try store.rows(entry.itemClass, filter: filter, withSecret: false).first?.row, !row.isTombstone else {
            return "deleted here; the deletion reached the cloud"
        }
        if !row.isSynchronizable { return "synchronizable turned off here (1 to 0): the other devices' copies are deleted, this one stays" }
        return (Self.eligibility(row.syncRow) ?? "no longer synchronizable") + "; the other devices' copies are deleted"
    }
}
