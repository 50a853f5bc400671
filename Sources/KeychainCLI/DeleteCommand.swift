import ArgumentParser
import KeychainCore

/// `keychainctl delete`: SecItemDelete.
struct DeleteCommand: KeychainSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete every matching item (SecItemDelete).",
        discussion: "Synchronizable items leave a tombstone (no secret) so that the deletion can sync. --dry-run lists the matches.")

    @OptionGroup var globals: GlobalOptions
    @OptionGroup var item: ItemOptions

    @Option(help: "How many to delete: all (default), one, or a number.") var limit: String?
    @Option(name: .customLong("persistent-ref"), help: "Delete one item by its persistent reference (base64).")
    var persistentRef: String?
    @Flag(name: .customLong("dry-run"), help: "List what would be deleted, change nothing.") var dryRun = false

    mutating func execute() throws {
        let caller = try globals.caller()
        let keychain = try globals.openKeychain()
        let deleted = try keychain.delete(
            try item.request(limit: limit, persistentRef: persistentRef), caller: caller, dryRun: dryRun)
        if dryRun {
            StandardStreams.out(
                ItemRenderer.render(
                    deleted.map { .init(item: $0, secret: nil) }, returns: [.attributes, .persistentRef], single: false,
                    format: globals.resolvedFormat))
        }
    }
}
