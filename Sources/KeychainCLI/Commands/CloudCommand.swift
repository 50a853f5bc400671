import CommandLineKit
import Glibc
import KeychainCore
import TextEscaping

/// `keychainctl cloud init DIR`: a new cloud store for an account's devices to sync through.
struct CloudCommand: Subcommand {
    static let name = "cloud"

    static let spec = CommandSpec(
        name: name,
        abstract: "Create a cloud store: the directory an account's keychains sync through (see sync).",
        discussion: """
            Makes DIR (new or empty) a cloud store sealed under an account key: a random key written to a new \
            file (--generate-account-key-file, mode 0600), or an existing one (--account-key-file). Every device \
            of the account syncs with the same key; each keeps its own keychain key. DIR holds one encrypted file \
            per item (records/, named by the item's UUID) and a sealed marker; a .gitignore leaves the lock and \
            temporary files out of git (sync --git). An existing store is never overwritten (exit 74).
            """,
        sections: [
            ("options", [Self.generateAccountKeyFile.spec, SyncCommand.accountKeyFile.spec]),
            GlobalOptions.section,
        ],
        actions: [("init", "Create the store at DIR.")],
        operands: [("DIR", "The cloud store's directory.")],
        examples: [
            Example(
                "keychainctl cloud init ~/cloud --generate-account-key-file ~/account.key",
                "Create a cloud store and the account key that seals it."
            )
        ])

    static let generateAccountKeyFile = Option.path(
        "generate-account-key-file", "Write a new random account key (base64, mode 0600) to this file.")

    let context: CommandContext

    func validate() throws(UsageError) {
        guard context.arguments.operand != nil else { throw UsageError("cloud init needs the store's directory: cloud init DIR.") }
        if context[Self.generateAccountKeyFile] != nil, context[SyncCommand.accountKeyFile] != nil {
            throw UsageError("give one of --generate-account-key-file (a new account) and --account-key-file (an existing key).")
        }
    }

    func run() throws {
        let directory = context.arguments.operand ?? ""
        let generateKeyFile = context[Self.generateAccountKeyFile]
        let key: SecretBytes
        if let generateKeyFile {
            try SyncCommand.checkKeyOutside(store: directory, keyFile: generateKeyFile)
            guard case .key(let generated) = try KeyFile.writeNew(to: generateKeyFile) else { return }
            key = generated
        } else {
            key = try SyncCommand.accountKey(context[SyncCommand.accountKeyFile], store: directory)
        }
        do {
            try CloudStore.create(at: directory, accountKey: key)
        } catch {
            if let generateKeyFile { unlink(generateKeyFile) }
            throw error
        }
        switch context.resolvedFormat {
        case .text: StandardStreams.out("created cloud store \(directory.terminalSafe)\n")
        case .json: StandardStreams.out(JSON.render(.object(["cloud": .string(directory)])) + "\n")
        }
    }
}
