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
            of the stored secrets: 'completion names' prints them, one per line, when a key is at hand (a \
            key file, KEYCHAINCTL_KEY, a key 'unlock' cached); otherwise, or on any error, it prints \
            nothing and exits 0, and never asks for a passphrase.
            """,
        sections: [GlobalOptions.section],
        operands: [("SHELL", "bash, zsh or fish; or names.")], operandWords: ShellCompletion.shells + ["names"],
        examples: [
            Example("source <(keychainctl completion bash)", "Complete commands, options and their values in this bash session.")
        ])

    let context: CommandContext

    func validate() throws(UsageError) {
        guard let shell = context.arguments.operand, ShellCompletion.shells.contains(shell) || shell == "names" else {
            throw UsageError("completion takes a shell: bash, zsh or fish (or names).")
        }
    }

    func run() throws {
        let shell = context.arguments.operand ?? ""
        guard shell != "names" else { return printNames() }
        if let script = KeychainCommandLine.completionScript(for: shell) {
            StandardStreams.out(script)
        }
    }

    /// The services of the generic passwords the profile reads, sorted, one per line: only with a
    /// key at hand (no prompt, no passphrase derivation), and nothing on any failure, so that a
    /// completion never stalls or prints an error into the user's command line. Names holding a
    /// control character or a line break are left out.
    private func printNames() {
        guard let keychain = try? context.keychainIfKeyAtHand(), let caller = try? context.caller() else { return }
        let request = ItemRequest(itemClass: .genericPassword, matchLimit: .all, returnOptions: .attributes, syncFilter: .any)
        guard let found = try? keychain.find(request, caller: caller, skipDamaged: true) else { return }
        let names = Set(found.items.compactMap { $0.item.attributes[Schema.service]?.stringValue }).filter {
            !$0.isEmpty && !$0.containsControlCharacters
        }
        StandardStreams.out(names.sorted().map { $0 + "\n" }.joined())
    }
}
