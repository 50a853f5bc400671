import CommandLineKit
import Glibc
import KeychainCore
import KeychainPlatform
import TextEscaping

/// `keychainctl rekey`: a new key or passphrase for the whole keychain (docs/CI.md).
struct RekeyCommand: Subcommand {
    static let name = "rekey"

    static let spec = CommandSpec(
        name: name,
        abstract: "Give the keychain a new key or passphrase; afterwards the old one opens nothing in it.",
        discussion: """
            Opens the keychain with the current credential (usual order; wrong: exit 51, nothing changed), \
            then in one transaction wraps fresh class keys under the new key and seals every secret anew \
            under a fresh item key (an item behind an application password keeps its inner layer, which only \
            the password opens), re-seals and re-digests every item: nothing sealed under the old key stays in \
            the file. Backups and copies made before keep opening with the old key. A generated key file is written to PATH.new (0600, synced) before the \
            commit and renamed to PATH after it: a crash in between leaves the keychain opened by PATH.new. \
            A key cached by 'unlock' is removed.
            """,
        sections: [
            (
                "the new credential (one of)",
                [
                    Self.generateKeyFile.spec, Self.newKeyFile.spec, Self.newPassphraseFD.spec, Self.newPassphraseEnv.spec,
                    Self.newPassphrasePrompt.spec,
                ]
            ),
            ("options", [InitCommand.kdf.spec, Self.force.spec, Self.dryRun.spec]),
            GlobalOptions.section,
        ],
        examples: [
            Example(
                "keychainctl rekey --generate-key-file new.key && mv new.key ~/.config/keychainctl/keychain.key",
                "Re-encrypt everything under a new random key, then put it where the old one was."
            )
        ])

    static let generateKeyFile = Option.path(
        "generate-key-file", "Generate a new random key into this file (refused if it exists, unless --force).")
    static let newKeyFile = Option.path("new-key-file", "Use the key in this existing key file.")
    static let newPassphraseFD = Option.descriptor("new-passphrase-fd", "Read the new passphrase from this file descriptor.")
    static let newPassphraseEnv = Option.text("new-passphrase-env", nil, "VAR", "Take the new passphrase from this environment variable.")
    static let newPassphrasePrompt = Flag("new-passphrase-prompt", "Ask for the new passphrase on the terminal (twice).")
    static let force = Flag("force", "With --generate-key-file: replace an existing file (such as the current key file).")
    static let dryRun = Flag("dry-run", "Check both credentials and open every item; change nothing.")

    let context: CommandContext

    func validate() throws(UsageError) {
        let given = [
            context[Self.generateKeyFile] != nil, context[Self.newKeyFile] != nil, context[Self.newPassphraseFD] != nil,
            context[Self.newPassphraseEnv] != nil, context[Self.newPassphrasePrompt],
        ]
        guard given.filter({ $0 }).count == 1 else {
            throw UsageError(
                "give the new credential once: --generate-key-file, --new-key-file, --new-passphrase-fd, --new-passphrase-env or --new-passphrase-prompt."
            )
        }
        if context[Self.force], context[Self.generateKeyFile] == nil {
            throw UsageError("--force replaces the --generate-key-file file; give --generate-key-file.")
        }
    }

    func run() throws {
        let (generateKeyFile, dryRun) = (context[Self.generateKeyFile], context[Self.dryRun])
        let path = context.keychainPath
        let keychain = try context.openKeychain()
        let started = Stopwatch()
        var pendingKeyFile: String?
        let credential: KeychainCredential
        if let target = generateKeyFile {
            if !context[Self.force], access(target, F_OK) == 0 {
                throw InputError("\(target) exists; a key file is never overwritten without --force.")
            }
            // The new key is named TARGET.new before the keychain changes (so a kill after the
            // commit leaves it on disk, and the next failed open names it), and takes TARGET's name
            // after. One left by an earlier rekey is stale: the keychain just opened with the
            // credential in force, so that rekey never committed.
            let staging = target + ".new"
            unlink(staging)
            credential = dryRun ? .key(SecretBytes.random(count: KeyRing.keyBytes)) : try KeyFile.writeNew(to: staging)
            pendingKeyFile = dryRun ? nil : staging
        } else {
            credential = try newCredential()
        }
        let count: Int
        let progress = ProgressLine("rekeying")
        do {
            defer { progress.finish() }
            count = try keychain.rekey(
                to: credential, preset: context[InitCommand.kdf] ?? .moderate, dryRun: dryRun, progress: progress.advance)
        } catch {
            if let pendingKeyFile { unlink(pendingKeyFile) }
            throw error
        }
        if let pendingKeyFile, let target = generateKeyFile {
            guard rename(pendingKeyFile, target) == 0 else {
                throw InputError(
                    "the keychain was rekeyed, but \(pendingKeyFile) could not be renamed to \(target) "
                        + "(\(SystemError.text(errno))); \(pendingKeyFile) holds the key that opens it now.")
            }
            Folders.syncParent(of: target)
        }
        // Closed (and checkpointed) only now: SQLite's last checkpoint is never interleaved with
        // the key file's rename, so every run of the same rekey makes its calls in one order.
        withExtendedLifetime(keychain) {}
        let centiseconds = Int(started.elapsedNanoseconds / 10_000_000)
        let time = "\(centiseconds / 100).\(centiseconds % 100 < 10 ? "0" : "")\(centiseconds % 100) s"
        switch context.resolvedFormat {
        case .text:
            StandardStreams.out(
                dryRun
                    ? "would rekey \(count) items of \(path.terminalSafe); nothing was changed\n"
                    : "rekeyed \(count) items (\(time)); the old key no longer opens \(path.terminalSafe), "
                        + "but still opens its backups and copies made before now\n")
        case .json:
            StandardStreams.out(
                JSON.render(.object(["keychain": .string(path), "items": .number(Int64(count)), "dryRun": .bool(dryRun)])) + "\n")
        }
    }

    /// The new credential from a key file, a descriptor, a variable or the terminal.
    private func newCredential() throws -> KeychainCredential {
        if let newKeyFile = context[Self.newKeyFile] {
            let text = try SecretFiles.readKeyFile(newKeyFile)
            return try KeychainCredential.key(base64: text, source: "key file \(newKeyFile)")
        }
        if let fd = context[Self.newPassphraseFD] {
            return .passphrase(try CommandContext.passphrase(fromFD: fd, what: "the new passphrase"))
        }
        if let variable = context[Self.newPassphraseEnv] {
            guard let secret = Environment.takeSecret(variable) else {
                throw ConfigurationError("\(variable.terminalSafe) is not set (or empty); nothing was changed.")
            }
            return .passphrase(try SecretFiles.capped(secret, source: variable.terminalSafe))
        }
        guard let typed = try CommandContext.prompted("New keychain passphrase: ", confirming: "changed") else {
            throw ConfigurationError("--new-passphrase-prompt needs a terminal; use --new-passphrase-fd or --new-passphrase-env.")
        }
        return .passphrase(typed)
    }
}

/// Time elapsed since it was made (a monotonic clock).
struct Stopwatch {
    private let start: timespec
    init() {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        start = now
    }
    var elapsedNanoseconds: Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec - start.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec - start.tv_nsec)
    }
}
