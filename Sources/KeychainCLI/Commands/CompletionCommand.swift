/// `keychainctl completion bash|zsh|fish`: a completion script, generated from the option tables.
struct CompletionCommand: Subcommand {
    static let name = "completion"

    static let spec = CommandSpec(
        name: name,
        abstract: "Print a shell completion script (bash, zsh or fish).",
        discussion: """
            bash: source <(keychainctl completion bash), or install it as \
            /usr/share/bash-completion/completions/keychainctl. zsh: a file _keychainctl on $fpath. fish: \
            ~/.config/fish/completions/keychainctl.fish. 'make install' installs all three and the man page.
            """,
        sections: [(GlobalOptions.sectionTitle, GlobalOptions.specs)],
        operands: [("SHELL", "bash, zsh or fish.")], operandWords: ShellCompletion.shells)

    static let examples: [Example] = [
        Example("source <(keychainctl completion bash)", "Complete commands, options and their values in this bash session.")
    ]

    let context: CommandContext
    let shell: String

    init(_ arguments: ParsedArguments) throws(UsageError) {
        context = try CommandContext(arguments)
        guard let shell = arguments.operand, ShellCompletion.shells.contains(shell) else {
            throw UsageError("completion takes a shell: bash, zsh or fish.")
        }
        self.shell = shell
    }

    func run() throws {
        if let script = ShellCompletion.script(for: shell, commands: KeychainCommandLine.commands.map { $0.spec }) {
            StandardStreams.out(script)
        }
    }
}
