import CommandLineKit
import KeychainCore

/// `keychainctl migrate-group`: move or copy a family of items between access groups, all or nothing.
struct MigrateGroupCommand: Subcommand {
    static let name = "migrate-group"

    static let spec = CommandSpec(
        name: name,
        abstract: "Move (or copy) the items of one access group into another, all or nothing.",
        discussion: """
            Both groups must be writable by the profile. Every conflict (an item whose primary key already
            exists in the target) is found before anything is written; with --on-conflict fail (the default)
            nothing changes (exit 45) and every conflicting item is named. Items keep their secret,
            attributes, creation date and persistent reference; synchronizable items that move leave a
            tombstone. Queries default to non-synchronizable items: add --sync any to move those too.
            """,
        sections: [
            ("options", [Self.from.spec, Self.to.spec, Self.copy.spec, Self.onConflict.spec, Self.dryRun.spec, DamagedRows.option.spec]),
            ("filters", ItemOptions.specs),
            GlobalOptions.section,
        ],
        examples: [
            Example(
                "keychainctl migrate-group --profile app.plist --from SKMME9E2Y8.com.example.app --to SKMME9E2Y8.com.example.shared --dry-run",
                "Plan moving the app's items to the group its extensions share."
            )
        ])

    static let from = Option.text("from", nil, "group", "The source access group.")
    static let to = Option.text("to", nil, "group", "The target access group.")
    static let copy = Flag("copy", "Copy instead of moving: the source items stay.")
    static let onConflict = Option.choice(
        "on-conflict", nil, "fail|skip|replace", "What to do with items the target already has (default fail).",
        ConflictPolicy.init(rawValue:))
    static let dryRun = Flag("dry-run", "Print the plan and change nothing.")

    let context: CommandContext

    func validate() throws(UsageError) {
        guard context[Self.from] != nil, context[Self.to] != nil else {
            throw UsageError("migrate-group needs --from GROUP and --to GROUP.")
        }
    }

    func run() throws {
        let from = context[Self.from] ?? ""
        var migration = Keychain.Migration(from: from, to: context[Self.to] ?? "", request: ItemOptions(context.arguments).request())
        migration.copy = context[Self.copy]
        migration.onConflict = context[Self.onConflict] ?? .fail
        migration.dryRun = context[Self.dryRun]
        migration.skipDamaged = context[DamagedRows.option]
        let caller = try context.caller()
        let keychain = try context.openKeychain()
        do {
            let report = try keychain.migrateGroup(migration, caller: caller)
            StandardStreams.out(MigrationRenderer.render(report, format: context.resolvedFormat))
            if report.unselectedSynchronizable > 0 {
                StandardStreams.warn(
                    "\(report.unselectedSynchronizable) synchronizable item(s) of \(from) were not selected; add --sync any to include them."
                )
            }
            try DamagedRows.finish(report.damaged, skip: migration.skipDamaged)
        } catch let refused as MigrationConflictError {
            StandardStreams.out(MigrationRenderer.render(refused.report, format: context.resolvedFormat))
            throw refused.error
        }
    }
}
