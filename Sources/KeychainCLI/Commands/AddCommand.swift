import CommandLineKit
import KeychainCore

/// `keychainctl add`: SecItemAdd.
struct AddCommand: Subcommand {
    static let name = "add"

    static let spec = CommandSpec(
        name: name,
        abstract: "Add an item (SecItemAdd). The secret comes from standard input, --data-file, a prompt, or -w.",
        discussion: """
            Silent on success unless --return is given. An item with the same primary key fails with \
            errSecDuplicateItem (exit 45) unless -U.
            """,
        sections: [
            (
                "secret",
                [
                    SecretInput.dataFile.spec, SecretInput.stripNewline.spec, Self.password.spec, Self.refFile.spec, Self.noData.spec,
                    Self.dataField.spec,
                ]
            ),
            ("options", [Self.update.spec, Self.returns.spec, Self.accessControl.spec]),
            ItemOptions.section,
            GlobalOptions.section,
        ],
        examples: [
            Example(
                "printf %s 'hunter2' | keychainctl add -s api.example.com -a alice -l 'API token'",
                "Add a generic password, the secret on standard input."
            ),
            Example(
                "printf %s 'session' | keychainctl add --profile app.plist -s com.example.api -a session",
                "Add an item as the app whose entitlements are in app.plist (into its default group)."
            ),
        ])

    static let password = Option.text(
        "password", "w", "secret", "The secret itself: visible to other users in the process list; prefer stdin.")
    static let refFile = Option.path(
        "ref-file", repeatable: true,
        "A certificate or key (PEM or DER; PKCS#8, SEC1, PKCS#1, SubjectPublicKeyInfo) added by reference, its attributes derived as Apple derives them; --class idnt takes the certificate and its private key (one file or two)."
    )
    static let noData = Flag(
        "no-data", "Store the item without data (SecItemAdd without kSecValueData): a find for its data returns none.")
    static let dataField = Option.assignment(
        "data-field", "code=path",
        "A data field sealed with the secret and returned only with it (an internet password's binn, bini, bin0-bin3), read from a file.")
    static let update = Flag("update", "U", "Update an existing item with the same primary key instead of failing.")
    static let returns = ReturnWords.option("Print the new item: attributes, persistent-ref (comma-separated).")
    static let accessControl = Option.text(
        "access-control", "flags", suggestions: .accessControlFlags,
        "Protect the item (SecAccessControl): a comma list of user-presence, biometry-any, biometry-current-set, "
            + "device-passcode, application-password, private-key-usage, or, and; its protection is --accessible.")

    let context: CommandContext

    func validate() throws(UsageError) {
        let secretGiven = context[SecretInput.dataFile] != nil || context[Self.password] != nil || context[SecretInput.stripNewline]
        if context[Self.noData], secretGiven || !context.all(Self.refFile).isEmpty {
            throw UsageError("--no-data stores no secret; it takes no --data-file, -w, --strip-newline or --ref-file.")
        }
        if !context.all(Self.refFile).isEmpty, secretGiven {
            throw UsageError("--ref-file is the item's value; it takes no --data-file, -w or --strip-newline.")
        }
    }

    /// The item the attribute options and `--access-control` describe.
    private func item() -> ItemOptions {
        ItemOptions(context.arguments, accessControl: context[Self.accessControl])
    }

    func run() throws {
        let item = item()
        let returns = ReturnWords.split(context.all(Self.returns))
        let referenceFiles = context.all(Self.refFile)
        let updateExisting = context[Self.update]
        let caller = try context.caller()
        let credential = try context.openingCredential()
        var request = item.request(returns: returns)
        request.attributes += AttributeInputs(
            words: try DataFieldFiles.read(context.all(Self.dataField), option: "--\(Self.dataField.spec.long)"))
        let result: Keychain.AddResult
        let keychain: Keychain
        if referenceFiles.isEmpty {
            // The secret is read (perhaps prompted for) before the keychain opens.
            let (dataFile, password, stripNewline) = (
                context[SecretInput.dataFile], context[Self.password], context[SecretInput.stripNewline]
            )
            let secret =
                context[Self.noData]
                ? nil
                : try SecretInput(
                    file: dataFile, argument: password, stripNewline: stripNewline, passphraseFD: context[GlobalOptions.passphraseFD]
                ).read(prompt: "Secret for the new item: ")
            if let secret, dataFile == nil, password == nil, !stripNewline, !StandardStreams.isTerminal(0),
                secret.withUnsafeBytes({ $0.last == 0x0A })
            {
                StandardStreams.warn(
                    "the secret from standard input ends in a newline, which is stored with it (echo adds one); "
                        + "--strip-newline drops it, and 'keychainctl set' drops it by default.")
            }
            keychain = try context.openKeychain(with: credential)
            result = try keychain.add(request, secret: secret, caller: caller, updateExisting: updateExisting)
        } else {
            let files = try referenceFiles.map { (path: $0, contents: try SecretFiles.readFile($0, limit: InputLimits.objectFileBytes)) }
            let reference = try ItemReference(files: files)
            keychain = try context.openKeychain(with: credential)
            result = try keychain.add(request, reference: reference, caller: caller, updateExisting: updateExisting)
        }
        for warning in result.warnings { StandardStreams.warn(warning) }
        let isIdentity = ItemClass(parsing: item.itemClass ?? "") == .identity
        guard !returns.isEmpty, isIdentity || !result.returns.isDisjoint(with: [.data, .reference]) else {
            return StandardStreams.out(
                ItemRenderer.render(
                    [.init(item: result.item, secret: nil)], returns: result.returns, single: true, format: context.resolvedFormat))
        }
        // SecItemAdd hands back what a find by the new item's reference returns (an identity's
        // reference is `idnt` and its certificate's UUID): so it is printed by that find.
        let reference = isIdentity ? PersistentRef(itemClass: .identity, uuid: result.item.uuid) : result.item.persistentRef
        let found = ItemRequest(itemClass: nil, returns: returns.isEmpty ? nil : Given(parsing: returns), persistentRef: reference.base64)
        var stream: ItemRenderer.Stream?
        _ = try keychain.find(found, caller: caller) { query, entry in
            if stream == nil {
                stream = ItemRenderer.Stream(
                    returns: query.returns, single: true, format: context.resolvedFormat, sink: StandardStreams.out)
            }
            stream?.write(.init(item: entry.item, secret: entry.secret, reference: entry.reference, dataFields: entry.dataFields))
        }
        stream?.finish()
    }
}
