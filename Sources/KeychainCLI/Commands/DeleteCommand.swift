import CommandLineKit
import KeychainCore

/// `keychainctl delete`: SecItemDelete.
struct DeleteCommand: Subcommand {
    static let name = "delete"

    static let spec = CommandSpec(
        name: name,
        abstract: "Delete every matching item (SecItemDelete).",
        discussion: """
            Synchronizable items leave a tombstone (no secret) so that the deletion can sync. --dry-run lists \
            the matches. A damaged item is removed by its --persistent-ref without being opened. With no \
            attribute, reference or group to select by, it needs --all (or a yes on a terminal): it would delete \
            every item of the class.
            """,
        sections: [
            ("options", Self.scope.specs),
            ItemOptions.section,
            GlobalOptions.section,
        ],
        examples: [
            Example("keychainctl delete -s api.example.com -a alice", "Delete the matching items."),
            Example("keychainctl delete --all --dry-run", "List every generic password a delete without a selector would remove."),
        ])

    static let scope = ChangeScope.Options(verb: "delete", dryRun: "List what would be deleted, change nothing.")

    let context: CommandContext

    func run() throws {
        let scope = ChangeScope(context.arguments, Self.scope)
        let request = scope.request(ItemOptions(context.arguments))
        let caller = try context.caller()
        let keychain = try context.openKeychain()
        let deleted = try scope.perform(request, verb: "delete", count: \.count) { dryRun, skipDamaged in
            try keychain.delete(request, caller: caller, dryRun: dryRun, skipDamaged: skipDamaged)
        }
        if scope.dryRun, !deleted.items.isEmpty {
            StandardStreams.out(ItemRenderer.listing(deleted.items, format: context.resolvedFormat))
        }
        DamagedRows.removed(deleted.removedDamaged)
        try DamagedRows.finish(deleted.skipped, skip: scope.skipDamaged)
    }
}
