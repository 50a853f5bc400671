import KeychainCore

/// `keychainctl delete`: SecItemDelete.
struct DeleteCommand: Subcommand {
    static let limit = Option.text("limit", nil, "one|all|n", suggestions: .limits, "How many to delete: all (default), one, or a number.")
    static let persistentRef = Option.text("persistent-ref", nil, "base64", "Delete one item by its persistent reference.")
    static let dryRun = Flag("dry-run", "List what would be deleted, change nothing.")

    static let name = "delete"

    static let spec = CommandSpec(
        name: name,
        abstract: "Delete every matching item (SecItemDelete).",
        discussion:
            "Synchronizable items leave a tombstone (no secret) so that the deletion can sync. --dry-run lists the matches. A damaged item is removed by its --persistent-ref without being opened. With no attribute, reference or group to select by, it needs --all (or a yes on a terminal): it would delete every item of the class.",
        sections: [
            ("options", [Self.limit.spec, Self.persistentRef.spec, Self.dryRun.spec, EverythingGuard.all.spec, DamagedRows.option.spec]),
            ("item attributes", ItemOptions.specs),
            (GlobalOptions.sectionTitle, GlobalOptions.specs),
        ])

    static let examples: [Example] = [
        Example("keychainctl delete -s api.example.com -a alice", "Delete the matching items."),
        Example("keychainctl delete --all --dry-run", "List every generic password a delete without a selector would remove."),
    ]

    let context: CommandContext
    let item: ItemOptions
    let limit: String?
    let persistentRef: String?
    let dryRun: Bool
    let skipDamaged: Bool
    let all: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        context = try CommandContext(arguments)
        item = try ItemOptions(arguments)
        limit = try arguments.value(Self.limit)
        persistentRef = try arguments.value(Self.persistentRef)
        dryRun = arguments.flag(Self.dryRun)
        skipDamaged = arguments.flag(DamagedRows.option)
        all = arguments.flag(EverythingGuard.all)
    }

    func run() throws {
        let caller = try context.caller()
        let keychain = try context.openKeychain()
        let request = item.request(limit: limit, persistentRef: persistentRef)
        try EverythingGuard.check(request, all: all, dryRun: dryRun, verb: "delete") {
            try keychain.delete(request, caller: caller, dryRun: true, skipDamaged: true).count
        }
        let deleted = try keychain.delete(request, caller: caller, dryRun: dryRun, skipDamaged: skipDamaged)
        if dryRun, !deleted.items.isEmpty {
            StandardStreams.out(ItemRenderer.listing(deleted.items, format: context.resolvedFormat))
        }
        DamagedRows.removed(deleted.removedDamaged)
        try DamagedRows.finish(deleted.skipped, skip: skipDamaged)
    }
}
