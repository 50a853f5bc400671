import KeychainCore

/// `keychainctl update`: SecItemUpdate.
struct UpdateCommand: Subcommand {
    /// Each `--set-…` option and the attribute code it changes.
    static let changeOptions: [(spec: OptionSpec, code: String)] = [
        (.value("set-account", nil, "account", "New account (acct)."), "acct"),
        (.value("set-service", nil, "service", "New service (svce)."), "svce"),
        (.value("set-group", nil, "group", "Move to this access group (must be writable)."), "agrp"),
        (.value("set-label", nil, "label", "New label (labl)."), "labl"),
        (.value("set-accessible", nil, "class", "New accessibility (pdmn)."), "pdmn"),
        (.value("set-sync", nil, "yes|no", "Make the item synchronizable or not."), "sync"),
    ]

    static let spec = CommandSpec(
        name: "update",
        abstract: "Update every matching item (SecItemUpdate), all or nothing.",
        discussion: "A change that makes two items collide changes nothing (exit 45). --dry-run checks everything and lists the matches.",
        sections: [
            (
                "changes",
                changeOptions.map(\.spec) + [
                    .value("set-attr", nil, "code=value", repeatable: true, "Set any attribute by its code."),
                    .value("set-data-file", nil, "path", "New secret from this file."),
                    .flag("set-data-stdin", "New secret from standard input."),
                    .value("set-password", nil, "secret", "New secret itself (visible in the process list)."),
                    .flag("strip-newline", "Drop one trailing newline from the new secret."),
                    .value(
                        "set-access-control", nil, "flags|none",
                        "New access control (flags as add's --access-control; none: the protection alone), protection from --set-accessible."
                    ),
                ]
            ),
            (
                "options",
                [
                    .value("limit", nil, "one|all|n", "How many to update: all (default), one, or a number."),
                    .flag("dry-run", "Check everything, list the matches, change nothing."),
                    DamagedRows.option,
                ]
            ),
            ("query attributes", ItemOptions.specs),
            ("global options", GlobalOptions.specs),
        ])

    let globals: GlobalOptions
    let item: ItemOptions
    let changes: [(code: String, value: String)]
    let setDataFile: String?
    let setDataStdin: Bool
    let setPassword: String?
    let stripNewline: Bool
    let limit: String?
    let dryRun: Bool
    let skipDamaged: Bool
    let accessControl: AccessControlRequest?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        globals = try GlobalOptions(arguments)
        item = try ItemOptions(arguments)
        accessControl = arguments.value("set-access-control").map {
            AccessControlRequest(flags: $0, protection: arguments.value("set-accessible"))
        }
        let options = accessControl == nil ? Self.changeOptions : Self.changeOptions.filter { $0.code != Schema.protection }
        changes =
            arguments.attributes(from: options)
            + (try ItemOptions.parseAssignments(arguments.all("set-attr"), option: "--set-attr"))
        setDataFile = arguments.value("set-data-file")
        setDataStdin = arguments.flag("set-data-stdin")
        setPassword = arguments.value("set-password")
        stripNewline = arguments.flag("strip-newline")
        limit = arguments.value("limit")
        dryRun = arguments.flag("dry-run")
        skipDamaged = arguments.flag("skip-damaged")
    }

    func run() throws {
        let caller = try globals.caller()
        let credential = try globals.openingCredential()
        var secret: SecretBytes?
        if setDataFile != nil || setDataStdin || setPassword != nil {
            if setDataStdin, setDataFile != nil || setPassword != nil {
                throw UsageError("give the new secret once: --set-data-file, --set-data-stdin or --set-password.")
            }
            secret = try SecretInput(
                file: setDataFile, argument: setPassword, stripNewline: stripNewline, passphraseFD: globals.passphraseFD
            ).read(prompt: "New secret: ")
        }
        let keychain = try globals.openKeychain(with: credential)
        let matched = try keychain.update(
            item.request(limit: limit), changes: changes, secret: secret, caller: caller, dryRun: dryRun,
            skipDamaged: skipDamaged, accessControl: accessControl)
        if dryRun {
            StandardStreams.out(ItemRenderer.listing(matched.items, format: globals.resolvedFormat))
        }
        try DamagedRows.finish(matched.skipped, skip: skipDamaged)
    }
}
