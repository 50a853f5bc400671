import CommandLineKit
import KeychainCore

/// `keychainctl find`: SecItemCopyMatching.
struct FindCommand: Subcommand {
    static let name = "find"

    static let spec = CommandSpec(
        name: name,
        abstract: "Find items (SecItemCopyMatching).",
        discussion: """
            A limit of one prints one value, any other limit an array. Synchronizable items are found only with
            --sync yes or any. No match is errSecItemNotFound (exit 44), never an empty array.
            """,
        sections: [
            (
                "options",
                [
                    Self.limit.spec, Self.returns.spec, Self.allowPrivateKeyExport.spec, Self.persistentRef.spec, Self.passwordOnly.spec,
                    DamagedRows.option.spec,
                ]
            ),
            ItemOptions.section,
            GlobalOptions.section,
        ],
        examples: [
            Example("keychainctl find -s api.example.com -a alice -w", "Print the secret alone."),
            Example(
                "keychainctl find --limit all --sync any --format json",
                "Every generic password the profile reads, synchronizable or not, as JSON."
            ),
        ])

    static let limit = Option.text("limit", "one|all|n", suggestions: .limits, "How many: one (default), all, or a number.")
    static let returns = ReturnWords.option(
        "attributes (default), data, persistent-ref, ref (a certificate or public key as PEM); comma-separated.")
    static let allowPrivateKeyExport = Flag(
        "allow-private-key-export",
        "Let a private key's bytes be printed (its data, or its ref as a private key), and only if its extr is true.")
    static let persistentRef = Option.text("persistent-ref", "base64", "Find one item by its persistent reference.")
    static let passwordOnly = Flag("password-only", "w", "Print only the secret's bytes (a newline is added only on a terminal).")

    static let allowsAuthUISkip = true

    let context: CommandContext

    func validate() throws(UsageError) {
        let limit = context[Self.limit]
        if context[Self.passwordOnly], !context.all(Self.returns).isEmpty || (limit != nil && limit != "one" && limit != "1") {
            throw UsageError("-w prints one item's secret; it takes no --return and no --limit other than one.")
        }
    }

    func run() throws {
        let passwordOnly = context[Self.passwordOnly]
        var request = ItemOptions(context.arguments).request(
            limit: context[Self.limit], returns: passwordOnly ? ["data"] : ReturnWords.split(context.all(Self.returns)),
            persistentRef: context[Self.persistentRef])
        request.allowPrivateKeyExport = context[Self.allowPrivateKeyExport]
        let caller = try context.caller()
        let keychain = try context.openKeychain()
        do { try find(request, caller: caller, keychain: keychain, passwordOnly: passwordOnly) } catch let error as KeychainError
            where error.status == .itemNotFound
        {
            throw Self.pointingAtExplain(
                error, request: request, keychain: keychain, caller: caller, words: ["explain"] + context.arguments.canonical(Self.spec))
        }
    }

    /// A miss, saying where else items match (groups the profile does not read) and the explain
    /// command that says which and why: the same words with explain for the verb. The call's own
    /// keychain and caller: nothing is opened or asked for again.
    static func pointingAtExplain(_ error: KeychainError, request: ItemRequest, keychain: Keychain, caller: Caller, words: [String])
        -> KeychainError
    {
        guard let elsewhere = try? keychain.matchCountElsewhere(request, caller: caller), elsewhere > 0 else { return error }
        let command = (["keychainctl"] + words).map(\.shellQuoted).joined(separator: " ").terminalSafe
        return KeychainError(
            .itemNotFound,
            hint: error.hint + " \(elsewhere) item\(elsewhere == 1 ? " matches" : "s match") in access groups this profile does not read: "
                + "'\(command)' says which and why.")
    }

    private func find(_ request: ItemRequest, caller: Caller, keychain: Keychain, passwordOnly: Bool) throws {
        let skipDamaged = context[DamagedRows.option]
        if passwordOnly {
            let result = try keychain.find(request, caller: caller, skipDamaged: skipDamaged) { _, found in
                guard let secret = found.secret else { return }
                StandardStreams.out(secret: secret)
                if StandardStreams.isTerminal(1) { StandardStreams.out("\n") }
            }
            try DamagedRows.finish(result.damaged, skip: skipDamaged)
            if result.moreMatched {
                let count = try keychain.matchCount(request, caller: caller)
                StandardStreams.warn(
                    "\(count) items match; this is the first, as SecItem returns it. Name one: add -a ACCOUNT or -g GROUP, "
                        + "or its --persistent-ref (--limit all --return attributes,persistent-ref lists them).")
            }
            return
        }
        // Items are written as they are found: one secret in memory at a time.
        var stream: ItemRenderer.Stream?
        let result = try keychain.find(request, caller: caller, skipDamaged: skipDamaged) { query, found in
            if stream == nil {
                stream = ItemRenderer.Stream(
                    returns: query.returns, single: query.limit == .one, format: context.resolvedFormat, sink: StandardStreams.out)
            }
            stream?.write(.init(item: found.item, secret: found.secret, reference: found.reference, dataFields: found.dataFields))
        }
        stream?.finish()
        try DamagedRows.finish(result.damaged, skip: skipDamaged)
    }
}
