import KeychainCore

/// `keychainctl migrate-group`: move or copy a family of items between access groups, all or nothing.
struct MigrateGroupCommand: Subcommand {
    static let spec = CommandSpec(
        name: "migrate-group",
        abstract: "Move (or copy) the items of one access group into another, all or nothing.",
        discussion: """
            Both groups must be writable by the profile. Every conflict (an item whose primary key already
            exists in the target) is found before anything is written; with --on-conflict fail (the default)
            nothing changes (exit 45) and every conflicting item is named. Items keep their secret,
            attributes, creation date and persistent reference; synchronizable items that move leave a
            tombstone. Queries default to non-synchronizable items: add --sync any to move those too.
            """,
        sections: [
            (
                "options",
                [
                    .value("from", nil, "group", "The source access group."),
                    .value("to", nil, "group", "The target access group."),
                    .flag("copy", "Copy instead of moving: the source items stay."),
                    .value("on-conflict", nil, "fail|skip|replace", "What to do with items the target already has (default fail)."),
                    .flag("dry-run", "Print the plan and change nothing."),
                    DamagedRows.option,
                ]
            ),
            ("filters", ItemOptions.specs),
            ("global options", GlobalOptions.specs),
        ])

    let globals: GlobalOptions
    let item: ItemOptions
    let from: String
    let to: String
    let copy: Bool
    let onConflict: ConflictPolicy
    let dryRun: Bool
    let skipDamaged: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        globals = try GlobalOptions(arguments)
        item = try ItemOptions(arguments)
        guard let from = arguments.value("from"), let to = arguments.value("to") else {
            throw UsageError("migrate-group needs --from GROUP and --to GROUP.")
        }
        self.from = from
        self.to = to
        copy = arguments.flag("copy")
        onConflict = try arguments.value("on-conflict", choices: "fail, skip or replace", ConflictPolicy.init(rawValue:)) ?? .fail
        dryRun = arguments.flag("dry-run")
        skipDamaged = arguments.flag("skip-damaged")
    }

    func run() throws {
        let caller = try globals.caller()
        let keychain = try globals.openKeychain()
        var migration = Keychain.Migration(from: from, to: to, request: item.request())
        migration.copy = copy
        migration.onConflict = onConflict
        migration.dryRun = dryRun
        migration.skipDamaged = skipDamaged
        do {
            let report = try keychain.migrateGroup(migration, caller: caller)
            StandardStreams.out(MigrationRenderer.render(report, format: globals.resolvedFormat))
            if report.unselectedSynchronizable > 0 {
                StandardStreams.warn(
                    "\(report.unselectedSynchronizable) synchronizable item(s) of \(from) were not selected; add --sync any to include them."
                )
            }
            try DamagedRows.finish(report.damaged, skip: skipDamaged)
        } catch let refused as MigrationConflictError {
            StandardStreams.out(MigrationRenderer.render(refused.report, format: globals.resolvedFormat))
            throw refused.error
        }
    }
}

/// The migration report: text lines for people, one JSON object for programs.
enum MigrationRenderer {
    static func render(_ report: MigrationReport, format: OutputFormat) -> String {
        let outcomes: [MigrationReport.Outcome] = [.moved, .copied, .skipped, .replaced]
        let refused = report.refused
        switch format {
        case .json:
            var members: [String: JSON.Value] = [:]
            for outcome in outcomes {
                members[outcome.rawValue] = .array(refused ? [] : report.entries(outcome).map(json))
            }
            members["conflicts"] = .array(report.conflicts.map(json))
            members["dryRun"] = .bool(report.dryRun)
            members["damaged"] = .array(
                report.damaged.map { .object(["v_PersistentRef": .string($0.ref.base64), "reason": .string($0.reason.rawValue)]) })
            return JSON.render(.object(members)) + "\n"
        case .text:
            var out = ""
            for entry in refused ? report.conflicts : report.entries {
                let verb = refused ? "conflict" : (report.dryRun ? "would be \(entry.outcome.rawValue)" : entry.outcome.rawValue)
                out += "\(verb): \(entry.item.summary)"
                if let copy = entry.copy { out += " → copy ref=\(copy.base64)" }
                if let target = entry.conflictsWith { out += " (target has ref=\(target.base64))" }
                out += "\n"
            }
            for damaged in report.damaged { out += "damaged (left in place): ref=\(damaged.ref.base64): \(damaged.reason.rawValue)\n" }
            let counts = outcomes.map { "\(refused ? 0 : report.entries($0).count) \($0.rawValue)" }.joined(separator: ", ")
            out += "\(counts); \(report.conflicts.count) conflict\(report.conflicts.count == 1 ? "" : "s")"
            out += report.dryRun ? " (dry run: nothing changed)\n" : refused ? " (nothing changed)\n" : "\n"
            return out
        }
    }

    /// An entry: the item's attributes and persistent reference, plus the target it collided with.
    private static func json(_ entry: MigrationReport.Entry) -> JSON.Value {
        guard case .object(var members) = ItemRenderer.json(.init(item: entry.item, secret: nil), returns: [.attributes, .persistentRef])
        else { return .null }
        if let target = entry.conflictsWith { members["conflictsWith"] = .string(target.base64) }
        if let copy = entry.copy { members["copyPersistentRef"] = .string(copy.base64) }
        return .object(members)
    }
}
