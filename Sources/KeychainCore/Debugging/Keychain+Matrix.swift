import KeychainFormats
import KeychainFoundation

/// `matrix`: which targets may read and write each item the query selects, and where each target's
/// adds without a group land (docs/DEBUGGING.md).
///
/// The query's own attributes select the rows (compared unopened, as `explain` compares them); its
/// access group, when given, is one of them. The targets' groups, the sync filter, tombstones and
/// the device's lock state make the cells. Nothing is written and no secret is read.
extension Keychain {
    package func matrix(_ request: ItemRequest, targets: [Caller]) throws -> AccessMatrix {
        if ItemClass(parsing: request.itemClass ?? "") == .identity { return try identityMatrix(request, targets: targets) }
        let query = try ItemQuery(request, defaultLimit: .all)
        let explicit = query.attributes[Schema.accessGroup]?.stringValue
        let comparer = {
            var comparer = AttributeComparer(query.attributes.filter { $0.key != Schema.accessGroup && $0.key != Schema.synchronizable })
            comparer.prepare(for: query.itemClass, keys: keys)
            return comparer
        }()
        let wantsSync: Bool? = query.sync == .any ? nil : query.sync == .yes
        var items: [AccessMatrix.ItemRow] = []
        var counts: [[UInt8]: Int] = [:]
        // Most rows share a group and flags: their cells are worked out once. Keyed by the group's
        // bytes, never its String (which would take two canonically equal spellings for one group).
        var cellSets: [[AccessMatrix.Cell]] = []
        var cellSetIndex: [CellKey: Int] = [:]
        // The selected rows first; then their attributes, opened on every core (most of the work).
        var selected: [(row: SealedItem, locked: Bool)] = []
        try store.read {
            try store.forEachRow(query.itemClass, filter: .everyRow, withSecret: false) { _, row in
                guard row.malformed == nil, comparer.misses(row).isEmpty else { return true }
                if let explicit, !row.accessGroup.sameBytes(as: explicit) { return true }
                selected.append((row, isLocked(row)))
                return true
            }
        }
        let unlocked = selected.indices.filter { !selected[$0].locked }
        var opened = [Item?](repeating: nil, count: selected.count)
        for (index, item) in zip(unlocked, keys.openAll(unlocked.map { selected[$0].row }, itemClass: query.itemClass)) {
            opened[index] = item
        }
        items.reserveCapacity(selected.count)
        for (index, (row, locked)) in selected.enumerated() {
            let sealed: AccessMatrix.Sealed? = locked ? .locked : opened[index] == nil ? .damaged : nil
            let item = opened[index] ?? Item(itemClass: query.itemClass, uuid: row.uuid, attributes: row.plaintext)
            let syncMissed = wantsSync.map { $0 != row.isSynchronizable } ?? false
            let key = CellKey(
                group: Array(row.accessGroup.utf8), damaged: sealed == .damaged, tombstone: row.isTombstone, sync: syncMissed,
                locked: locked)
            let cellSet =
                cellSetIndex[key]
                ?? {
                    cellSets.append(
                        targets.map { target in
                            key.damaged
                                ? AccessMatrix.Cell(read: false, write: false, marks: [.damaged])
                                : AccessMatrix.cell(
                                    group: row.accessGroup, caller: target, tombstone: row.isTombstone, sync: syncMissed, locked: locked)
                        })
                    cellSetIndex[key] = cellSets.count - 1
                    return cellSets.count - 1
                }()
            items.append(AccessMatrix.ItemRow(item: item, sealed: sealed, cells: cellSets[cellSet], cellSet: cellSet))
            if !row.isTombstone, !key.damaged { counts[key.group, default: 0] += 1 }
        }
        let held = counts.map { (group: String(decoding: $0.key, as: UTF8.self), items: $0.value) }
        return AccessMatrix(
            targets: targets, items: items, cellSets: cellSets, groups: AccessMatrix.groupRows(targets, held: held),
            landings: AccessMatrix.landings(targets))
    }

    /// What an item's cells depend on.
    private struct CellKey: Hashable {
        let group: [UInt8]
        let damaged: Bool
        let tombstone: Bool
        let sync: Bool
        let locked: Bool
    }

}
