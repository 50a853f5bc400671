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
            let syncMissed = wantsSync.map { $0 != row.sync } ?? false
            let key = CellKey(
                group: Array(row.accessGroup.utf8), damaged: sealed == .damaged, tombstone: row.tombstone, sync: syncMissed,
                locked: locked)
            let cellSet =
                cellSetIndex[key]
                ?? {
                    cellSets.append(
                        targets.map { target in
                            key.damaged
                                ? AccessMatrix.Cell(read: false, write: false, marks: [.damaged])
                                : Self.cell(
                                    group: row.accessGroup, caller: target, tombstone: row.tombstone, sync: syncMissed, locked: locked)
                        })
                    cellSetIndex[key] = cellSets.count - 1
                    return cellSets.count - 1
                }()
            items.append(AccessMatrix.ItemRow(item: item, sealed: sealed, cells: cellSets[cellSet], cellSet: cellSet))
            if !row.tombstone, !key.damaged { counts[key.group, default: 0] += 1 }
        }
        var named: [String] = []
        let held = counts.keys.map { String(decoding: $0, as: UTF8.self) }.sorted()
        for group in targets.flatMap(\.groups.groups) + held where !named.contains(where: { $0.sameBytes(as: group) }) {
            named.append(group)
        }
        let groups = named.map { group in
            AccessMatrix.GroupRow(
                group: group, items: counts[Array(group.utf8)] ?? 0,
                cells: targets.map { Self.cell(group: group, caller: $0, tombstone: false, sync: false, locked: false) })
        }
        let landings = targets.map { writer in
            guard let group = writer.groups.defaultGroup else { return AccessMatrix.Landing(group: nil, visibleTo: [], hiddenFrom: []) }
            let indices = Array(targets.indices)
            let visible = indices.filter { targets[$0].groups.canRead(group) }
            return AccessMatrix.Landing(group: group, visibleTo: visible, hiddenFrom: indices.filter { !visible.contains($0) })
        }
        return AccessMatrix(targets: targets, items: items, cellSets: cellSets, groups: groups, landings: landings)
    }

    /// What an item's cells depend on.
    private struct CellKey: Hashable {
        let group: [UInt8]
        let damaged: Bool
        let tombstone: Bool
        let sync: Bool
        let locked: Bool
    }

    /// One target's cell for an item in `group`.
    private static func cell(group: String, caller: Caller, tombstone: Bool, sync: Bool, locked: Bool) -> AccessMatrix.Cell {
        var marks: [AccessMatrix.Mark] = []
        if !caller.groups.canRead(group) { marks.append(caller.groups.ignoredEntry(for: group) == nil ? .group : .platform) }
        if tombstone { marks.append(.tombstone) }
        if sync { marks.append(.sync) }
        if locked { marks.append(.locked) }
        let read = !marks.contains(where: \.hides)
        return AccessMatrix.Cell(read: read, write: read && caller.groups.canWrite(group), marks: marks)
    }
}
