import KeychainCore

/// `keychainctl find`: SecItemCopyMatching.
struct FindCommand: Subcommand {
    static let spec = CommandSpec(
        name: "find",
        abstract: "Find items (SecItemCopyMatching).",
        discussion: """
            A limit of one prints one value, any other limit an array. Synchronizable items are found only with
            --sync yes or any. No match is errSecItemNotFound (exit 44), never an empty array.
            """,
        sections: [
            (
                "options",
                [
                    .value("limit", nil, "one|all|n", "How many: one (default), all, or a number."),
                    .value(
                        "return", nil, "what", repeatable: true,
                        "attributes (default), data, persistent-ref, ref (a certificate or public key as PEM); comma-separated."),
                    .flag(
                        "allow-private-key-export",
                        "Let a private key's bytes be printed (its data, or its ref as a private key), and only if its extr is true."),
                    .value("persistent-ref", nil, "base64", "Find one item by its persistent reference."),
                    .flag("password-only", "w", "Print only the secret's bytes (a newline is added only on a terminal)."),
                    DamagedRows.option,
                ]
            ),
            ("item attributes", ItemOptions.specs),
            ("global options", GlobalOptions.specs),
        ])

    let globals: GlobalOptions
    let item: ItemOptions
    let limit: String?
    let returns: [String]
    let persistentRef: String?
    let passwordOnly: Bool
    let skipDamaged: Bool
    let allowPrivateKeyExport: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        globals = try GlobalOptions(arguments)
        item = try ItemOptions(arguments)
        limit = arguments.value("limit")
        returns = ReturnWords.split(arguments.all("return"))
        persistentRef = arguments.value("persistent-ref")
        passwordOnly = arguments.flag("password-only")
        skipDamaged = arguments.flag("skip-damaged")
        allowPrivateKeyExport = arguments.flag("allow-private-key-export")
    }

    func run() throws {
        if passwordOnly, !returns.isEmpty || (limit != nil && limit != "one" && limit != "1") {
            throw UsageError("-w prints one item's secret; it takes no --return and no --limit other than one.")
        }
        let caller = try globals.caller()
        let keychain = try globals.openKeychain()
        var request = item.request(limit: limit, returns: passwordOnly ? ["data"] : returns, persistentRef: persistentRef)
        request.allowPrivateKeyExport = allowPrivateKeyExport
        if passwordOnly {
            let result = try keychain.find(request, caller: caller, skipDamaged: skipDamaged) { _, found in
                guard let secret = found.secret else { return }
                StandardStreams.out(secret: secret)
                if StandardStreams.isTerminal(1) { StandardStreams.out("\n") }
            }
            try DamagedRows.finish(result.damaged, skip: skipDamaged)
            return
        }
        // Items are written as they are found: one secret in memory at a time.
        var stream: ItemRenderer.Stream?
        let result = try keychain.find(request, caller: caller, skipDamaged: skipDamaged) { query, found in
            if stream == nil {
                stream = ItemRenderer.Stream(
                    returns: query.returns, single: query.limit == .one, format: globals.resolvedFormat, sink: StandardStreams.out)
            }
            stream?.write(.init(item: found.item, secret: found.secret, reference: found.reference))
        }
        stream?.finish()
        try DamagedRows.finish(result.damaged, skip: skipDamaged)
    }
}
