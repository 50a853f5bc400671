import KeychainFormats
import KeychainFoundation

/// `migrate-group`: SecItemUpdate's access-group move (Apple's functional tests move items G1 → G2)
/// for a whole family of items at once, all or nothing.
extension Keychain {
    /// The request for a migration.
    package struct Migration: Sendable {
        package var from: String
        package var to: String
        /// Attribute filters (no `agrp`: that is `from`); the class, or every stored class when nil.
        package var request: ItemRequest
        package var copy = false
        package var onConflict: ConflictPolicy = .fail
        package var dryRun = false
        /// Move the rest when some selected rows are damaged (they stay, named in the report).
        package var skipDamaged = false

        package init(from: String, to: String, request: ItemRequest) {
            self.from = from
            self.to = to
            self.request = request
        }
    }

    /// Moves (or copies) the selected items of `from` into `to` in one `BEGIN IMMEDIATE`
    /// transaction. Every conflict is found before anything is written. Each item is re-sealed for
    /// its new group and keeps its secret, attributes, creation date and persistent reference;
    /// `mdat` becomes now. A synchronizable item that moves leaves a tombstone in the source group.
    /// Items are read one at a time in the write phase: secrets are never all in memory at once.
    package func migrateGroup(_ migration: Migration, caller: Caller) throws -> MigrationReport {
        try beginCall("migrate-group")
        guard caller.groups.hasWritableGroup else { throw caller.noGroups(writing: true) }
        try caller.checkAppClip()
        try caller.check(group: migration.from, writing: true)
        try caller.check(group: migration.to, writing: true)
        guard !migration.from.sameBytes(as: migration.to) else {
            throw KeychainError(.param, hint: "--from and --to name the same group, \(migration.from); nothing would move.")
        }
        guard migration.request.explicitGroup == nil else {
            throw KeychainError(.param, hint: "the source group is --from; do not also give --group.")
        }
        let classes = try migration.request.itemClass.map { [try ItemQuery.parseClass($0)] } ?? ItemClass.stored
        var queries: [ItemQuery] = []
        for itemClass in classes {
            if let query = try Self.query(for: migration, itemClass: itemClass, allClasses: migration.request.itemClass == nil) {
                queries.append(query)
            }
        }
        let run = {
            var (report, rows) = try self.plan(migration, queries: queries, caller: caller)
            guard !report.entries.isEmpty else {
                throw KeychainError(
                    .itemNotFound,
                    hint: "no item of \(migration.from) matches the filters"
                        + (report.unselectedSynchronizable > 0
                            ? " (\(report.unselectedSynchronizable) synchronizable items were left out: add --sync any)." : "."))
            }
            let conflicts = report.conflicts
            if migration.onConflict == .fail, !conflicts.isEmpty {
                report.refused = true
                throw MigrationConflictError(error: Self.conflictError(conflicts, to: migration.to), report: report)
            }
            if !migration.dryRun { try self.execute(&report, rows: rows, migration: migration) }
            report.dryRun = migration.dryRun
            return report
        }
        return migration.dryRun ? try store.read(run) : try store.write(run)
    }

    /// The query selecting `itemClass`'s items of the source group; `nil` when the migration spans
    /// every class and a filter names an attribute this class lacks (it then selects none of them).
    private static func query(for migration: Migration, itemClass: ItemClass, allClasses: Bool) throws -> ItemQuery? {
        var request = migration.request
        request.itemClass = itemClass.rawValue
        request.attributes.append((code: Schema.accessGroup, input: .word(migration.from)))
        let schema = Schema.of(stored: itemClass)
        let lacksAFilter = request.attributes.contains { schema.attribute($0.code) == nil && Schema.attribute($0.code) != nil }
        if allClasses, lacksAFilter { return nil }
        return try ItemQuery(request, defaultLimit: .all)
    }

    /// What the plan keeps of one entry: the source row, opened, and the row of the target group
    /// holding its primary key (a live conflict, or a tombstone the write replaces).
    private typealias PlannedRows = (rowid: Int64, source: OpenedRow, target: (rowid: Int64, tombstone: Bool)?)

    /// Reads the selected items and decides each one's outcome; writes nothing.
    private func plan(_ migration: Migration, queries: [ItemQuery], caller: Caller) throws
        -> (MigrationReport, [PlannedRows])
    {
        var report = MigrationReport()
        var rows: [PlannedRows] = []
        for query in queries {
            let filter = filter(for: query, caller: caller, writing: true)
            try store.forEachRow(query.itemClass, filter: filter, withSecret: false) { rowid, row in
                let opened = try containingDamage(&report.damaged) { try open(row, for: query, filter: filter, withSecret: false) }
                guard let source = opened?.opened, query.matchesKinds(of: source.item), try authorize(source, rowid: rowid, access: .change)
                else { return true }
                let existing: MatchedRow? =
                    try containingDamage(&report.damaged) { try holder(of: row, query.itemClass, inGroup: migration.to) } ?? nil
                let tombstone = existing?.opened.item.isTombstone == true
                let conflict = tombstone ? nil : existing.map { PersistentRef(itemClass: query.itemClass, uuid: $0.opened.row.uuid) }
                let outcome: MigrationReport.Outcome =
                    switch (conflict, migration.onConflict) {
                    case (nil, _), (_, .fail): migration.copy ? .copied : .moved
                    case (_, .skip): .skipped
                    case (_, .replace): .replaced
                    }
                report.entries.append(.init(item: source.item, outcome: outcome, conflictsWith: conflict))
                rows.append((rowid, source, existing.map { ($0.rowid, tombstone) }))
                return true
            }
            if query.sync == .no {
                var synchronizable = filter
                synchronizable.sync = true
                report.unselectedSynchronizable += try store.count(query.itemClass, filter: synchronizable)
            }
        }
        if !report.damaged.isEmpty, !migration.skipDamaged {
            throw DamagedRow.refusal(report.damaged, changedNothing: true)
        }
        return (report, rows)
    }

    /// Writes the plan inside the transaction that made it, one item at a time: the rows it opened
    /// and the holders it found are still what the file holds, so nothing is opened or looked up
    /// twice. Only the secret columns are read again, one row at a time.
    private func execute(_ report: inout MigrationReport, rows: [PlannedRows], migration: Migration) throws {
        let now = Self.now()
        for (index, entry) in report.entries.enumerated() where entry.outcome != .skipped {
            let itemClass = entry.item.itemClass
            let planned = rows[index]
            guard let reread = try store.row(itemClass, rowid: planned.rowid) else {
                throw KeychainError(.decode, hint: "item \(entry.item.persistentRef.base64) vanished during the migration.")
            }
            let source = try planned.source.withSecretColumns(of: reread)
            if let target = planned.target, target.tombstone || entry.outcome == .replaced {
                try store.delete(itemClass, rowid: target.rowid)
            }
            var moved = entry.item
            moved.attributes[Schema.accessGroup] = .string(migration.to)
            moved.attributes[Schema.modificationDate] = .date(Self.modificationDate(now: now, after: entry.item))
            if migration.copy {
                moved = Item(itemClass: itemClass, uuid: Sodium.randomBytes(16), attributes: moved.attributes)
                moved.attributes[Schema.creationDate] = .date(now)
                moved.attributes[Schema.modificationDate] = .date(now)
                let sealed = try keys.seal(moved, secret: nil, keepingSecretOf: source)
                guard try store.insert(itemClass, sealed) == .written else { throw duplicate(moved) }
                report.entries[index].copy = moved.persistentRef
            } else {
                try rewrite(rowid: planned.rowid, source, to: moved, newSecret: nil, now: now, tombstoneCleared: true)
            }
        }
    }

    /// errSecDuplicateItem naming every conflicting item.
    private static func conflictError(_ conflicts: [MigrationReport.Entry], to group: String) -> KeychainError {
        let named = conflicts.map { "\($0.item.summary) (target ref=\($0.conflictsWith!.base64))" }
        return KeychainError(
            .duplicateItem,
            hint: "\(conflicts.count) item\(conflicts.count == 1 ? " already exists" : "s already exist") in \(group): "
                + named.joined(separator: "; ") + ". Nothing was changed; use --on-conflict skip or replace.")
    }
}
