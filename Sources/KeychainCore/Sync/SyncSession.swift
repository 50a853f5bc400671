import KeychainFormats
import KeychainFoundation

/// One sync of one keychain with the cloud store (docs/SYNC.md),
/// run inside the store's lock and the keychain's write transaction. `pull` applies what other
/// devices changed, by record UUID, resolving same-primary-key collisions as CKKS does; `push`
/// uploads what changed here. Cloud writes and deletions are collected and made by `commitCloud`
/// just before the keychain's transaction commits, so a process killed in between leaves the cloud
/// ahead of the keychain, which the next sync reconciles (a record that matches the item here
/// changes nothing).
final class SyncSession {
    private let keychain: Keychain
    private let cloud: CloudStore
    private var state: SyncState
    private var stateChanged = false
    private(set) var report = SyncReport()

    /// The live synchronizable rows by row UUID.
    private var local: [Bytes16: (itemClass: ItemClass, row: KeychainStore.SyncRow)] = [:]
    /// The cloud's record files, in the folder's order.
    private var listed: [(uuid: Bytes16, stamp: CloudStore.Stamp)] = []
    /// The same by UUID, built the first time a record's presence is asked beyond the state's
    /// entries (which `pull` marks `listed`): a sync with nothing to do never builds it.
    private var listingIndex: [Bytes16: CloudStore.Stamp]?
    /// Records `pull` found gone after listing them.
    private var vanished: Set<Bytes16> = []
    /// The cloud UUID each mapped row has (the state's entries, the other way round), built when
    /// first needed: a sync with nothing to do never needs it.
    private var reverseIndex: [Bytes16: Bytes16]?
    /// Synchronizable tombstones found by the scan (purged at the end).
    private var tombstones = 0
    /// Records this sync already dealt with (applied, failed, waiting): `push` leaves them alone.
    private var settled: Set<Bytes16> = []
    private var pendingWrites: [Bytes16: CloudRecord] = [:]
    private var pendingDeletes: Set<Bytes16> = []

    private var store: KeychainStore { keychain.store }
    private var keys: KeyRing { keychain.keys }

    /// Reads the state and the keychain on this thread while another lists the cloud (a stat per
    /// record file: on a large store, as long as the keychain's scan).
    init(keychain: Keychain, cloud: CloudStore) throws {
        self.keychain = keychain
        self.cloud = cloud
        state = SyncState(deviceID: keychain.keys.syncDeviceID)
        let listingDone = ListingResult()
        var failure: Error?
        ParallelWork.run(2) { [self] worker in
            guard worker == 0 else {
                listingDone.result = Result { try cloud.listing() }
                return
            }
            do { try readKeychain() } catch { failure = error }
        }
        if let failure { throw failure }
        listed = try listingDone.result?.get() ?? []
    }

    /// Whether record `uuid` is in the cloud, as listed (less those found gone since).
    private func isListed(_ uuid: Bytes16) -> Bool {
        if listingIndex == nil {
            var index: [Bytes16: CloudStore.Stamp] = [:]
            index.reserveCapacity(listed.count)
            for (uuid, stamp) in listed { index[uuid] = stamp }
            listingIndex = index
        }
        return listingIndex?[uuid] != nil && (vanished.isEmpty || !vanished.contains(uuid))
    }

    /// What the listing thread hands back.
    private final class ListingResult: @unchecked Sendable {
        var result: Result<[(uuid: Bytes16, stamp: CloudStore.Stamp)], Error>?
    }

    /// The sync state and every synchronizable row.
    private func readKeychain() throws {
        if let record = try store.syncStateRecord() {
            guard let bytes = keys.openSyncState(record), let state = SyncState(encoded: bytes) else {
                throw StoreError(
                    "\(store.connection.path)'s sync state does not open: the file was edited without its key; nothing was synced")
            }
            self.state = state
        }
        // Each entry maps a row: sized once, instead of rehashing 100,000 UUIDs as it grows.
        local.reserveCapacity(state.entries.count)
        for itemClass in ItemClass.stored {
            let counts = try store.forEachSyncRow(itemClass) { local[$0.uuid] = (itemClass, $0) }
            report.notSynchronizable += counts.notSynchronizable
            tombstones += counts.tombstones
        }
    }

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
        for (uuid, stamp) in changed {
            guard !vanished.contains(uuid), !settled.contains(uuid), !pendingDeletes.contains(uuid) else { continue }
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
            if var entry, record.tag == entry.tag {
                entry.stamp = stamp
                remember(uuid, entry)
                continue
            }
            // An older version than the one this device applied, or a record it saw deleted, was
            // put back (a file server or git host replaying an old copy): never applied.
            if let entry, let theirs = Self.version(record.tag), let ours = Self.version(entry.tag), theirs < ours {
                try rolledBack(record, entry: entry, theirs: theirs, ours: ours)
                continue
            }
            if entry == nil, state.deleted.contains(uuid) {
                pendingDeletes.insert(uuid)
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
    private func rolledBack(_ record: CloudRecord, entry: SyncState.Entry, theirs: UInt64, ours: UInt64) throws {
        let uuid = record.uuid
        var reason =
            "cloud record \(CloudStore.name(uuid)) is version \(theirs), older than version \(ours) applied here: "
            + "an older copy was put back (rolled back); it was not applied"
        if let here = local[entry.rowUUID], Self.eligibility(here.row) == nil, !isLocked(here.row),
            let opened = try openLocal(here.itemClass, here.row)
        {
            var entry = entry
            entry.tag = max(entry.tag, record.tag)
            remember(uuid, entry)
            let newer = outgoing(opened, row: here.row, as: uuid)
            upload(newer, content: newer.contentDigest, of: opened.item, row: here.row)
            reason += ", and this device's copy was uploaded again"
        }
        fail(uuid, .decode, reason + ".")
    }

    /// A record this device wrote but never recorded: its sync was killed after writing the cloud
    /// and before its keychain committed. The record is mapped back to the row it came from as it
    /// was then, so `push` uploads whatever changed there since (or deletes the record when the
    /// row is gone), instead of taking it for another device's copy and losing the later change.
    private func adopt(_ record: CloudRecord, stamp: CloudStore.Stamp) {
        if let previous = mappedRecord(ofRow: record.originRow), previous != record.uuid { forget(previous) }
        remember(
            record.uuid,
            SyncState.Entry(
                itemClass: record.itemClass, rowUUID: record.originRow, tag: record.tag, sealedDigest: .zero,
                contentDigest: record.contentDigest, primaryKeyDigest: Self.primaryKeyDigest(Self.item(record, rowUUID: record.originRow)),
                stamp: stamp))
    }

    /// A change from another device to a record this device holds.
    private func incomingChange(_ record: CloudRecord, stamp: CloudStore.Stamp, entry: SyncState.Entry) throws {
        // Deleted or taken out of sync here: the deletion wins (CloudKit deletions are not
        // conditional), and `push` deletes the record.
        guard let here = local[entry.rowUUID], Self.eligibility(here.row) == nil else { return }
        settled.insert(record.uuid)
        if waits(record, orRow: here.row) { return }
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
    private func incomingNew(_ record: CloudRecord, stamp: CloudStore.Stamp) throws {
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
        if let uploaded, isListed(uploaded), !pendingDeletes.contains(uploaded) {
            if uploaded < record.uuid {
                // Both copies reached the cloud: the lower UUID wins on every device.
                pendingDeletes.insert(record.uuid)
                add(
                    .conflictWon, record,
                    "the same item was added on another device as \(SyncReport.uuidText(record.uuid)); this device's copy, "
                        + "\(SyncReport.uuidText(uploaded)), has the lower UUID and stays everywhere",
                    ref: PersistentRef(itemClass: record.itemClass, uuid: holderUUID.bytes))
                return
            }
            pendingDeletes.insert(uploaded)
            settled.insert(uploaded)
            forget(uploaded)
            guard let sealed = try place(record, over: (holder.rowid, holderUUID), itemClass: record.itemClass) else { return }
            remember(record, stamp: stamp, rowUUID: holderUUID, sealed: sealed)
            add(
                .conflictLost, record,
                "the same item was added here as \(SyncReport.uuidText(uploaded)); the other device's copy has the lower UUID and "
                    + "replaces it everywhere")
            return
        }
        if let uploaded { forget(uploaded) }
        guard let sealed = try place(record, over: (holder.rowid, holderUUID), itemClass: record.itemClass) else { return }
        remember(record, stamp: stamp, rowUUID: holderUUID, sealed: sealed)
        add(.conflictLost, record, "the same item was added here but had not reached the cloud; the cloud's copy replaces it")
    }

    /// Writes `record` over row `target` (keeping its UUID, so its persistent reference); the
    /// sealed row, or `nil` when another item holds the record's primary key (reported).
    private func place(_ record: CloudRecord, over target: (rowid: Int64, uuid: Bytes16), itemClass: ItemClass) throws
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

    // MARK: Push

    /// Uploads what changed here, deletes what was deleted here, and deletes here what another
    /// device deleted.
    func push() throws {
        // Entries whose row and record are both as they were are counted, not visited in order.
        var visit: [Bytes16] = []
        // Rows here that an entry maps (an entry maps one row, a row has at most one entry).
        var mappedHere = 0
        let handled = !settled.isEmpty || !pendingDeletes.isEmpty
        for (uuid, entry) in state.entries {
            let here = local[entry.rowUUID]
            if here != nil { mappedHere += 1 }
            if handled, settled.contains(uuid) || pendingDeletes.contains(uuid) { continue }
            if let here, here.row.sealedDigest == entry.sealedDigest, entry.listed, vanished.isEmpty || !vanished.contains(uuid),
                Self.eligibility(here.row) == nil
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
            if found != nil, !present || here == nil { mappedHere -= 1 }
            guard present else {
                if let here {
                    try store.delete(here.itemClass, rowid: here.row.rowid)
                    local[entry.rowUUID] = nil
                    add(.deleted, uuid: uuid, entry.itemClass, "deleted on another device", ref: here.row.ref(here.itemClass))
                }
                forget(uuid)
                continue
            }
            guard let here else {
                pendingDeletes.insert(uuid)
                forget(uuid)
                add(
                    .deleted, uuid: uuid, entry.itemClass, try deletionReason(entry),
                    ref: PersistentRef(itemClass: entry.itemClass, uuid: entry.rowUUID.bytes))
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
                pendingDeletes.insert(uuid)
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
    private func outgoing(_ opened: (item: Item, secret: ItemSecret), row: KeychainStore.SyncRow, as uuid: Bytes16) -> CloudRecord {
        var attributes = opened.item.attributes
        attributes[Schema.tombstone] = nil
        return CloudRecord(
            uuid: uuid, tag: Self.newTag(after: state.entries[uuid]?.tag), itemClass: opened.item.itemClass, attributes: attributes,
            secret: opened.secret,
            origin: state.deviceID, originRow: row.uuid)
    }

    /// Queues `record` (whose `contentDigest` is `content`), made from `item` in row `row`, for upload.
    private func upload(_ record: CloudRecord, content: Bytes16, of item: Item, row: KeychainStore.SyncRow) {
        pendingWrites[record.uuid] = record
        remember(
            record.uuid,
            SyncState.Entry(
                itemClass: record.itemClass, rowUUID: row.uuid, tag: record.tag, sealedDigest: row.sealedDigest,
                contentDigest: content, primaryKeyDigest: Self.primaryKeyDigest(item), stamp: .none))
    }

    /// Why a record this device uploaded is no longer an item to sync here.
    private func deletionReason(_ entry: SyncState.Entry) throws -> String {
        var filter = RowFilter.everyRow
        filter.uuid = entry.rowUUID.bytes
        guard let row = try store.rows(entry.itemClass, filter: filter, withSecret: false).first?.row, !row.tombstone else {
            return "deleted here; the deletion reached the cloud"
        }
        if !row.sync { return "synchronizable turned off here (1 to 0): the other devices' copies are deleted, this one stays" }
        return (Self.eligibility(row.syncRow) ?? "no longer synchronizable") + "; the other devices' copies are deleted"
    }

    // MARK: Commit

    /// Makes the cloud's half of the sync: deletions, then writes (each atomic); returns whether
    /// the cloud changed.
    func commitCloud() throws -> Bool {
        try cloud.delete(pendingDeletes.sorted())
        for (uuid, stamp) in try cloud.write(pendingWrites.keys.sorted().compactMap { pendingWrites[$0] }) {
            state.entries[uuid]?.stamp = stamp
            stateChanged = true
        }
        return !pendingDeletes.isEmpty || !pendingWrites.isEmpty
    }

    /// Removes the tombstones of synchronizable items (every deletion reached the cloud) and saves
    /// the state when it changed.
    func finish() throws {
        if tombstones > 0 {
            for itemClass in ItemClass.stored { report.tombstonesPurged += try store.purgeTombstones(itemClass) }
        }
        if stateChanged { try store.writeSyncState(keys.sealSyncState(state.encoded)) }
    }

    // MARK: Helpers

    private func remember(_ uuid: Bytes16, _ entry: SyncState.Entry) {
        if let old = state.entries.updateValue(entry, forKey: uuid), old.rowUUID != entry.rowUUID { reverseIndex?[old.rowUUID] = nil }
        reverseIndex?[entry.rowUUID] = uuid
        stateChanged = true
    }

    private func remember(_ record: CloudRecord, stamp: CloudStore.Stamp, rowUUID: Bytes16, sealed: SealedItem) {
        remember(
            record.uuid,
            SyncState.Entry(
                itemClass: record.itemClass, rowUUID: rowUUID, tag: record.tag, sealedDigest: KeychainStore.sealedDigest(of: sealed),
                contentDigest: record.contentDigest, primaryKeyDigest: Self.primaryKeyDigest(Self.item(record, rowUUID: rowUUID)),
                stamp: stamp))
    }

    /// The cloud UUID row `row` is mapped to, if any.
    private func mappedRecord(ofRow row: Bytes16) -> Bytes16? {
        if reverseIndex == nil {
            var index: [Bytes16: Bytes16] = [:]
            index.reserveCapacity(state.entries.count)
            for (uuid, entry) in state.entries { index[entry.rowUUID] = uuid }
            reverseIndex = index
        }
        return reverseIndex?[row]
    }

    /// Unmaps record `uuid`, which is being deleted (here, or by another device): its UUID is
    /// remembered, so that the record put back later is a rollback, never a new item.
    private func forget(_ uuid: Bytes16) {
        guard let old = state.entries.removeValue(forKey: uuid) else { return }
        state.deleted.insert(uuid)
        if reverseIndex?[old.rowUUID] == uuid { reverseIndex?[old.rowUUID] = nil }
        stateChanged = true
    }

    /// Records that row `sealed` (new when `rowid` is `nil`) now holds an item from the cloud;
    /// returns its UUID.
    @discardableResult
    private func noteLocal(_ itemClass: ItemClass, _ sealed: SealedItem, rowid: Int64?) -> Bytes16 {
        let rowid = rowid ?? store.lastInsertedRowID
        let uuid = Bytes16(sealed.uuid) ?? .zero
        local[uuid] = (
            itemClass,
            KeychainStore.SyncRow(
                rowid: rowid, uuid: uuid, accessibility: sealed.accessibility, accessControl: sealed.accessControlText,
                sealedDigest: KeychainStore.sealedDigest(of: sealed))
        )
        return uuid
    }

    /// Whether an incoming record (or the row it would replace) is of a class the device's lock
    /// state keeps closed: CKKS parks it until unlock (the item is not here: -25300, not -25308).
    private func waits(_ record: CloudRecord, orRow row: KeychainStore.SyncRow?) -> Bool {
        let codes = [record.attributes[Schema.protection]?.stringValue, row?.accessibility].compactMap { $0 }
        guard codes.contains(where: { Accessibility(rawValue: $0).map { !keys.device.allows($0) } ?? false }) else { return false }
        add(.waiting, record, "the device is locked: the item arrives with the first sync after 'keychainctl device unlock'")
        return true
    }

    /// Whether the device's lock state keeps `row`'s class closed (it cannot be opened now).
    private func isLocked(_ row: KeychainStore.SyncRow) -> Bool {
        Accessibility(rawValue: row.accessibility).map { !keys.device.allows($0) } ?? false
    }

    /// Opens a live row with its secret; `nil` (reported) when it is damaged.
    private func openLocal(_ itemClass: ItemClass, _ row: KeychainStore.SyncRow) throws -> (item: Item, secret: ItemSecret)? {
        guard let sealed = try store.row(itemClass, rowid: row.rowid) else { return nil }
        do {
            let opened = try keys.open(sealed, itemClass: itemClass, withSecret: true)
            guard let secret = opened.secret else { throw DamagedRow.Reason.missingSecret.error(itemClass, uuid: row.uuid.bytes) }
            return (opened.opened.item, secret)
        } catch let error as KeychainError where error.status == .decode {
            report.entries.append(
                SyncReport.Entry(
                    action: .failed, itemClass: itemClass, cloudUUID: nil, ref: row.ref(itemClass), attributes: [:],
                    reason: "the item here does not open: \(error.hint)", failure: .decode))
            return nil
        }
    }

    private func fail(_ uuid: Bytes16, _ failure: SyncReport.Failure, _ reason: String) {
        settled.insert(uuid)
        report.entries.append(
            SyncReport.Entry(action: .failed, itemClass: nil, cloudUUID: uuid, ref: nil, attributes: [:], reason: reason, failure: failure))
    }

    private func add(_ action: SyncReport.Action, _ record: CloudRecord, _ reason: String, ref: PersistentRef? = nil) {
        let rowUUID = state.entries[record.uuid]?.rowUUID
        report.entries.append(
            SyncReport.Entry(
                action: action, itemClass: record.itemClass, cloudUUID: record.uuid,
                ref: ref ?? rowUUID.map { PersistentRef(itemClass: record.itemClass, uuid: $0.bytes) },
                attributes: Self.naming(record.attributes, record.itemClass), reason: reason))
    }

    private func add(_ action: SyncReport.Action, _ item: Item, _ reason: String) {
        let uuid = Bytes16(item.uuid).flatMap { mappedRecord(ofRow: $0) }
        report.entries.append(
            SyncReport.Entry(
                action: action, itemClass: item.itemClass, cloudUUID: uuid, ref: item.persistentRef,
                attributes: Self.naming(item.attributes, item.itemClass), reason: reason))
    }

    private func add(_ action: SyncReport.Action, uuid: Bytes16?, _ itemClass: ItemClass, _ reason: String, ref: PersistentRef?) {
        report.entries.append(
            SyncReport.Entry(action: action, itemClass: itemClass, cloudUUID: uuid, ref: ref, attributes: [:], reason: reason))
    }

    /// The attributes that name an item in a report: its primary key, label and protection.
    private static func naming(_ attributes: [String: AttributeValue], _ itemClass: ItemClass) -> [String: AttributeValue] {
        let codes = (Schema.of(itemClass)?.primaryKey ?? []) + [Schema.label, Schema.protection]
        return attributes.filter { codes.contains($0.key) }
    }

    /// Why a synchronizable row never leaves this device; `nil` when it syncs. CKKS carries only
    /// `ak`, `ck` and `dk` (`CKKSKeychainView.m`); an access control cannot be synchronizable at all
    /// in Apple's keychain (-50), so one that slipped in stays here.
    static func eligibility(_ row: KeychainStore.SyncRow) -> String? {
        guard row.accessControl == row.accessibility else {
            return "it has an access control, which Apple does not allow on a synchronizable item; it stays on this device"
        }
        switch Accessibility(rawValue: row.accessibility) {
        case .whenUnlocked, .afterFirstUnlock, .always: return nil
        case .whenPasscodeSetThisDeviceOnly:
            return "when-passcode-set-this-device-only (akpu) items never leave the device"
        case let accessibility?: return "\(accessibility.longName) (\(accessibility.rawValue)) items never leave the device"
        case nil: return "its protection class is unknown"
        }
    }

    /// Why `record` cannot be applied as an item; `nil` when it can.
    static func problem(with record: CloudRecord) -> String? {
        guard let schema = Schema.of(record.itemClass) else { return "is of no stored class" }
        for (code, value) in record.attributes {
            guard let attribute = schema.attribute(code), attribute.kind == value.kind else {
                return "holds an attribute \(code) the \(record.itemClass.rawValue) class does not have"
            }
        }
        guard record.attributes[Schema.synchronizable] == .bool(true), record.attributes[Schema.tombstone] == nil,
            let group = record.attributes[Schema.accessGroup]?.stringValue, !group.isEmpty,
            let pdmn = record.attributes[Schema.protection]?.stringValue, ["ak", "ck", "dk"].contains(pdmn),
            (record.attributes[Schema.accessControl]?.stringValue ?? pdmn) == pdmn
        else { return "is not a synchronizable item (sync, tomb, agrp, pdmn or accc)" }
        return nil
    }

    /// The local item a record becomes, in row `rowUUID`.
    static func item(_ record: CloudRecord, rowUUID: Bytes16) -> Item {
        var attributes = record.attributes
        attributes[Schema.tombstone] = .bool(false)
        return Item(itemClass: record.itemClass, uuid: rowUUID.bytes, attributes: attributes)
    }

    static func primaryKeyDigest(_ item: Item) -> Bytes16 {
        let codes = Schema.of(item.itemClass)?.primaryKey ?? []
        return SyncState.digest(
            [Array(item.itemClass.rawValue.utf8)] + codes.flatMap { [Array($0.utf8), item.attributes[$0]?.canonicalBytes ?? []] })
    }

    static func newTag(after previous: UInt64?) -> UInt64 {
        let next = min((previous.flatMap(version) ?? 0) + 1, versionLimit - 1)
        return next << 24 | Sodium.randomBytes(3).reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// Versions count from 1. A tag whose version bits reach this was written before records were
    /// versioned (64 random bits: 255 times in 256 its top 40 bits are at least 2^32): it has no
    /// order, is never compared, and the next write after it starts again at version 1.
    static let versionLimit: UInt64 = 1 << 32

    /// A change tag's version: its top 40 bits, one more than the version it replaced (the low 24
    /// bits are random, so two devices writing the same version at once still differ); `nil` for
    /// an unversioned tag.
    static func version(_ tag: UInt64) -> UInt64? {
        let version = tag >> 24
        return version < versionLimit ? version : nil
    }
}

extension KeychainStore.SyncRow {
    func ref(_ itemClass: ItemClass) -> PersistentRef { PersistentRef(itemClass: itemClass, uuid: uuid.bytes) }
}

extension SealedItem {
    /// The row as a sync's scan sees it (without its sealed digest).
    var syncRow: KeychainStore.SyncRow {
        KeychainStore.SyncRow(
            rowid: 0, uuid: Bytes16(uuid) ?? .zero, accessibility: accessibility, accessControl: accessControlText, sealedDigest: .zero)
    }
}

extension CloudRecord {
    /// A digest of what the record says about its item (class, attributes, secret), without the
    /// UUID and tag: equal for the same item whatever record carries it.
    var contentDigest: Bytes16 {
        let encoded = Item.encode(attributes, tamperCheck: [], including: { _ in true })
        return Sodium.pieceDigest { (feed) throws(Never) in
            Array(itemClass.rawValue.utf8).withUnsafeBytes(feed)
            encoded.withUnsafeBytes(feed)
            // A bare secret is fed as it always was, so an unchanged item keeps its digest.
            if !secret.isBare { Array("envelope".utf8).withUnsafeBytes(feed) }
            secret.sealedForm().withUnsafeBytes(feed)
        }
    }
}
