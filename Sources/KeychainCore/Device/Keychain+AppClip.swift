import KeychainFormats
import KeychainFoundation

/// An App Clip leaving the device (docs/FIDELITY.md): uninstalled, its items go with it
/// (`SecItemDb.c`, `SecServerDeleteForAppClipApplicationIdentifier`); replaced by its full app,
/// its items move to the app first (`SecServerPromoteAppClipItemsToParentApp`). Only items the
/// clip added (`clip`, set by the keychain) are touched: an item another app stored in the clip's
/// group stays.
extension Keychain {
    /// What a promotion did.
    package struct AppClipPromotion: Sendable {
        /// Items moved to the parent app's group.
        package let promoted: Int
        /// Items of the parent app that a promoted item replaced (the same primary key: Apple's
        /// promotion inserts or replaces).
        package let replaced: Int
        /// Items deleted without being moved: protected by an access control, whose secret Apple's
        /// promotion cannot open (errSecAuthNeeded), and then removed with the clip.
        package let lost: Int
    }

    /// Deletes every item the App Clip with application identifier `clip` added, in one
    /// transaction; returns how many. Like Apple's call, it does not ask whether `clip` names an
    /// App Clip: an identifier whose group holds no clip-marked item deletes nothing.
    package func removeAppClip(_ clip: String) throws -> Int {
        try store.write { try deleteAppClipItems(in: clip) }
    }

    /// Moves every item the App Clip `clip` added to the group of `parent` (the full app's
    /// application identifier), no longer marked as the clip's, keeping its persistent reference
    /// and secret, then deletes what stayed behind; one transaction, nothing changed when any class
    /// it needs is locked.
    package func promoteAppClip(_ clip: String, to parent: String) throws -> AppClipPromotion {
        try store.write {
            var promoted = 0
            var replaced = 0
            let now = Self.now()
            for (itemClass, rows) in try appClipRows(in: clip) {
                for (rowid, opened) in rows where !opened.row.hasAccessControl {
                    var moved = opened.item
                    moved.attributes[Schema.appClipItem] = nil
                    moved.attributes[Schema.accessGroup] = .string(parent)
                    moved.attributes[Schema.modificationDate] = .date(Self.modificationDate(now: now, after: opened.item))
                    let sealed = try keys.seal(moved, secret: nil, keepingSecretOf: opened)
                    if let holder = try clearTombstone(for: sealed, itemClass, inGroup: parent, except: rowid) {
                        try store.delete(itemClass, rowid: holder.rowid)
                        replaced += 1
                    }
                    guard try store.update(itemClass, rowid: rowid, sealed) == .written else { throw duplicate(moved) }
                    promoted += 1
                }
            }
            return AppClipPromotion(promoted: promoted, replaced: replaced, lost: try deleteAppClipItems(in: clip))
        }
    }

    /// Deletes, inside the caller's transaction, the clip-marked items in `group`; returns how many.
    private func deleteAppClipItems(in group: String) throws -> Int {
        var deleted = 0
        for (itemClass, rows) in try appClipRows(in: group) {
            for (rowid, _) in rows { try store.delete(itemClass, rowid: rowid) }
            deleted += rows.count
        }
        return deleted
    }

    /// The live rows of `group` marked as an App Clip's, opened (with their sealed secret columns),
    /// by class. Whether a row is the clip's is sealed in its metadata, so a class the device has
    /// locked is errSecInteractionNotAllowed and a damaged row errSecDecode: nothing is changed.
    private func appClipRows(in group: String) throws -> [(ItemClass, [MatchedRow])] {
        var filter = RowFilter(groups: [group], sync: nil)
        filter.tombstone = nil
        return try ItemClass.stored.map { itemClass in
            var marked: [MatchedRow] = []
            var damaged: [DamagedRow] = []
            try store.forEachRow(itemClass, filter: filter, withSecret: true) { rowid, row in
                if isLocked(row), let protection = Accessibility(rawValue: row.accessibility) {
                    throw keys.device.refusal(protection)
                }
                if let opened = try containingDamage(&damaged, { try keys.openRow(row, itemClass: itemClass) }),
                    opened.item.attributes[Schema.appClipItem] == .bool(true)
                {
                    marked.append((rowid, opened))
                }
                return true
            }
            if !damaged.isEmpty { throw DamagedRow.refusal(damaged, changedNothing: true) }
            return (itemClass, marked)
        }
    }
}
