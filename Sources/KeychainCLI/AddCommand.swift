import KeychainCore

/// `keychainctl add`: SecItemAdd.
struct AddCommand: Subcommand {
    static let spec = CommandSpec(
        name: "add",
        abstract: "Add an item (SecItemAdd). The secret comes from standard input, --data-file, a prompt, or -w.",
        discussion:
            "Silent on success unless --return is given. An item with the same primary key fails with errSecDuplicateItem (exit 45) unless -U.",
        sections: [
            (
                "secret",
                [
                    .value("data-file", nil, "path", "Read the secret from this file, bytes kept exactly."),
                    .flag("strip-newline", "Drop one trailing newline from the secret read from stdin or a file."),
                    .value("password", "w", "secret", "The secret itself: visible to other users in the process list; prefer stdin."),
                ]
            ),
            (
                "options",
                [
                    .flag("update", "U", "Update an existing item with the same primary key instead of failing."),
                    .value("return", nil, "what", repeatable: true, "Print the new item: attributes, persistent-ref (comma-separated)."),
                    .value(
                        "access-control", nil, "flags",
                        "Protect the item (SecAccessControl): a comma list of user-presence, biometry-any, biometry-current-set, "
                            + "device-passcode, application-password, private-key-usage, or, and; its protection is --accessible."
                    ),
                ]
            ),
            ("item attributes", ItemOptions.specs),
            ("global options", GlobalOptions.specs),
        ])

    let globals: GlobalOptions
    let item: ItemOptions
    let dataFile: String?
    let stripNewline: Bool
    let password: String?
    let updateExisting: Bool
    let returns: [String]

    init(_ arguments: ParsedArguments) throws(UsageError) {
        globals = try GlobalOptions(arguments)
        item = try ItemOptions(arguments)
        dataFile = arguments.value("data-file")
        stripNewline = arguments.flag("strip-newline")
        password = arguments.value("password")
        updateExisting = arguments.flag("update")
        returns = ReturnWords.split(arguments.all("return"))
    }

    func run() throws {
        let caller = try globals.caller()
        let credential = try globals.openingCredential()
        let secret = try SecretInput(
            file: dataFile, argument: password, stripNewline: stripNewline, passphraseFD: globals.passphraseFD
        ).read(prompt: "Secret for the new item: ")
        let keychain = try globals.openKeychain(with: credential)
        let request = item.request(returns: returns)
        let result = try keychain.add(request, secret: secret, caller: caller, updateExisting: updateExisting)
        for warning in result.warnings { StandardStreams.warn(warning) }
        StandardStreams.out(
            ItemRenderer.render(
                [.init(item: result.item, secret: nil)], returns: result.returns.subtracting(.data), single: true,
                format: globals.resolvedFormat))
    }
}

/// `--return a,b --return c` into words.
enum ReturnWords {
    static func split(_ values: [String]) -> [String] {
        values.flatMap { $0.split(separator: ",").map { String($0) } }
    }
}
