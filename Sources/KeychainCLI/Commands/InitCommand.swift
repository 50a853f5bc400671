import CommandLineKit
import Glibc
import KeychainCore
import KeychainPlatform
import TextEscaping

/// `keychainctl init`: creates a keychain.
struct InitCommand: Subcommand {
    static let name = "init"

    static let spec = CommandSpec(
        name: name,
        abstract: "Create a keychain, unlocked by a new random key file or by a passphrase.",
        discussion: """
            Never overwrites an existing keychain (exit 48) or key file. Folders it creates are mode 0700, files \
            0600. The default keychain's key file is keychain.key in $XDG_CONFIG_HOME/keychainctl \
            (~/.config/keychainctl): every command opening the default keychain reads it when no other \
            source gives a key. With no key source and no terminal to ask a passphrase on, init makes that \
            file for the default keychain, or keeps the one a deleted keychain left (a key may still open \
            its backups); on a terminal it asks for a passphrase unless --generate-key-file is given.
            """,
        sections: [("options", [Self.generateKeyFile.spec, Self.kdf.spec]), GlobalOptions.section],
        examples: [
            Example(
                "keychainctl init --generate-key-file",
                "Create the default keychain, opened by a new random key file that later commands find by themselves."
            )
        ])

    static let generateKeyFile = Option.path(
        "generate-key-file", optional: true,
        "Write a new random key (base64, mode 0600) to this file and use it; without a path, the default keychain's key file.")
    static let kdf = Option.choice(
        "kdf", nil, "interactive|moderate|sensitive",
        "Argon2id cost for a new passphrase: 64 MiB, 256 MiB (default) or 1 GiB of memory per unlock.", PassphraseKDF.Preset.init(rawValue:)
    )

    let context: CommandContext

    func run() throws {
        let path = context.keychainPath
        // Refused before any key file is written for it.
        guard access(path, F_OK) != 0 else {
            throw KeychainError(
                .duplicateKeychain, hint: "a keychain already exists at \(path.terminalSafe); keychainctl init never overwrites one.")
        }
        let credential: KeychainCredential
        var createdKeyFile: String?
        var keptKeyFile: String?
        // A generated key file is written first, but named only once the keychain is written
        // too, just before the keychain is: a failure at any step leaves neither.
        var generated: NewFile?
        if let keyPath = context[Self.generateKeyFile] {
            let file = try keyPath.isEmpty ? defaultKeyFile() : keyPath
            if access(file, F_OK) == 0 {
                // Left by an init killed after naming its key and before naming the keychain, or
                // the key of another keychain: never replaced, and what to run with it is named.
                let withIt = InitHint(
                    keychainPath: path, keychainOption: context[GlobalOptions.keychain], keyFileOption: file
                ).command
                throw ConfigurationError(
                    "cannot create key file \(file.terminalSafe): it exists (an existing key file is never overwritten). "
                        + "To create the keychain with the key it holds, run '\(withIt.terminalSafe)'; for a new key, name another file.")
            }
            let prepared = try KeyFile.prepareNew(at: file)
            (generated, credential) = (prepared.file, prepared.credential)
        } else if let given = try context.creatingCredential() {
            credential = given
            if case .passphrase(let passphrase) = given, passphrase.count > 0, passphrase.count < 12 {
                StandardStreams.warn(
                    "a passphrase of fewer than 12 bytes is weak against an offline guess; a key file is stronger for automation.")
            }
        } else if context.usesDefaultKeychain {
            // No key source and no terminal (a script, a container): the default key file, a new
            // one, or the one a deleted keychain left (a key is never thrown away).
            let file = try defaultKeyFile()
            let key = try KeyFile.existingOrNew(at: file)
            credential = key.credential
            if key.isNew { createdKeyFile = file } else { keptKeyFile = file }
        } else {
            throw ConfigurationError(
                "no key for the new keychain \(path.terminalSafe), and no terminal to ask a passphrase on: run '\(context.initCommand)' "
                    + "(and give later commands KEYCHAINCTL_KEY_FILE), or pass --passphrase-fd N.")
        }
        do {
            try Keychain.create(path: path, credential: credential, preset: context[Self.kdf] ?? .moderate) {
                guard let generated else { return }
                try generated.create(existing: KeyFile.exists(generated.path))
                createdKeyFile = generated.path
            }
        } catch {
            if let createdKeyFile { unlink(createdKeyFile) }
            throw error
        }
        let unlock =
            createdKeyFile.map { "key file \($0)" } ?? keptKeyFile.map { "key file \($0), which was already there" }
            ?? (credential.isPassphrase ? "passphrase" : "key")
        switch context.resolvedFormat {
        case .text:
            StandardStreams.out("created keychain \(path) (unlocked by \(unlock))\n")
            // A passphrase is asked for on a terminal; a job with none needs one of these.
            if credential.isPassphrase {
                let keyFile = (context.usesDefaultKeychain ? ConfigFolder.defaultKeyFile : nil) ?? path + ".key"
                StandardStreams.out(
                    "jobs with no terminal (cron, CI) open it with KEYCHAINCTL_PASSPHRASE, after 'keychainctl unlock' in the same "
                        + "session, or by a key file: 'keychainctl rekey --generate-key-file \(keyFile.shellQuoted)'\n")
            }
        case .json:
            StandardStreams.out(JSON.render(.object(["keychain": .string(path), "unlock": .string(unlock)])) + "\n")
        }
    }

    /// The default keychain's key file; a usage error for another keychain, which it does not open.
    private func defaultKeyFile() throws -> String {
        guard context.usesDefaultKeychain else {
            throw UsageError(
                "--generate-key-file without a path makes the default keychain's key file, which opens no other keychain: "
                    + "give it a path ('\(context.initCommand)').")
        }
        guard let file = ConfigFolder.defaultKeyFile else {
            throw ConfigurationError("neither XDG_CONFIG_HOME nor HOME is an absolute folder: give --generate-key-file a path.")
        }
        return file
    }
}

extension KeychainCredential {
    var isPassphrase: Bool {
        if case .passphrase = self { return true }
        return false
    }
}
