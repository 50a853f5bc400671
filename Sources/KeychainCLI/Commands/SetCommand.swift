import CommandLineKit
import KeychainCore
import TextEscaping

/// `keychainctl set NAME [ACCOUNT]`: store or replace a secret, the way `pass insert` does.
struct SetCommand: Subcommand {
    static let name = "set"

    static let spec = CommandSpec(
        name: name,
        abstract: "Store the secret for NAME (and ACCOUNT), replacing the one already there.",
        discussion: """
            The secret comes from a no-echo prompt on a terminal, else from standard input with one trailing \
            newline removed (--keep-newline keeps it), or from --data-file byte for byte; --generate makes a \
            random one and prints nothing unless --print. An existing local item with that name (in any group \
            the profile reads) keeps its place and persistent reference and takes the new secret (without \
            ACCOUNT: the one item of that service, whatever its account); otherwise the item is added to the \
            default group (or -g), with ACCOUNT or an empty account. Synchronizable items are set only with \
            --sync: a secret meant for this machine never goes into an item that the next sync sends to \
            every device (one of that name is exit 206 without --sync). A shorthand for generic \
            passwords: printf %s SECRET | keychainctl add -U -s NAME -a ACCOUNT, or keychainctl update \
            -s NAME -a ACCOUNT --set-data-stdin for an item elsewhere. Two items with the name is exit 206. \
            An empty secret from standard input or the prompt, what a failed command before the pipe gives, is \
            exit 206 and stores nothing; --data-file /dev/null stores an empty one.
            """,
        sections: [
            ("secret", [SecretInput.dataFile.spec, Self.keepNewline.spec, Self.generate.spec, Self.length.spec, Self.print.spec]),
            ("options", [Self.label.spec, NamedItem.group.spec, Self.sync.spec]),
            GlobalOptions.section,
        ],
        operands: NamedItem.operands, requiredOperands: 1, briefGlobalOptions: true, operandIsStoredName: true,
        examples: [
            Example("printf %s 'ghp_example' | keychainctl set github", "Store a token under the name github (replacing the one there)."),
            Example(
                "keychainctl set db admin --generate --length 40",
                "Store a new random 40-character password for account admin of db, printing nothing."
            ),
        ])

    static let keepNewline = Flag("keep-newline", "Keep the trailing newline of a secret read from standard input.")
    static let generate = Flag("generate", "Store a new random password (letters and digits) instead of reading one.")
    static let length = Option<Int>(
        "length", nil, "n", expected: "a length from \(PasswordGenerator.lengths.lowerBound) to \(PasswordGenerator.lengths.upperBound)",
        "With --generate: the password's length (default \(PasswordGenerator.defaultLength))."
    ) { Int($0).flatMap { PasswordGenerator.lengths.contains($0) ? $0 : nil } }
    static let print = Flag("print", "With --generate: print the new password (a newline only on a terminal).")
    static let label = Option.text("label", "l", "label", "The item's label (labl).")
    static let sync = Flag(
        "sync", "Store it in a synchronizable item, which 'keychainctl sync' shares with every device of the account.")

    let context: CommandContext

    /// Nothing came from standard input or the prompt. With ACCOUNT given, the habit of other
    /// tools (`security -w`, `secret-tool`) may have put the secret there: the word is not
    /// repeated, and the form that stores a secret is shown.
    static func nothingRead(_ named: NamedItem) -> KeychainError {
        let name = named.service.shellQuoted.terminalSafe
        guard named.account != nil else {
            return KeychainError(
                .param,
                hint: "the secret for \(named.described) is empty: nothing came from standard input or the prompt, "
                    + "so nothing was stored. To store an empty secret, give the same command --data-file /dev/null.")
        }
        return KeychainError(
            .param,
            hint: "nothing came from standard input or the prompt, so nothing was stored for service '\(named.service.terminalSafe)'. "
                + "A secret never goes on the command line: the word after NAME is the account (not shown, in case it "
                + "was the secret). Pipe the secret in: printf %s \"$SECRET\" | keychainctl set \(name) (with the account after "
                + "\(name) if one was meant); to store an empty secret, give the same command --data-file /dev/null.")
    }

    func validate() throws(UsageError) {
        if context[Self.generate], context[SecretInput.dataFile] != nil || context[Self.keepNewline] {
            throw UsageError("--generate makes the secret; it takes no --data-file or --keep-newline.")
        }
        if !context[Self.generate], context[Self.length] != nil || context[Self.print] {
            throw UsageError("--length and --print go with --generate.")
        }
    }

    func run() throws {
        let sync = context[Self.sync]
        let named = NamedItem(context.arguments, syncState: sync ? .yes : .no)
        let dataFile = context[SecretInput.dataFile]
        let caller = try context.caller()
        let credential = try context.openingCredential()
        // The secret is read (perhaps prompted for) before the keychain opens, as add does.
        let secret =
            context[Self.generate]
            ? PasswordGenerator.make(length: context[Self.length] ?? PasswordGenerator.defaultLength)
            : try SecretInput(
                file: dataFile, argument: nil, stripNewline: dataFile == nil && !context[Self.keepNewline],
                passphraseFD: context[GlobalOptions.passphraseFD]
            ).read(prompt: "Secret for \(named.described): ")
        // `producer | keychainctl set NAME` with a failed producer reads nothing: the stored secret
        // stays. (add and update follow SecItem, which takes empty data.)
        if secret.count == 0, dataFile == nil, !context[Self.generate] {
            throw Self.nothingRead(named)
        }
        let keychain = try context.openKeychain(with: credential)
        var existing: Item?
        do {
            existing = try named.theOne(keychain, caller: caller, command: Self.name, withData: false).item
        } catch let error as KeychainError where error.status == .itemNotFound {}
        // A synchronizable item of that name (another device may have planted it) is not replaced
        // by a local secret, nor shadowed by a new local item: the user says which is meant.
        if existing == nil, !sync, let synced = try named.synchronizable(keychain, caller: caller) {
            throw KeychainError(
                .param,
                hint: "\(named.described) is a synchronizable item (in \(synced.accessGroup.terminalSafe)): the next 'keychainctl sync' "
                    + "sends its secret to every device of the account. Nothing was stored. To replace it there, run "
                    + "'keychainctl set \(named.words) --sync'; to keep a local one, store it under another name.")
        }
        let labelChange = context[Self.label].map { [(code: Schema.label, value: $0)] } ?? []
        if let item = existing {
            _ = try keychain.update(
                ItemRequest(persistentRef: item.persistentRef.base64),
                changes: ChangeRequest(attributes: AttributeInputs(words: labelChange), secret: secret), caller: caller)
        } else {
            var request = ItemRequest(
                itemClass: ItemClass.genericPassword.rawValue, words: named.attributes(storing: true) + labelChange)
            request.sync = named.syncState
            _ = try keychain.add(request, secret: secret, caller: caller, updateExisting: true)
        }
        guard context[Self.generate], context[Self.print] else { return }
        StandardStreams.out(secret: secret)
        if StandardStreams.isTerminal(1) { StandardStreams.out("\n") }
    }
}
