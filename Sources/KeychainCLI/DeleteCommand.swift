import KeychainCore

/// `keychainctl delete`: SecItemDelete.
struct DeleteCommand: Subcommand {
    static let spec = CommandSpec(
        name: "delete",
        abstract: "Delete every matching item (SecItemDelete).",
        discussion: "Synchronizable items leave a tombstone (no secret) so that the deletion can sync. --dry-run lists the matches.",
        sections: [
            (
                "options",
                [
                    .value("limit", nil, "one|all|n", "How many to delete: all (default), one, or a number."),
                    .value("persistent-ref", nil, "base64", "Delete one item by its persistent reference."),
                    .flag("dry-run", "List what would be deleted, change nothing."),
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

    init(_ arguments: ParsedArguments) throws(UsageError) {
        globals = try GlobalOptions(arguments)
        item = try ItemOptions(arguments)
        limit = arguments.value("limit")
        persistentRef = arguments.value("persistent-ref")
        dryRun = arguments.flag("dry-run")
    }

    func run() throws {
        let caller = try globals.caller()
        let keychain = try globals.openKeychain()
        let deleted = try keychain.delete(
            item.request(limit: limit, persistentRef: persistentRef), caller: caller, dryRun: dryRun)
        if dryRun {
            StandardStreams.out(ItemRenderer.listing(deleted, format: globals.resolvedFormat))
        }
    }
}
