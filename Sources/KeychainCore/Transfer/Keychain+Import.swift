import KeychainFormats
import KeychainFoundation

/// `import`: many items added in one transaction, with conflicts (an item already holding the
/// same primary key) handled by one policy, and a re-run that changes nothing reported as
/// unchanged (docs/CI.md).
extension Keychain {
    /// One item to import: what `add` would be given, plus the UUID (persistent reference) and
    /// dates it had where it came from, kept when free; `origin` names it in messages ("line 3").
    package struct ImportItem {
        package var request: ItemRequest
        package var secret: SecretBytes?
        package var uuid: [UInt8]?
        package var created: Int64?
        package var modified: Int64?
        package var origin: String

        package init(request: ItemRequest, secret: SecretBytes?, origin: String) {
            self.request = request
            self.secret = secret
            self.origin = origin
        }
    }

    /// What to do with an item whose primary key is taken.
    package enum ImportPolicy: String, Sendable, CaseIterable {
        /// Refuse the whole import (errSecDuplicateItem naming each conflict); nothing is written.
        case fail
        /// Leave the stored item as it is.
        case skip
        /// Delete the stored item and add the imported one.
        case replace
        /// Give the stored item the imported secret and attributes (its reference and creation
        /// date stay); an item already equal is unchanged and keeps its modification date.
        case update
    }

    /// What an import did: how many items each way and, when asked for, the items themselves
    /// (attributes and references only; an import of 100,000 items counted without them stays
    /// within 64 MB).
    package struct ImportReport: Sendable {
        package enum Outcome: String, CaseIterable, Sendable {
            case added, updated, unchanged, skipped, replaced
        }

        package private(set) var counts: [Int] = Array(repeating: 0, count: Outcome.allCases.count)
        package private(set) var items: [[Item]] = Array(repeating: [], count: Outcome.allCases.count)
        /// The stored items in the way, under `fail` (always kept: they are named in the error).
        package var conflicts: [Item] = []
        package var dryRun = false
        let keepsItems: Bool

        init(keepsItems: Bool) { self.keepsItems = keepsItems }

        mutating func record(_ outcome: Outcome, _ item: Item) {
            let index = Outcome.allCases.firstIndex(of: outcome) ?? 0
            counts[index] += 1
            if keepsItems { items[index].append(item) }
        }

        package func count(_ outcome: Outcome) -> Int { counts[Outcome.allCases.firstIndex(of: outcome) ?? 0] }
        package func items(_ outcome: Outcome) -> [Item] { items[Outcome.allCases.firstIndex(of: outcome) ?? 0] }
    }

    /// Imports the items `next` hands over one at a time (so a large input is never all in
    /// memory), in one write transaction: all of them or, on any error, none. A dry run does
    /// everything and rolls it back.
    package func importItems(caller: Caller, policy: ImportPolicy, dryRun: Bool, keepingItems: Bool = true, next: () throws -> ImportItem?)
        throws -> ImportReport
    {
        var report = ImportReport(keepsItems: keepingItems)
        report.dryRun = dryRun
        do {
            try store.write {
                while let item = try next() { try importOne(item, caller: caller, policy: policy, into: &report) }
                if !report.conflicts.isEmpty {
                    let listed = report.conflicts.prefix(10).map(\.summary).joined(separator: "; ")
                    throw KeychainError(
                        .duplicateItem,
                        hint: "\(report.conflicts.count) item\(report.conflicts.count == 1 ? " is" : "s are") already stored: \(listed)"
                            + (report.conflicts.count > 10 ? "; …" : "")
                            + ". Nothing was imported; choose --on-conflict skip, replace or update.")
                }
                if dryRun { throw RolledBack() }
            }
        } catch is RolledBack {}
        return report
    }

    /// A dry run's way out of its transaction.
    private struct RolledBack: Error {}

    private func importOne(_ item: ImportItem, caller: Caller, policy: ImportPolicy, into report: inout ImportReport) throws {
        do {
            var kept = KeptIdentity(uuid: nil, created: item.created, modified: item.modified)
            if let uuid = item.uuid, uuid.count == 16, try !uuidTaken(uuid) { kept.uuid = uuid }
            let prepared = try prepareAdd(item.request, secret: item.secret, caller: caller, preserving: kept)
            let itemClass = prepared.query.itemClass
            let group = prepared.group
            guard let existing = try clearTombstone(for: prepared.sealed, itemClass, inGroup: group) else {
                try noteAccessControl(of: prepared.sealed)
                guard try store.insert(itemClass, prepared.sealed) == .written else { throw duplicate(prepared.item) }
                report.record(.added, prepared.item)
                return
            }
            // Changing a protected item asks for its authentication, as add -U does.
            if policy == .replace || policy == .update, try !authorize(existing.opened, rowid: existing.rowid, access: .change) {
                throw duplicate(prepared.item)
            }
            switch policy {
            case .fail: report.conflicts.append(existing.opened.item)
            case .skip: report.record(.skipped, existing.opened.item)
            case .replace:
                try store.delete(itemClass, rowid: existing.rowid)
                try noteAccessControl(of: prepared.sealed)
                guard try store.insert(itemClass, prepared.sealed) == .written else { throw duplicate(prepared.item) }
                report.record(.replaced, prepared.item)
            case .update:
                if try isUnchanged(existing, given: prepared.query.attributes, secret: prepared.secret) {
                    report.record(.unchanged, existing.opened.item)
                } else {
                    let updated = try replaceExisting(existing, with: prepared.query.attributes, secret: prepared.secret, now: Self.now())
                    report.record(.updated, updated)
                }
            }
        } catch let error as KeychainError {
            throw KeychainError(error.status, hint: "\(item.origin): \(error.hint)", damaged: error.damaged)
        }
    }

    /// Whether some row of any class already has `uuid` (a persistent reference is the class and
    /// the UUID, but a UUID is kept unique across the file).
    private func uuidTaken(_ uuid: [UInt8]) throws -> Bool {
        var filter = RowFilter.everyRow
        filter.uuid = uuid
        for itemClass in ItemClass.stored where try store.count(itemClass, filter: filter) > 0 { return true }
        return false
    }

    /// Whether the stored item already has `secret` (its data and each of its fields) and every
    /// `given` attribute (dates aside).
    private func isUnchanged(_ existing: MatchedRow, given: [String: AttributeValue], secret: ItemSecret) throws -> Bool {
        let stored = existing.opened.item
        for (code, value) in given where !Schema.setByKeychain.contains(code) {
            guard let held = stored.attributes[code], value.matches(held) else { return false }
        }
        guard let current = try keys.openSecret(of: existing.opened) else { return false }
        guard let changed = try changedSecret(of: existing.opened, data: secret.data, fields: secret.fields) else { return true }
        return changed.equals(current)
    }
}
