import CommandLineKit
import KeychainCore
import TextEscaping

/// `keychainctl completion bash|zsh|fish`: a completion script, generated from the option tables;
/// `completion names`: the stored secrets' names, which those scripts offer after get, set, rm, ls.
struct CompletionCommand: Subcommand {
    static let name = "completion"

    static let spec = CommandSpec(
        name: name,
        abstract: "Print a shell completion script (bash, zsh or fish), or the stored secrets' names.",
        discussion: """
            bash: source <(keychainctl completion bash), or install it as \
            /usr/share/bash-completion/completions/keychainctl. zsh: a file _keychainctl on $fpath. fish: \
            ~/.config/fish/completions/keychainctl.fish. 'make install' installs all three and the man page. \
            The scripts complete commands, options, their values, and after get, set, rm and ls the names \
            of the stored secrets, quoted as the shell reads them back, then a name's accounts: 'completion \
            names' and 'completion accounts NAME' print them, one per line, when a key is at hand (a key \
            file, KEYCHAINCTL_KEY, a key 'unlock' cached); otherwise, or on any error, they print nothing \
            and exit 0, and never ask for a passphrase.
            """,
        sections: [GlobalOptions.section],
        operands: [
            ("SHELL", "bash, zsh or fish; or names, or accounts."), ("NAME", "With accounts: the stored name whose accounts to print."),
        ],
        operandWords: ShellCompletion.shells + ["names", "accounts"],
        examples: [
            Example("source <(keychainctl completion bash)", "Complete commands, options and their values in this bash session.")
        ])

    let context: CommandContext

    func validate() throws(UsageError) {
        let operands = context.arguments.operands
        guard let shell = operands.first, ShellCompletion.shells.contains(shell) || shell == "names" || shell == "accounts" else {
            throw UsageError("completion takes a shell: bash, zsh or fish (or names, or accounts NAME).")
        }
        guard (shell == "accounts") == (operands.count == 2) else {
            throw UsageError(shell == "accounts" ? "completion accounts takes the stored NAME." : "completion \(shell) takes no NAME.")
        }
    }

    func run() throws {
        let operands = context.arguments.operands
        switch operands.first ?? "" {
        case "names": return printNames()
        case "accounts": return printAccounts(of: operands[1])
        default: break
        }
        let shell = operands.first ?? ""
        if let script = KeychainCommandLine.completionScript(for: shell) {
            StandardStreams.out(script)
        }
    }

    /// The services of the generic passwords the profile reads, sorted, one per line: only with a
    /// key at hand (no prompt, no passphrase derivation), and nothing on any failure, so that a
    /// completion never stalls or prints an error into the user's command line. Names holding a
    /// control character or a line break are left out.
    private func printNames() { printStored(Schema.service, of: []) }

    /// The accounts of the generic passwords named `name`, as `printNames` prints names.
    private func printAccounts(of name: String) {
        printStored(Schema.account, of: [(code: Schema.service, value: AttributeValue.literal(name))])
    }

    /// The distinct values of attribute `code` among the generic passwords `attributes` selects.
    private func printStored(_ code: String, of attributes: [(code: String, value: String)]) {
        guard let keychain = try? context.keychainIfKeyAtHand(), let caller = try? context.caller() else { return }
        let request = ItemRequest(
            itemClass: .genericPassword, words: attributes, limit: .all, returns: .attributes, sync: .any)
        guard let found = try? keychain.find(request, caller: caller, skipDamaged: true) else { return }
        let values = Set(found.items.compactMap { $0.item.attributes[code]?.stringValue }).filter {
            !$0.isEmpty && !$0.containsControlCharacters
        }
        StandardStreams.out(values.sorted().map { $0 + "\n" }.joined())
    }
}
