import Glibc
import KeychainFormats
import KeychainFoundation

/// The session's bookkeeping: the state's entries, the row and record indexes, opening local
/// rows, and the report.
extension SyncSession {
    // MARK: Helpers

    func remember(_ uuid: Bytes16, _ entry: SyncState.Entry) {
        if let old = state.entries.updateValue(entry, forKey: uuid), old.rowUUID != entry.rowUUID { reverseIndex?[old.rowUUID] = nil }
        reverseIndex?[entry.rowUUID] = uuid
        stateChanged = true
    }

    func remember(_ record: CloudRecord, stamp: CloudStore.Stamp, rowUUID: Bytes16, sealed: SealedItem) {
        remember(
            record.uuid,
            SyncState.Entry(
                itemClass: record.itemClass, rowUUID: rowUUID, tag: record.tag, sealedDigest: KeychainStore.sealedDigest(of: sealed),
                contentDigest: record.contentDigest, primaryKeyDigest: Self.primaryKeyDigest(Self.item(record, rowUUID: rowUUID)),
                stamp: stamp))
    }

    /// The cloud UUID row `row` is mapped to, if any.
    func mappedRecord(ofRow row: Bytes16) -> Bytes16? {
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
    func forget(_ uuid: Bytes16) {
        guard let old = state.entries.removeValue(forKey: uuid) else { return }
        state.deleted.insert(uuid)
        if reverseIndex?[old.rowUUID] == uuid { reverseIndex?[old.rowUUID] = nil }
        stateChanged = true
    }

    /// Queues record `uuid` (of class `itemClass`, last seen at version `tag`) for deletion.
    func retire(_ uuid: Bytes16, _ itemClass: ItemClass, tag: UInt64) {
        pendingDeletes[uuid] = (itemClass, max(tag, pendingDeletes[uuid]?.tag ?? 0))
    }

    /// Records that row `sealed` (new when `rowid` is `nil`) now holds an item from the cloud;
    /// returns its UUID.
    @discardableResult
    func noteLocal(_ itemClass: ItemClass, _ sealed: SealedItem, rowid: Int64?) -> Bytes16 {
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
    func waits(_ record: CloudRecord, orRow row: KeychainStore.SyncRow?) -> Bool {
        let codes = [record.attributes[Schema.protection]?.stringValue, row?.accessibility].compactMap { $0 }
        guard codes.contains(where: { Accessibility(rawValue: $0).map { !keys.device.allows($0) } ?? false }) else { return false }
        add(.waiting, record, "the device is locked: the item arrives with the first sync after 'keychainctl device unlock'")
        return true
    }

    /// Whether the device's lock state keeps `row`'s class closed (it cannot be opened now).
    func isLocked(_ row: KeychainStore.SyncRow) -> Bool {
        Accessibility(rawValue: row.accessibility).map { !keys.device.allows($0) } ?? false
    }

    /// Opens a live row with its secret; `nil` (reported) when it is damaged.
    func openLocal(_ itemClass: ItemClass, _ row: KeychainStore.SyncRow) throws -> (item: Item, secret: ItemSecret)? {
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

    func fail(_ uuid: Bytes16, _ failure: SyncReport.Failure, _ reason: String) {
        settled.insert(uuid)
        report.entries.append(
            SyncReport.Entry(action: .failed, itemClass: nil, cloudUUID: uuid, ref: nil, attributes: [:], reason: reason, failure: failure))
    }

    func add(_ action: SyncReport.Action, _ record: CloudRecord, _ reason: String, ref: PersistentRef? = nil) {
        let rowUUID = state.entries[record.uuid]?.rowUUID
        report.entries.append(
            SyncReport.Entry(
                action: action, itemClass: record.itemClass, cloudUUID: record.uuid,
                ref: ref ?? rowUUID.map { PersistentRef(itemClass: record.itemClass, uuid: $0.bytes) },
                attributes: Self.naming(record.attributes, record.itemClass), reason: reason, writer: writerName(record)))
    }

    func add(_ action: SyncReport.Action, _ item: Item, _ reason: String) {
        let uuid = Bytes16(item.uuid).flatMap { mappedRecord(ofRow: $0) }
        report.entries.append(
            SyncReport.Entry(
                action: action, itemClass: item.itemClass, cloudUUID: uuid, ref: item.persistentRef,
                attributes: Self.naming(item.attributes, item.itemClass), reason: reason))
    }

    func add(
        _ action: SyncReport.Action, uuid: Bytes16?, _ itemClass: ItemClass, _ reason: String, ref: PersistentRef?, writer: String? = nil
    ) {
        report.entries.append(
            SyncReport.Entry(
                action: action, itemClass: itemClass, cloudUUID: uuid, ref: ref, attributes: [:], reason: reason, writer: writer))
    }

    /// The attributes that name an item in a report: its primary key, label and protection.
    static func naming(_ attributes: [String: AttributeValue], _ itemClass: ItemClass) -> [String: AttributeValue] {
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
        guard let accessibility = Accessibility(rawValue: row.accessibility) else { return "its protection class is unknown" }
        guard accessibility.isThisDeviceOnly else { return nil }
        return "\(accessibility.longName) (\(accessibility.rawValue)) items never leave the device"
    }

    /// Why `record` cannot be applied as an item; `nil` when it can.
    static func problem(with record: CloudRecord) -> String? {
        guard let schema = Schema.of(record.itemClass) else { return "is of no stored class" }
        for (code, value) in record.attributes {
            guard let attribute = schema.attribute(code), attribute.kind == value.kind else {
                return "holds an attribute \(code) the \(record.itemClass.rawValue) class does not have"
            }
        }
        guard PolicyAttributes.isSynchronizable(record.attributes), record.attributes[Schema.tombstone] == nil,
            let group = record.attributes[Schema.accessGroup]?.stringValue, !group.isEmpty,
            let pdmn = record.attributes[Schema.protection]?.stringValue, Accessibility(rawValue: pdmn)?.isThisDeviceOnly == false,
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
            [Array(item.itemClass.rawValue.utf8)]
                + codes.flatMap { code in
                    [Array(code.utf8), item.attributes[code].map { $0.digestBytes(for: Schema.attribute(code)?.kind ?? .data) } ?? []]
                })
    }

    /// Now, in nanoseconds since 1970: when a record was written.
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return UInt64(max(0, time.tv_sec)) &* 1_000_000_000 &+ UInt64(max(0, time.tv_nsec))
    }

    static func newTag(after previous: UInt64?) -> UInt64 {
        let next = min((previous.flatMap(version) ?? 0) + 1, versionLimit - 1)
        return next << 24 | ByteOrder.bigEndian(Sodium.randomBytes(3))
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
