import ArgumentParser
import KeychainCore

/// `keychainctl find`: SecItemCopyMatching.
struct FindCommand: KeychainSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "find",
        abstract: "Find items (SecItemCopyMatching).",
        discussion: """
            A limit of one prints one value, any other limit an array. Synchronizable items are found only with \
            --sync yes or any. No match is errSecItemNotFound (exit 44), never an empty array.
            """)

    @OptionGroup var globals: GlobalOptions
    @OptionGroup var item: ItemOptions

    @Option(help: "one (default), all, or a number.")
    var limit: String?

    @Option(name: .customLong("return"), help: "attributes (default), data, persistent-ref; comma-separated.")
    var returns: [String] = []

    @Option(name: .customLong("persistent-ref"), help: "Find one item by its persistent reference (base64).")
    var persistentRef: String?

    @Flag(name: [.customShort("w"), .customLong("password-only")], help: "Print only the secret's bytes (a newline is added only on a terminal).")
    var passwordOnly = false

    mutating func execute() throws {
        if passwordOnly, !returns.isEmpty || (limit != nil && limit != "one" && limit != "1") {
            throw ValidationError("-w prints one item's secret; it takes no --return and no --limit other than one.")
        }
        let caller = try globals.caller()
        let keychain = try globals.openKeychain()
        let request = try item.request(
            limit: limit, returns: passwordOnly ? ["data"] : ReturnWords.split(returns), persistentRef: persistentRef)
        let result = try keychain.find(request, caller: caller)
        if passwordOnly, let secret = result.items.first?.secret {
            StandardStreams.out(secret: secret)
            if StandardStreams.isTerminal(1) { StandardStreams.out("\n") }
            return
        }
        StandardStreams.out(
            ItemRenderer.render(
                result.items.map { .init(item: $0.item, secret: $0.secret) }, returns: result.query.returns,
                single: result.query.limit == .one, format: globals.resolvedFormat))
    }
}
