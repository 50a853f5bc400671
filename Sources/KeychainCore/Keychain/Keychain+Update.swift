import KeychainFormats
import KeychainFoundation

/// SecItemUpdate (`SecItemServer.c`, `_SecItemUpdate`).
extension Keychain {
    /// Updates every match in one transaction. Check order: no writable group (-34018) → explicit
    /// group in the query (-34018) → bad request → group in the changes (-34018) → duplicate
    /// (-25299) / none (-25300). A collision anywhere changes nothing. With `dryRun`, everything is
    /// checked and then rolled back. Returns how many items matched (and, for a dry run, the items
    /// as they were).
    ///
    /// The changes' access control (`--set-access-control`) replaces each item's, bound to this
    /// device as an add binds it; `none` leaves the protection alone. Its flags and its pairing
    /// with a synchronizable change are checked before anything else (docs/FIDELITY.md). A new
    /// accessibility without one drops the item's access control, as Apple's update does (docs/FIDELITY.md).
    package func update(
        _ request: ItemRequest, changes change: ChangeRequest, caller: Caller, dryRun: Bool = false, skipDamaged: Bool = false
    ) throws -> ChangeResult {
        let accessControl = change.accessControl
        if Self.isIdentity(request) {
            guard change.secret == nil, accessControl == nil else {
                throw KeychainError(
                    .param, hint: "an identity's update changes attributes only: update its certificate or key for anything else.")
            }
            return try updateIdentities(request, changes: change, caller: caller, dryRun: dryRun, skipDamaged: skipDamaged)
        }
        let makingSynchronizable = change.makesSynchronizable
        let flags = try accessControl?.clientChecks(makingSynchronizable: makingSynchronizable, allowNone: true)
        try beginCall("update")
        let query = try preflight(.update, request, caller: caller, makingSynchronizable: makingSynchronizable).query
        let changes = try ItemChanges(change, for: query.schema)
        if accessControl != nil {
            try AccessControlRequest.check(
                flags, givenAccessibility: changes.attributes[Schema.protection] != nil, itemClass: query.itemClass)
        }
        let protection = try accessControl?.parsedProtection()
        if let group = changes.attributes[Schema.accessGroup]?.stringValue { try caller.check(group: group, writing: true) }
        try caller.checkPort(changes.attributes)
        try Self.checkPersistentRefStandsAlone(query)
        let filter = filter(for: query, caller: caller, writing: true)
        return try writeOrRehearse(dryRun: dryRun) {
            let now = Self.now()
            return try forEachRowToChange(query, filter: filter, skipDamaged: skipDamaged, keepingItems: dryRun, access: .change) {
                rowid, opened in
                var updated = opened.item
                for (code, value) in changes.attributes { updated.attributes[code] = value }
                if let protection { updated.attributes[Schema.protection] = .string(protection.rawValue) }
                if accessControl != nil || changes.attributes[Schema.protection] != nil {
                    updated.attributes[Schema.accessControl] = .string(
                        try flags.map { try bind($0, to: updated).text } ?? updated.accessibility.rawValue)
                }
                // The keychain sets both dates (docs/FIDELITY.md): a caller's cdat or mdat is overwritten.
                updated.attributes[Schema.creationDate] = opened.item.attributes[Schema.creationDate]
                updated.attributes[Schema.modificationDate] = .date(Self.modificationDate(now: now, after: opened.item))
                let newSecret = try changedSecret(of: opened, data: changes.secret, fields: changes.dataFields)
                try rewrite(rowid: rowid, opened, to: updated, newSecret: newSecret, now: now)
            }
        }
    }

    /// Writes `updated` over row `rowid` (`opened`, read with its secret columns), with `newSecret`
    /// or else the row's own secret (re-sealed only when the identity changes), leaving a tombstone
    /// when a synchronizable item's primary key changes. A verified tombstone at the new primary
    /// key is replaced, unless the caller already removed it (`tombstoneCleared`).
    func rewrite(
        rowid: Int64, _ opened: OpenedRow, to updated: Item, newSecret: ItemSecret?, now: Int64, tombstoneCleared: Bool = false
    ) throws {
        let old = opened.item
        let sealed = try keys.seal(updated, secret: newSecret, keepingSecretOf: opened)
        try noteAccessControl(of: sealed)
        if !tombstoneCleared { try clearTombstone(for: sealed, old.itemClass, inGroup: updated.accessGroup, except: rowid) }
        guard try store.update(old.itemClass, rowid: rowid, sealed) == .written else { throw duplicate(updated) }
        if old.isSynchronizable, primaryKeyChanged(from: old, to: updated) {
            try leaveTombstone(of: old, now: now)
        }
    }

    /// The secret a change leaves in row `opened` (read with its secret columns): `nil` when
    /// neither `data` nor `fields` is given (the row keeps its own). New data replaces the data and
    /// each given field that field; the fields not given stay, as Apple's update keeps every
    /// attribute it is not given. Only a class with data fields has its old secret opened to merge.
    func changedSecret(of opened: OpenedRow, data: SecretBytes?, fields: [String: SecretBytes]) throws -> ItemSecret? {
        guard data != nil || !fields.isEmpty else { return nil }
        if fields.isEmpty, let data, Schema.of(stored: opened.item.itemClass).dataFields.isEmpty { return ItemSecret(data: data) }
        guard let old = try keys.openSecret(of: opened) else { return ItemSecret(data: data, fields: fields) }
        return old.merging(data: data, fields: fields)
    }

    /// A tombstone in `old`'s place: its attributes, no secret, a new UUID, `tomb = 1`.
    func leaveTombstone(of old: Item, now: Int64) throws {
        let tombstone = try keys.seal(Self.tombstone(of: old, uuid: Sodium.randomBytes(16), now: now), secret: nil)
        try clearTombstone(for: tombstone, old.itemClass, inGroup: old.accessGroup)
        _ = try store.insert(old.itemClass, tombstone)
    }

    /// `item` as a tombstone (docs/FIDELITY.md): its attributes, `tomb = 1`, `mdat` now; sealed with no
    /// secret, invisible to every query.
    static func tombstone(of item: Item, uuid: [UInt8], now: Int64) -> Item {
        var tombstone = Item(itemClass: item.itemClass, uuid: uuid, attributes: item.attributes)
        tombstone.attributes[Schema.tombstone] = .bool(true)
        tombstone.attributes[Schema.modificationDate] = .date(modificationDate(now: now, after: item))
        return tombstone
    }

    func primaryKeyChanged(from old: Item, to new: Item) -> Bool {
        Schema.of(stored: old.itemClass).primaryKey.contains { old.attributes[$0] != new.attributes[$0] }
    }

    /// Runs `body` in a write transaction, or with `dryRun` runs it and rolls it back, returning
    /// what it returned: a rehearsal checks everything a real run would.
    func writeOrRehearse<R>(dryRun: Bool, _ body: () throws -> R) throws -> R {
        var rehearsed: R?
        do {
            return try store.write {
                let value = try body()
                guard !dryRun else {
                    rehearsed = value
                    throw RehearsalRollback()
                }
                return value
            }
        } catch is RehearsalRollback {
            return rehearsed!
        }
    }
}

/// Thrown inside a dry run's transaction so that it rolls back.
private struct RehearsalRollback: Error {}
