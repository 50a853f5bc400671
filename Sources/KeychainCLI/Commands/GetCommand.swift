import KeychainCore

/// `keychainctl get NAME [ACCOUNT]`: the secret alone, for scripts; several matches are an error.
struct GetCommand: Subcommand {
    static let name = "get"

    static let spec = CommandSpec(
        name: name,
        abstract: "Print the secret stored under NAME (and ACCOUNT): its bytes alone, a newline only on a terminal.",
        discussion: """
            A shorthand for generic passwords: keychainctl find -s NAME [-a ACCOUNT] --sync any -w, except that \
            a NAME (and ACCOUNT) matching more than one item is an error naming their accounts (exit 206), \
            never the first one silently. Nothing matching is exit 44.
            """,
        sections: [("options", [NamedItem.group.spec]), (GlobalOptions.sectionTitle, GlobalOptions.specs)],
        operands: NamedItem.operands, requiredOperands: 1, briefGlobalOptions: true, operandIsStoredName: true)

    static let examples: [Example] = [
        Example("TOKEN=$(keychainctl get github)", "Read the token into a variable, byte for byte."),
        Example("keychainctl get db admin | wc -c", "Pipe a secret on without a trailing newline."),
    ]

    let context: CommandContext
    let named: NamedItem

    init(_ arguments: ParsedArguments) throws(UsageError) {
        context = try CommandContext(arguments)
        named = try NamedItem(arguments)
    }

    func run() throws {
        let caller = try context.caller()
        let keychain = try context.openKeychain()
        let found = try named.theOne(keychain, caller: caller, command: Self.name, withData: true)
        StandardStreams.out(secret: found.secret ?? SecretBytes(count: 0))
        if StandardStreams.isTerminal(1) { StandardStreams.out("\n") }
    }
}
