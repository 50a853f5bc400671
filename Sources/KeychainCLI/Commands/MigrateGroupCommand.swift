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
