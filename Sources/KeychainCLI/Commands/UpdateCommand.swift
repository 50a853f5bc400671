import CommandLineKit
import KeychainCore

/// `keychainctl update`: SecItemUpdate.
struct UpdateCommand: Subcommand {
    static let name = "update"

    static let spec = CommandSpec(
        name: name,
        abstract: "Update every matching item (SecItemUpdate), all or nothing.",
        discussion: """
            A change that makes two items collide changes nothing (exit 45). --dry-run checks everything and \
            lists the matches. With no attribute, reference or group to select by, it needs --all (or a yes on a \
            terminal): it would change every item of the class.
            """,
        sections: [
            (
                "changes",
                Self.changeOptions.map(\.spec) + [
                    Self.setAttr.spec, Self.setDataFile.spec, Self.setDataStdin.spec, Self.setPassword.spec, SecretInput.stripNewline.spec,
                    Self.setDataField.spec, Self.setAccessControl.spec,
                ]
            ),
            ("options", Self.scope.specs),
            ("query attributes", ItemOptions.specs),
            GlobalOptions.section,
        ],
        examples: [
            Example("printf %s 'rotated' | keychainctl update -s api.example.com -a alice --set-data-stdin", "Replace a secret."),
            Example(
                "keychainctl update -s api.example.com --set-label 'Rotated' --dry-run", "Show what a change would touch, changing nothing."
            ),
        ])

    /// Each `--set-…` option and the attribute code it changes.
    static let changeOptions: [(spec: OptionSpec, code: String)] = [
        (.plain("set-account", nil, "account", "New account (acct)."), Schema.account),
        (.plain("set-service", nil, "service", "New service (svce)."), Schema.service),
        (.plain("set-group", nil, "group", "Move to this access group (must be writable)."), Schema.accessGroup),
        (.plain("set-label", nil, "label", "New label (labl)."), Schema.label),
        (.plain("set-accessible", nil, "class", suggestions: .accessibilities, "New accessibility (pdmn)."), Schema.protection),
        (.plain("set-sync", nil, "yes|no", kind: .choices, "Make the item synchronizable or not."), Schema.synchronizable),
    ]
    static let setAttr = Option.assignment("set-attr", "code=value", "Set any attribute by its code.")
    static let setDataFile = Option.path("set-data-file", "New secret from this file.")
    static let setDataStdin = Flag("set-data-stdin", "New secret from standard input.")
    static let setPassword = Option.text("set-password", nil, "secret", "New secret itself (visible in the process list).")
    static let setDataField = Option.assignment(
        "set-data-field", "code=path",
        "Replace one data field (an internet password's binn, bini, bin0-bin3) with a file's bytes; the data and other fields stay.")
    static let setAccessControl = Option.text(
        "set-access-control", nil, "flags|none", suggestions: .accessControlOrNone,
        "New access control (flags as add's --access-control; none: the protection alone), protection from --set-accessible.")
    static let scope = ChangeScope.Options(verb: "update", dryRun: "Check everything, list the matches, change nothing.")

    let context: CommandContext

    /// Checked with the options, before the profile or the keychain is read.
    func validate() throws(UsageError) {
        if context[Self.setDataStdin], context[Self.setDataFile] != nil || context[Self.setPassword] != nil {
            throw UsageError("give the new secret once: --set-data-file, --set-data-stdin or --set-password.")
        }
    }

    /// The attribute changes the `--set-…` options give, and `--set-access-control`'s request
    /// (whose protection is `--set-accessible`'s, which is then no attribute change).
    private func changes() -> ChangeRequest {
        let changes = context.arguments.attributes(from: Self.changeOptions)
        let accessControl = context[Self.setAccessControl].map {
            AccessControlRequest(flags: $0, protection: changes.last { $0.code == Schema.protection }?.value)
        }
        let words =
            changes.filter { accessControl == nil || $0.code != Schema.protection }
            + context.all(Self.setAttr).map { ($0.code, $0.value) }
        return ChangeRequest(attributes: AttributeInputs(words: words), accessControl: accessControl)
    }

    func run() throws {
        let scope = ChangeScope(context.arguments, Self.scope)
        let request = scope.request(ItemOptions(context.arguments))
        var changes = changes()
        let caller = try context.caller()
        let credential = try context.openingCredential()
        var secret: SecretBytes?
        let setDataFile = context[Self.setDataFile]
        let setPassword = context[Self.setPassword]
        if setDataFile != nil || context[Self.setDataStdin] || setPassword != nil {
            secret = try SecretInput(
                file: setDataFile, argument: setPassword, stripNewline: context[SecretInput.stripNewline],
                passphraseFD: context[GlobalOptions.passphraseFD]
            ).read(prompt: "New secret: ")
        }
        let keychain = try context.openKeychain(with: credential)
        changes.attributes += AttributeInputs(
            words: try DataFieldFiles.read(context.all(Self.setDataField), option: "--\(Self.setDataField.spec.long)"))
        changes.secret = secret
        let matched = try scope.perform(request, verb: "update", count: \.count) { dryRun, skipDamaged in
            try keychain.update(request, changes: changes, caller: caller, dryRun: dryRun, skipDamaged: skipDamaged)
        }
        if scope.dryRun {
            StandardStreams.out(ItemRenderer.listing(matched.items, format: context.resolvedFormat))
        }
        try DamagedRows.finish(matched.skipped, skip: scope.skipDamaged)
    }
}
