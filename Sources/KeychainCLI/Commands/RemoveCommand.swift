import CommandLineKit
import KeychainCore

/// `keychainctl rm NAME [ACCOUNT]`: delete exactly one secret.
struct RemoveCommand: Subcommand {
    static let name = "rm"

    static let spec = CommandSpec(
        name: name,
        abstract: "Delete the secret stored under NAME (and ACCOUNT): exactly one item.",
        discussion: """
            A shorthand for generic passwords: keychainctl delete -s NAME [-a ACCOUNT] --sync any, except that it \
            deletes one item only: a NAME (and ACCOUNT) matching several is an error naming their accounts \
            (exit 206), nothing deleted. Nothing matching is exit 44.
            """,
        sections: [("options", [NamedItem.group.spec]), GlobalOptions.section],
        operands: NamedItem.operands, requiredOperands: 1, briefGlobalOptions: true, operandIsStoredName: true,
        examples: [
            Example("keychainctl rm db admin", "Delete exactly that one item.")
        ])

    let context: CommandContext

    func run() throws {
        let caller = try context.caller()
        let keychain = try context.openKeychain()
        let found = try NamedItem(context.arguments).theOne(keychain, caller: caller, command: Self.name, withData: false)
        _ = try keychain.delete(ItemRequest(persistentRef: found.item.persistentRef.base64), caller: caller)
    }
}
