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
        sections: [("global options", GlobalOptions.specs)],
        operand: ("SHELL", "bash, zsh or fish."))

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

/// `keychainctl manpage`: the roff source of keychainctl(1), generated from the option tables.
struct ManPageCommand: Subcommand {
    static let name = "manpage"
    static let markdown = Flag("markdown", "Print the same reference as Markdown (docs/REFERENCE.md is this output).")

    static let spec = CommandSpec(
        name: name,
        abstract: "Print the keychainctl(1) man page (roff), generated from the same tables as --help.",
        discussion: "man <(keychainctl manpage) shows it; 'make install' installs it.",
        sections: [("options", [Self.markdown.spec]), ("global options", GlobalOptions.specs)])

    let context: CommandContext
    let asMarkdown: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        context = try CommandContext(arguments)
        asMarkdown = arguments.flag(Self.markdown)
    }

    func run() throws {
        let commands = KeychainCommandLine.commands.map { $0.spec }
        StandardStreams.out(
            asMarkdown
                ? ReferencePage.markdown(commands, version: KeychainCommandLine.version)
                : ManPage.render(commands, version: KeychainCommandLine.version))
    }
}
