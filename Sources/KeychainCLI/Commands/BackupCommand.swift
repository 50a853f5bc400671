import CommandLineKit
import KeychainCore
import TextEscaping

/// `keychainctl backup DEST`: a copy of the keychain, consistent while others write it.
struct BackupCommand: Subcommand {
    static let name = "backup"

    static let spec = CommandSpec(
        name: name,
        abstract: "Copy the keychain to DEST: one consistent snapshot, still encrypted, that opens with the same key.",
        discussion: """
            The copy is taken with SQLite's online backup, so other processes may go on writing; it is a new \
            file of mode 0600 (an existing DEST is refused, exit 48), made in memory and written to DEST only \
            once it opens with this call's key and SQLite finds it sound; a backup that fails or is killed \
            leaves nothing. Secrets stay sealed: the copy \
            needs the same key file or passphrase. To restore, copy it back over the keychain file (with no \
            other process using it), or point KEYCHAINCTL_KEYCHAIN at it.
            """,
        sections: [GlobalOptions.section],
        operands: [("DEST", "The new file to write.")], requiredOperands: 1, briefGlobalOptions: true,
        examples: [
            Example("keychainctl backup ~/keychain-backup.db", "Copy the keychain, still encrypted, while others may write to it.")
        ])

    let context: CommandContext

    func run() throws {
        let destination = context.arguments.operand ?? ""
        let keychain = try context.openKeychain()
        let items = try keychain.backup(to: destination)
        switch context.resolvedFormat {
        case .json:
            StandardStreams.out(JSON.render(.object(["path": .string(destination), "items": .number(Int64(items))])) + "\n")
        case .text:
            StandardStreams.out(
                "backed up \(items) item\(items == 1 ? "" : "s") to \(destination.terminalSafe) (sealed; it opens with the same key)\n")
        }
    }
}
