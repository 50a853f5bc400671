import Glibc
import KeychainCore

/// `keychainctl rekey`: a new key or passphrase for the whole keychain (research `ci-anchors.md` §5.6).
struct RekeyCommand: Subcommand {
    static let spec = CommandSpec(
        name: "rekey",
        abstract: "Give the keychain a new key or passphrase; afterwards the old one opens nothing in it.",
        discussion: """
            Opens the keychain with the current credential (usual order; wrong: exit 51, nothing changed), \
            then in one transaction wraps fresh class keys under the new key and re-wraps, re-seals and \
            re-digests every item. A generated key file is written to PATH.new (0600, synced) before the \
            commit and renamed to PATH after it: a crash in between leaves the keychain opened by PATH.new. \
            A key cached by 'unlock' is removed.
            """,
        sections: [
            (
                "the new credential (one of)",
                [
                    .value(
                        "generate-key-file", nil, "path", "Generate a new random key into this file (refused if it exists, unless --force)."
                    ),
                    .value("new-key-file", nil, "path", "Use the key in this existing key file."),
                    .value("new-passphrase-fd", nil, "n", "Read the new passphrase from this file descriptor."),
                    .value("new-passphrase-env", nil, "VAR", "Take the new passphrase from this environment variable."),
                    .flag("new-passphrase-prompt", "Ask for the new passphrase on the terminal (twice)."),
                ]
            ),
            (
                "options",
                [
                    .value("kdf", nil, "interactive|moderate|sensitive", "Argon2id cost for a new passphrase (default moderate)."),
                    .flag("force", "With --generate-key-file: replace an existing file (such as the current key file)."),
                    .flag("dry-run", "Check both credentials and open every item; change nothing."),
                ]
            ),
            ("global options", GlobalOptions.specs),
        ])

    let globals: GlobalOptions
    let generateKeyFile: String?
    let newKeyFile: String?
    let newPassphraseFD: Int32?
    let newPassphraseEnv: String?
    let prompt: Bool
    let kdf: PassphraseKDF.Preset
    let force: Bool
    let dryRun: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        globals = try GlobalOptions(arguments)
        generateKeyFile = arguments.value("generate-key-file")
        newKeyFile = arguments.value("new-key-file")
        newPassphraseFD = try arguments.value("new-passphrase-fd", choices: "a file descriptor number") { Int32($0) }
        newPassphraseEnv = arguments.value("new-passphrase-env")
        prompt = arguments.flag("new-passphrase-prompt")
        kdf = try arguments.value("kdf", choices: "interactive, moderate or sensitive", PassphraseKDF.Preset.init(rawValue:)) ?? .moderate
        force = arguments.flag("force")
        dryRun = arguments.flag("dry-run")
        let given = [generateKeyFile != nil, newKeyFile != nil, newPassphraseFD != nil, newPassphraseEnv != nil, prompt].filter { $0 }.count
        guard given == 1 else {
            throw UsageError(
                "give the new credential once: --generate-key-file, --new-key-file, --new-passphrase-fd, --new-passphrase-env or --new-passphrase-prompt."
            )
        }
        if force, generateKeyFile == nil { throw UsageError("--force replaces the --generate-key-file file; give --generate-key-file.") }
    }

    func run() throws {
        let path = globals.keychainPath
        let keychain = try globals.openKeychain()
        let started = Stopwatch()
        var pendingKeyFile: String?
        let credential: KeychainCredential
        if let target = generateKeyFile {
            if !force, access(target, F_OK) == 0 {
                throw InputError("\(target) exists; a key file is never overwritten without --force.")
            }
            let staging = target + ".new"
            unlink(staging)
            credential = dryRun ? .key(SecretBytes.random(count: KeyRing.keyBytes)) : try InitCommand.writeNewKey(to: staging)
            pendingKeyFile = dryRun ? nil : staging
        } else {
            credential = try newCredential()
        }
        let count: Int
        do {
            count = try keychain.rekey(to: credential, preset: kdf, dryRun: dryRun)
        } catch {
            if let pendingKeyFile { unlink(pendingKeyFile) }
            throw error
        }
        if let pendingKeyFile, let target = generateKeyFile {
            guard rename(pendingKeyFile, target) == 0 else {
                throw InputError(
                    "the keychain was rekeyed, but \(pendingKeyFile) could not be renamed to \(target) "
                        + "(\(String(cString: strerror(errno)))); \(pendingKeyFile) holds the key that opens it now.")
            }
            Folders.syncParent(of: target)
        }
        let centiseconds = Int(started.elapsedNanoseconds / 10_000_000)
        let time = "\(centiseconds / 100).\(centiseconds % 100 < 10 ? "0" : "")\(centiseconds % 100) s"
        switch globals.resolvedFormat {
        case .text:
            StandardStreams.out(
                dryRun
                    ? "would rekey \(count) items of \(path.terminalSafe); nothing was changed\n"
                    : "rekeyed \(count) items (\(time)); the old key no longer opens \(path.terminalSafe)\n")
        case .json:
            StandardStreams.out(
                JSON.render(.object(["keychain": .string(path), "items": .number(Int64(count)), "dryRun": .bool(dryRun)])) + "\n")
        }
    }

    /// The new credential from a key file, a descriptor, a variable or the terminal.
    private func newCredential() throws -> KeychainCredential {
        if let newKeyFile {
            let text = try SecretReader.readKeyFile(newKeyFile)
            return try KeychainCredential.key(base64: text, source: "key file \(newKeyFile)")
        }
        if let fd = newPassphraseFD { return .passphrase(try GlobalOptions.passphrase(fromFD: fd, what: "the new passphrase")) }
        if let variable = newPassphraseEnv {
            guard let secret = Environment.takeSecret(variable) else {
                throw ConfigurationError("\(variable.terminalSafe) is not set (or empty); nothing was changed.")
            }
            return .passphrase(try GlobalOptions.capped(secret, source: variable.terminalSafe))
        }
        guard let typed = try GlobalOptions.prompted("New keychain passphrase: ", confirming: "changed") else {
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
