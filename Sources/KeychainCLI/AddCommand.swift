import ArgumentParser
import KeychainCore

/// `keychainctl add`: SecItemAdd.
struct AddCommand: KeychainSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add an item (SecItemAdd). The secret comes from standard input, --data-file, a prompt, or -w.",
        discussion: "Silent on success unless --return is given. An item with the same primary key fails with errSecDuplicateItem (exit 45) unless -U.")

    @OptionGroup var globals: GlobalOptions
    @OptionGroup var item: ItemOptions

    @Option(name: .customLong("data-file"), help: "Read the secret from this file, bytes kept exactly.")
    var dataFile: String?

    @Flag(name: .customLong("strip-newline"), help: "Drop one trailing newline from the secret read from stdin or a file.")
    var stripNewline = false

    @Option(name: [.customShort("w"), .customLong("password")], help: "The secret itself: visible to other users in the process list; prefer stdin.")
    var password: String?

    @Flag(name: [.customShort("U"), .customLong("update")], help: "Update an existing item with the same primary key instead of failing.")
    var updateExisting = false

    @Option(name: .customLong("return"), help: "Print the new item: attributes, persistent-ref (comma-separated).")
    var returns: [String] = []

    mutating func execute() throws {
        let caller = try globals.caller()
        let keychain = try globals.openKeychain()
        let secret = try SecretInput(
            file: dataFile, argument: password, stripNewline: stripNewline, passphraseFD: globals.passphraseFD
        ).read(prompt: "Secret for the new item: ")
        let request = try item.request(returns: ReturnWords.split(returns))
        let result = try keychain.add(request, secret: secret, caller: caller, updateExisting: updateExisting)
        for warning in result.warnings { StandardStreams.warn(warning) }
        let query = try ItemQuery(request, defaultLimit: .one)
        StandardStreams.out(
            ItemRenderer.render(
                [.init(item: result.item, secret: nil)], returns: query.returns.subtracting(.data), single: true,
                format: globals.resolvedFormat))
    }
}

/// `--return a,b --return c` into words.
enum ReturnWords {
    static func split(_ values: [String]) -> [String] {
        values.flatMap { $0.split(separator: ",").map { String($0) } }
    }
}
