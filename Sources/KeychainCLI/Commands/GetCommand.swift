import CommandLineKit
import KeychainCore

/// `keychainctl get NAME [ACCOUNT]`: the secret alone, for scripts; several matches are an error.
struct GetCommand: Subcommand {
    static let name = "get"
    static let clip = Flag("clip", "Copy the secret to the clipboard (wl-copy, xclip or xsel) instead of printing it.")
    static let clipSeconds = Option<Int>(
        "clip-seconds", nil, "n", expected: "a number of seconds from 0 to 86400",
        "With --clip: clear the clipboard after this long, unless something else was copied since (default 45; 0: never)."
    ) { Int($0).flatMap { (0...86_400).contains($0) ? $0 : nil } }

    static let spec = CommandSpec(
        name: name,
        abstract: "Print the secret stored under NAME (and ACCOUNT): its bytes alone, a newline only on a terminal.",
        discussion: """
            A shorthand for generic passwords: keychainctl find -s NAME [-a ACCOUNT] --sync any -w, except that \
            a NAME (and ACCOUNT) matching more than one item is an error naming their accounts (exit 206), \
            never the first one silently. Nothing matching is exit 44. --clip copies the secret to the \
            desktop's clipboard instead (wl-copy under Wayland, else xclip or xsel under X11; exit 78 when \
            there is none), prints nothing, and clears the clipboard after 45 seconds unless it changed.
            """,
        sections: [
            ("options", [NamedItem.group.spec, Self.clip.spec, Self.clipSeconds.spec]), GlobalOptions.section,
        ],
        operands: NamedItem.operands, requiredOperands: 1, briefGlobalOptions: true, operandIsStoredName: true,
        examples: [
            Example("TOKEN=$(keychainctl get github)", "Read the token into a variable, byte for byte."),
            Example("keychainctl get db admin | wc -c", "Pipe a secret on without a trailing newline."),
        ])

    let context: CommandContext

    func validate() throws(UsageError) {
        if context[Self.clipSeconds] != nil, !context[Self.clip] { throw UsageError("--clip-seconds goes with --clip.") }
    }

    func run() throws {
        let caller = try context.caller()
        // The clipboard's tool is found first: a missing one costs no keychain read.
        let clipboard = context[Self.clip] ? try Clipboard() : nil
        let keychain = try context.openKeychain()
        let named = NamedItem(context.arguments)
        let found: Keychain.FoundItem
        do { found = try named.theOne(keychain, caller: caller, command: Self.name, withData: true) } catch let error as KeychainError
            where error.status == .itemNotFound
        {
            // The same item as explain names it (every sync state, as get looks), with the
            // options that chose the keychain and the caller.
            let global = context.arguments.canonical(Self.spec).filter { word in
                GlobalOptions.specs.contains { word == "--" + $0.long || word.hasPrefix("--" + $0.long + "=") }
            }
            let words =
                ["explain", "--service=" + named.service] + (named.account.map { ["--account=" + $0] } ?? [])
                + (named.group.map { ["--group=" + $0] } ?? []) + ["--sync=any"] + global
            throw FindCommand.pointingAtExplain(
                error, request: named.query(.attributes, limit: .all), keychain: keychain, caller: caller, words: words)
        }
        if let clipboard {
            return try clipboard.copy(found.secret ?? SecretBytes(count: 0), clearAfter: context[Self.clipSeconds] ?? 45)
        }
        StandardStreams.out(secret: found.secret ?? SecretBytes(count: 0))
        if StandardStreams.isTerminal(1) { StandardStreams.out("\n") }
    }
}
