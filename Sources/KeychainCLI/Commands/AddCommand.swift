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
                    .value(
                        "ref-file", nil, "path", repeatable: true,
                        "A certificate or key (PEM or DER; PKCS#8, SEC1, PKCS#1, SubjectPublicKeyInfo) added by reference, its attributes derived as Apple derives them; --class idnt takes the certificate and its private key (one file or two)."
                    ),
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
    let referenceFiles: [String]

    init(_ arguments: ParsedArguments) throws(UsageError) {
        globals = try GlobalOptions(arguments)
        item = try ItemOptions(arguments)
        dataFile = arguments.value("data-file")
        stripNewline = arguments.flag("strip-newline")
        password = arguments.value("password")
        updateExisting = arguments.flag("update")
        returns = ReturnWords.split(arguments.all("return"))
        referenceFiles = arguments.all("ref-file")
        if !referenceFiles.isEmpty, dataFile != nil || password != nil || stripNewline {
            throw UsageError("--ref-file is the item's value; it takes no --data-file, -w or --strip-newline.")
        }
    }

    func run() throws {
        let caller = try globals.caller()
        let credential = try globals.openingCredential()
        let request = item.request(returns: returns)
        let result: Keychain.AddResult
        if referenceFiles.isEmpty {
            result = try add(request, caller: caller, credential: credential)
        } else {
            let files = try referenceFiles.map { (path: $0, contents: try SecretReader.readFile($0, limit: InputLimits.objectFileBytes)) }
            let reference = try ItemReference(files: files)
            result = try globals.openKeychain(with: credential).add(
                request, reference: reference, caller: caller, updateExisting: updateExisting)
        }
        for warning in result.warnings { StandardStreams.warn(warning) }
        StandardStreams.out(
            ItemRenderer.render(
                [.init(item: result.item, secret: nil)], returns: result.returns.subtracting([.data, .reference]), single: true,
                format: globals.resolvedFormat))
    }

    /// An add whose secret is data: stdin, a file, a prompt or -w.
    private func add(_ request: ItemRequest, caller: Caller, credential: Keychain.Opening) throws -> Keychain.AddResult {
        let secret = try SecretInput(
            file: dataFile, argument: password, stripNewline: stripNewline, passphraseFD: globals.passphraseFD
        ).read(prompt: "Secret for the new item: ")
        return try globals.openKeychain(with: credential).add(request, secret: secret, caller: caller, updateExisting: updateExisting)
    }
}
