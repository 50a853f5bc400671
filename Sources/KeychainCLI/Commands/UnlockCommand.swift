import CommandLineKit
import KeychainCore
import KeychainPlatform
import TextEscaping

/// `keychainctl unlock`: caches the keychain's key in the kernel keyring, so that later calls
/// (later CI steps, a shell's commands) open a passphrase keychain without Argon2id, and need no
/// credential in their environment (docs/CI.md).
struct UnlockCommand: Subcommand {
    static let name = "unlock"

    static let spec = CommandSpec(
        name: name,
        abstract: "Cache the keychain's key in the kernel keyring for later calls, for a limited time.",
        discussion: """
            The key comes from the usual sources (never from the cache itself, so a timeout cannot be \
            extended without the credential) and must open the keychain (exit 51 otherwise, nothing \
            cached). Later calls with no explicit key source use it while it opens the keychain. The \
            keyring holds it, not a daemon; 'keychainctl lock' removes it. Exit 78 when the kernel \
            keyring is unavailable (a container's seccomp profile). --status: exit 0 when a key that \
            opens the keychain is cached, 36 when none is. --to-key-file writes the key to a new file \
            instead, for a job whose container blocks the keyring: the file has no timeout, so keep it \
            in a folder that goes when the job does.
            """,
        sections: [
            (
                "options",
                [Self.timeout.spec, Self.idle.spec, Self.keyring.spec, Self.shareUID.spec, Self.status.spec, Self.toKeyFile.spec]
            ),
            GlobalOptions.section,
        ],
        examples: [
            Example("keychainctl unlock --timeout 1h", "Cache the key in the kernel keyring for an hour: later calls need no credential.")
        ])

    static let timeout = Option.text(
        "timeout", "duration", "How long the key stays cached (15m, 2h, 1d; default 15m; 0 until lock).")
    static let idle = Option.text(
        "idle", "duration", "Also forget it after this long unused (re-armed on each use, never past --timeout).")
    static let keyring = Option.choice(
        "keyring", nil, "auto|session|user",
        "Where to cache it (default auto: the session keyring if this process has one, else the user keyring).",
        KeyCache.RingChoice.init(rawValue:))
    static let shareUID = Flag("share-uid", "Let every process of this user read it, also those in a private session keyring.")
    static let status = Flag("status", "Say whether a key that opens the keychain is cached, and until when; cache nothing.")
    static let toKeyFile = Option.path(
        "to-key-file", valueName: "path",
        "Where there is no kernel keyring (a container): write the key to this new file (base64, mode 0600) instead; "
            + "later calls read it through KEYCHAINCTL_KEY_FILE, and removing it locks.")

    let context: CommandContext

    func validate() throws(UsageError) {
        let cacheOptions =
            context[Self.timeout] != nil || context[Self.idle] != nil || context[Self.keyring] != nil || context[Self.shareUID]
        if context[Self.status], cacheOptions || context[Self.toKeyFile] != nil {
            throw UsageError("--status only reports; give --timeout, --idle, --keyring, --share-uid and --to-key-file without it.")
        }
        if context[Self.toKeyFile] != nil, cacheOptions {
            throw UsageError(
                "--to-key-file writes a file, which has no timeout or keyring: give it without --timeout, --idle, --keyring and --share-uid."
            )
        }
    }

    func run() throws {
        let path = context.keychainPath
        try context.checkKeychainExists()
        if context[Self.status] { return try report(path) }
        if let toKeyFile = context[Self.toKeyFile] { return try writeKeyFile(toKeyFile, keychain: path) }
        let timeoutSeconds = try DurationText.seconds(context[Self.timeout] ?? "15m", option: Self.timeout.spec.long)
        let idleSeconds = try context[Self.idle].map { try DurationText.seconds($0, option: Self.idle.spec.long) }.flatMap {
            $0 == 0 ? nil : $0
        }
        if let idleSeconds, timeoutSeconds > 0, idleSeconds > timeoutSeconds {
            throw KeychainError(
                .param,
                hint: "--idle \(DurationText.describe(idleSeconds)) is longer than --timeout \(DurationText.describe(timeoutSeconds)).")
        }
        if timeoutSeconds == 0 {
            StandardStreams.warn("--timeout 0 caches the key until 'keychainctl lock' or the end of the login session.")
        }
        var source = try context.credentialSource()
        source.useCache = false
        let keychain = try Keychain(Keychain.opening(path: path, source: source))
        guard let id = keychain.identity else { throw StoreError("\(path) has no identity to cache its key under") }
        let placement: KeyCache.Placement
        do {
            placement = try KeyCache.store(
                keychain.keychainKey, in: KeyCache.Slot(id: id, path: path), timeout: timeoutSeconds == 0 ? nil : timeoutSeconds,
                idle: idleSeconds,
                ring: context[Self.keyring] ?? .auto, shareUID: context[Self.shareUID])
        } catch { throw ConfigurationError("cannot cache the key: \(error.description)") }
        let cached = Self.describe(ring: placement.ring, serial: placement.serial, expires: placement.expires, idle: idleSeconds)
        switch context.resolvedFormat {
        case .text: StandardStreams.err("unlocked \(path.terminalSafe): \(cached.text)\n")
        case .json: StandardStreams.out(JSON.render(.object(cached.fields.merging(["keychain": .string(path)]) { $1 })) + "\n")
        }
    }

    /// `--to-key-file`: the key, checked against the keychain, in a new file of mode 0600.
    private func writeKeyFile(_ file: String, keychain path: String) throws {
        var source = try context.credentialSource()
        source.useCache = false
        let keychain = try Keychain(Keychain.opening(path: path, source: source))
        try KeyFile.write(keychain.keychainKey, to: file, unlocked: true)
        switch context.resolvedFormat {
        case .text:
            StandardStreams.err(
                "unlocked \(path.terminalSafe): key written to \(file.terminalSafe) (mode 0600); with KEYCHAINCTL_KEY_FILE naming it, 'keychainctl lock' and exec --lock remove it.\n"
            )
        case .json: StandardStreams.out(JSON.render(.object(["keychain": .string(path), "keyFile": .string(file)])) + "\n")
        }
    }

    /// `--status`: whether a cached key opens the keychain (exit 0) or none does (exit 36).
    private func report(_ path: String) throws {
        guard let entry = Keychain.cachedKey(opening: try KeychainStore(path: path)) else {
            throw KeychainError(.interactionNotAllowed, hint: "no key that opens \(path.terminalSafe) is cached; run 'keychainctl unlock'.")
        }
        let cached = Self.describe(ring: entry.ring, serial: entry.serial, expires: entry.expires, idle: entry.idle)
        switch context.resolvedFormat {
        case .text: StandardStreams.out("unlocked: \(cached.text)\n")
        case .json:
            StandardStreams.out(
                JSON.render(.object(cached.fields.merging(["keychain": .string(path), "cached": .bool(true)]) { $1 })) + "\n")
        }
    }

    /// Where a key is cached and until when, as text and as JSON fields.
    private static func describe(ring: KernelKeyring.Ring, serial: Int32, expires: UInt64?, idle: UInt32?)
        -> (text: String, fields: [String: JSON.Value])
    {
        let until = expires.map { ISO8601.format(Int64($0) * 1000) }
        let text =
            "key cached in the \(ring.rawValue) keyring until \(until ?? "lock")"
            + (idle.map { " (idle \(DurationText.describe($0)))" } ?? "")
        let fields: [String: JSON.Value] = [
            "keyring": .string(ring.rawValue), "keyId": .number(Int64(serial)), "expires": until.map(JSON.Value.string) ?? .null,
            "idle": idle.map { .number(Int64($0)) } ?? .null,
        ]
        return (text, fields)
    }
}
