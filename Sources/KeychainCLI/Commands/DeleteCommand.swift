import KeychainCore

/// `keychainctl delete`: SecItemDelete.
struct DeleteCommand: Subcommand {
    static let spec = CommandSpec(
        name: "delete",
        abstract: "Delete every matching item (SecItemDelete).",
        discussion:
            "Synchronizable items leave a tombstone (no secret) so that the deletion can sync. --dry-run lists the matches. A damaged item is removed by its --persistent-ref without being opened.",
        sections: [
            (
                "options",
                [
                    .value("limit", nil, "one|all|n", "How many to delete: all (default), one, or a number."),
                    .value("persistent-ref", nil, "base64", "Delete one item by its persistent reference."),
                    .flag("dry-run", "List what would be deleted, change nothing."),
                    DamagedRows.option,
                ]
            ),
            ("item attributes", ItemOptions.specs),
            ("global options", GlobalOptions.specs),
        ])

    let globals: GlobalOptions
    let item: ItemOptions
    let limit: String?
    let persistentRef: String?
    let dryRun: Bool
    let skipDamaged: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        globals = try GlobalOptions(arguments)
        item = try ItemOptions(arguments)
        limit = arguments.value("limit")
        persistentRef = arguments.value("persistent-ref")
        dryRun = arguments.flag("dry-run")
        skipDamaged = arguments.flag("skip-damaged")
    }

    func run() throws {
        let caller = try globals.caller()
        let keychain = try globals.openKeychain()
        let deleted = try keychain.delete(
            item.request(limit: limit, persistentRef: persistentRef), caller: caller, dryRun: dryRun, skipDamaged: skipDamaged)
        if dryRun, !deleted.items.isEmpty {
            StandardStreams.out(ItemRenderer.listing(deleted.items, format: globals.resolvedFormat))
        }
        DamagedRows.removed(deleted.removedDamaged)
        try DamagedRows.finish(deleted.skipped, skip: skipDamaged)
    }
}
