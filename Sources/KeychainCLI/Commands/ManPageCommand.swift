import CommandLineKit
import KeychainCore

/// `keychainctl manpage`: the roff source of keychainctl(1), generated from the option tables.
struct ManPageCommand: Subcommand {
    static let name = "manpage"
    static let markdown = Flag("markdown", "Print the same reference as Markdown (docs/REFERENCE.md is this output).")

    static let spec = CommandSpec(
        name: name,
        abstract: "Print the keychainctl(1) man page (roff), generated from the same tables as --help.",
        discussion: "man <(keychainctl manpage) shows it; 'make install' installs it.",
        sections: [("options", [Self.markdown.spec]), GlobalOptions.section],
        examples: [
            Example("keychainctl manpage > keychainctl.1", "Write the man page (man ./keychainctl.1 reads it).")
        ])

    let context: CommandContext

    func run() throws {
        let commands = KeychainCommandLine.commands.map { $0.spec }
        StandardStreams.out(
            context[Self.markdown]
                ? ReferencePage.markdown(
                    commands, program: KeychainProgram.spec, version: "keychainctl " + VersionReport.number)
                : ManPage.render(
                    commands, program: KeychainProgram.spec, version: "keychainctl " + VersionReport.number))
    }
}
