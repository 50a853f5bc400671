import Glibc
import KeychainCore

/// Options every subcommand accepts (CLI.md, Global options), each with its environment variable.
struct GlobalOptions {
    static let specs: [OptionSpec] = [
        .value("keychain", nil, "path", "The keychain file (env KEYCHAINCTL_KEYCHAIN; default $XDG_DATA_HOME/keychainctl/keychain.db)."),
        .value("profile", nil, "path", "The calling app's entitlements plist or provisioning profile (env KEYCHAINCTL_PROFILE)."),
        .value(
            "provisioning", nil, "path",
            "The provisioning profile that signs the app: its allowlist, checked against the profile's claims (env KEYCHAINCTL_PROVISIONING)."
        ),
        .value("platform", nil, "ios|macos", "Whose rules apply (env KEYCHAINCTL_PLATFORM; default from the profile, else ios)."),
        .value("key-file", nil, "path", "File holding the keychain key, base64 (env KEYCHAINCTL_KEY_FILE; or KEYCHAINCTL_KEY itself)."),
        .value("passphrase-fd", nil, "n", "Read the passphrase from this file descriptor (env KEYCHAINCTL_PASSPHRASE)."),
        .flag("no-cache", "Do not use a key 'keychainctl unlock' cached in the kernel keyring (env KEYCHAINCTL_NO_CACHE=1)."),
        .value(
            "team-id", nil, "id",
            "Team ID for $(AppIdentifierPrefix)/$(TeamIdentifierPrefix) the profile cannot resolve (env KEYCHAINCTL_TEAM_ID)."),
        .value("format", nil, "text|json", "Output format (env KEYCHAINCTL_FORMAT; default text)."),
        .flag("allow-any-group", "Honour a profile's \"*\" access group (every group), as Apple does only for its own tools."),
        .value(
            "device-state", nil, "unlocked|locked|before-first-unlock",
            "Run this one call as if the simulated device were in this state; nothing stored changes (env KEYCHAINCTL_DEVICE_STATE)."),
        .value(
            "auth", nil, "approve|cancel|fail",
            "Answer for the user when a protected item asks for Face ID, Touch ID or the passcode (env KEYCHAINCTL_AUTH; default: ask on the terminal)."
        ),
        .value(
            "auth-ui", nil, "allow|fail|skip",
            "kSecUseAuthenticationUI: ask (default), never ask (exit 36), or leave protected items out of a find."),
        .value("application-password-fd", nil, "n", "Read the application password of items protected by one from this file descriptor."),
    ]

    var keychain: String?
    var profile: String?
    var provisioning: String?
    var platform: Platform?
    var keyFile: String?
    var passphraseFD: Int32?
    var noCache = false
    var teamID: String?
    var format: OutputFormat?
    var allowAnyGroup = false
    var deviceState: DeviceState.Lock?
    var auth: Authentication.Answer?
    var authUI: Authentication.UI?
    var applicationPasswordFD: Int32?
    /// The command being run (`--auth-ui skip` belongs to find alone).
    let command: String

    init(_ arguments: ParsedArguments) throws(UsageError) {
        command = arguments.command
        auth = try arguments.value("auth", choices: Authentication.Answer.allNames, Authentication.Answer.init(rawValue:))
        authUI = try arguments.value("auth-ui", choices: Authentication.UI.allNames, Authentication.UI.init(rawValue:))
        applicationPasswordFD = try arguments.value("application-password-fd", choices: "a file descriptor number") { Int32($0) }
        keychain = arguments.value("keychain")
        profile = arguments.value("profile")
        provisioning = arguments.value("provisioning")
        platform = try arguments.value("platform", choices: "ios or macos", Platform.init(rawValue:))
        keyFile = arguments.value("key-file")
        passphraseFD = try arguments.value("passphrase-fd", choices: "a file descriptor number") { Int32($0) }
        noCache = arguments.flag("no-cache") || Environment.value("KEYCHAINCTL_NO_CACHE") == "1"
        teamID = arguments.value("team-id")
        // lint and export read their own --format (text, json or sarif; json, jsonl, dotenv, …).
        if command != LintCommand.spec.name, command != "export" {
            format = try arguments.value("format", choices: "text or json", OutputFormat.init(rawValue:))
        }
        allowAnyGroup = arguments.flag("allow-any-group")
        deviceState = try arguments.value("device-state", choices: DeviceState.Lock.allNames, DeviceState.Lock.init(rawValue:))
    }

    /// The device state this call runs as: the option, else KEYCHAINCTL_DEVICE_STATE (an unknown
    /// word there is unusable configuration, exit 78), else the stored one (`nil`).
    func resolvedDeviceState() throws -> DeviceState.Lock? {
        if let deviceState { return deviceState }
        guard let text = Environment.value("KEYCHAINCTL_DEVICE_STATE"), !text.isEmpty else { return nil }
        guard let state = DeviceState.Lock(rawValue: text) else {
            throw ConfigurationError("KEYCHAINCTL_DEVICE_STATE is not a device state; use one of \(DeviceState.Lock.allNames).")
        }
        return state
    }

    /// The format in force: the option, the environment, else text.
    var resolvedFormat: OutputFormat {
        format ?? Environment.value("KEYCHAINCTL_FORMAT").flatMap(OutputFormat.init(rawValue:)) ?? .text
    }

    /// The keychain path in force.
    var keychainPath: String {
        if let keychain = keychain ?? Environment.value("KEYCHAINCTL_KEYCHAIN") { return keychain }
        let dataHome = Environment.value("XDG_DATA_HOME") ?? ((Environment.value("HOME") ?? ".") + "/.local/share")
        return dataHome + "/keychainctl/keychain.db"
    }

    /// Loads the profile; required by item commands.
    func loadProfile() throws -> Profile {
        guard let path = profile ?? Environment.value("KEYCHAINCTL_PROFILE") else {
            throw ConfigurationError(
                "no profile: pass --profile PATH (or set KEYCHAINCTL_PROFILE) naming the app's entitlements plist or provisioning profile.")
        }
        return try loadProfile(path: path, provisioning: provisioning ?? Environment.value("KEYCHAINCTL_PROVISIONING"))
    }

    /// Loads the claims at `path`, signed by the provisioning profile at `provisioning`, under
    /// this invocation's team ID, platform and wildcard options.
    func loadProfile(path: String, provisioning: String?) throws -> Profile {
        let platformText = Environment.value("KEYCHAINCTL_PLATFORM")
        let envPlatform = platformText.flatMap(Platform.init(rawValue:))
        if let platformText, envPlatform == nil {
            throw ConfigurationError("KEYCHAINCTL_PLATFORM is '\(platformText)'; use ios or macos.")
        }
        let loaded = try Profile.load(
            path: path, provisioning: provisioning, teamID: teamID ?? Environment.value("KEYCHAINCTL_TEAM_ID"),
            platform: platform ?? envPlatform, allowWildcard: allowAnyGroup)
        for warning in loaded.warnings { StandardStreams.warn(warning) }
        return loaded
    }

    /// The caller for item commands.
    func caller() throws -> Caller { Caller(try loadProfile()) }

    /// Opens the keychain with the credential in force.
    func openKeychain() throws -> Keychain { try openKeychain(with: try openingCredential()) }

    /// The keychain file opened and its credential chosen (a cached key, else a source, else a
    /// prompt), asked for only once the file is known to exist. A command that also prompts for a
    /// secret asks for both before opening the keychain, so the slow key derivation never runs
    /// between two prompts (where type-ahead would echo).
    func openingCredential() throws -> Keychain.Opening {
        try KeychainStore.checkExists(keychainPath)
        return try Keychain.opening(path: keychainPath, source: credentialSource())
    }

    /// Opens the keychain `opening` chose a credential for, answering authentication as the options say.
    func openKeychain(with opening: Keychain.Opening) throws -> Keychain {
        let authentication = try authentication()
        let keychain: Keychain
        do { keychain = try Keychain(opening, deviceState: try resolvedDeviceState()) } catch let error as KeychainError
            where error.status == .authFailed
        {
            // A rekey interrupted between its commit and its key file's rename left the new key
            // beside the old one.
            guard let path = keyFile ?? Environment.value("KEYCHAINCTL_KEY_FILE"), access(path + ".new", F_OK) == 0 else { throw error }
            throw KeychainError(
                .authFailed,
                hint: error.hint + " \(path).new exists: a rekey was interrupted after it changed the keychain; "
                    + "if \(path).new opens it (KEYCHAINCTL_KEY_FILE=\(path).new), move it over \(path).")
        }
        keychain.authentication = authentication
        return keychain
    }

    /// How this call answers a protected item (research §2.6): `--auth` or KEYCHAINCTL_AUTH (an
    /// unknown word there is exit 78), else the user on the terminal, else nobody (-25308). The
    /// application password comes from `--application-password-fd`, else a prompt on the terminal
    /// (unless `--auth-ui fail`). `--auth-ui skip` outside find is errSecParam, before anything else.
    func authentication() throws -> Authentication {
        let ui = authUI ?? .allow
        try Authentication(ui: ui).checkSkip(allowed: command == "find", operation: command)
        var answerText = auth?.rawValue
        if answerText == nil, let text = Environment.value("KEYCHAINCTL_AUTH"), !text.isEmpty {
            guard Authentication.Answer(rawValue: text) != nil else {
                throw ConfigurationError("KEYCHAINCTL_AUTH is not an answer; use one of \(Authentication.Answer.allNames).")
            }
            answerText = text
        }
        let onTerminal = StandardStreams.isTerminal(0) || StandardStreams.isTerminal(2)
        var authentication = Authentication(ui: ui)
        if let given = answerText.flatMap(Authentication.Answer.init(rawValue:)) {
            authentication.answer = { _ in given }
        } else if onTerminal {
            authentication.answer = { prompt in try Confirmation.authenticate(prompt) }
        }
        if let fd = applicationPasswordFD {
            authentication.applicationPassword = { _ in try Self.passphrase(fromFD: fd, what: "the application password") }
        } else if onTerminal, ui == .allow {
            authentication.applicationPassword = { item in
                try SecretReader.prompt("Application password for \(item.summary): ", limit: InputLimits.passphraseBytes)
            }
        }
        return authentication
    }

    /// The keychain, when it exists and a key (not a passphrase, whose derivation is slow, nor a
    /// prompt) opens it: a key source, or a key cached by `unlock`. For commands that only mention
    /// the keychain, such as `groups` showing the device.
    func keychainIfKeyAtHand() throws -> Keychain? {
        guard passphraseFD == nil, (try? KeychainStore.checkExists(keychainPath)) != nil else { return nil }
        if keyFile != nil || Environment.value("KEYCHAINCTL_KEY_FILE") != nil || Environment.value("KEYCHAINCTL_KEY") != nil {
            return try openKeychain(with: Keychain.opening(path: keychainPath, source: credentialSource()))
        }
        guard !noCache else { return nil }
        do {
            return try openKeychain(
                with: Keychain.opening(path: keychainPath, source: CredentialSource(useCache: true) { _ in throw NoKeyAtHand() }))
        } catch is NoKeyAtHand { return nil }
    }

    /// `keychainIfKeyAtHand` found no cached key.
    private struct NoKeyAtHand: Error {}

    /// Where the key that opens an existing keychain comes from, in CLI.md's order: `--key-file`,
    /// `--passphrase-fd`, KEYCHAINCTL_KEY_FILE, KEYCHAINCTL_KEY (explicit sources: a stale cache
    /// never shadows them), then the key `unlock` cached (unless `--no-cache`), then
    /// KEYCHAINCTL_PASSPHRASE, then a no-echo prompt on a terminal. With none of them: the
    /// keychain is locked to this process, errSecInteractionNotAllowed (exit 36).
    func credentialSource() throws -> CredentialSource {
        // Both secret variables are taken (and wiped) whichever source wins.
        let environmentKey = Environment.takeSecret("KEYCHAINCTL_KEY")
        let environmentPassphrase = Environment.takeSecret("KEYCHAINCTL_PASSPHRASE")
        if let explicit = try explicitCredential(environmentKey: environmentKey) {
            return CredentialSource(useCache: false) { _ in explicit }
        }
        return CredentialSource(useCache: !noCache) { passphraseKeychain in
            if let environmentPassphrase { return .passphrase(try Self.capped(environmentPassphrase, source: "KEYCHAINCTL_PASSPHRASE")) }
            if let prompted = try Self.prompted("Keychain passphrase: ") { return .passphrase(prompted) }
            throw KeychainError(
                .interactionNotAllowed,
                hint: passphraseKeychain
                    ? "the keychain is locked: no key is cached for it and there is no terminal to ask on. Run 'keychainctl unlock' "
                        + "once (with KEYCHAINCTL_PASSPHRASE or --passphrase-fd), or set KEYCHAINCTL_PASSPHRASE."
                    : "no key available: pass --key-file PATH, set KEYCHAINCTL_KEY_FILE or KEYCHAINCTL_KEY, or run 'keychainctl unlock' once with one of them."
            )
        }
    }

    /// The credential for a new keychain (`init`): an explicit source, KEYCHAINCTL_PASSPHRASE, or
    /// a passphrase typed twice. With none of them and no terminal: exit 78.
    func creatingCredential() throws -> KeychainCredential {
        let environmentKey = Environment.takeSecret("KEYCHAINCTL_KEY")
        let environmentPassphrase = Environment.takeSecret("KEYCHAINCTL_PASSPHRASE")
        if let explicit = try explicitCredential(environmentKey: environmentKey) { return explicit }
        if let environmentPassphrase { return .passphrase(try Self.capped(environmentPassphrase, source: "KEYCHAINCTL_PASSPHRASE")) }
        if let prompted = try Self.prompted("New keychain passphrase: ", confirming: "created") { return .passphrase(prompted) }
        throw ConfigurationError(
            "no key available: pass --key-file PATH or --passphrase-fd N, or set KEYCHAINCTL_KEY_FILE, KEYCHAINCTL_KEY or KEYCHAINCTL_PASSPHRASE."
        )
    }

    /// The sources that name their key outright: `--key-file`, `--passphrase-fd`,
    /// KEYCHAINCTL_KEY_FILE, KEYCHAINCTL_KEY.
    private func explicitCredential(environmentKey: SecretBytes?) throws -> KeychainCredential? {
        if let keyFile { return try Self.key(fromFile: keyFile) }
        if let passphraseFD { return .passphrase(try Self.passphrase(fromFD: passphraseFD, what: "the passphrase")) }
        if let keyFile = Environment.value("KEYCHAINCTL_KEY_FILE") { return try Self.key(fromFile: keyFile) }
        if let environmentKey { return try KeychainCredential.key(base64: environmentKey, source: "KEYCHAINCTL_KEY") }
        return nil
    }

    /// A passphrase typed on the terminal after `prompt`; typed twice when `confirming` names
    /// what a mismatch leaves undone ("created", "changed"). `nil` without a terminal.
    static func prompted(_ prompt: String, confirming undone: String? = nil) throws -> SecretBytes? {
        guard StandardStreams.isTerminal(0) || StandardStreams.isTerminal(2) else { return nil }
        let limit = InputLimits.passphraseBytes
        let passphrase = try SecretReader.prompt(prompt, limit: limit)
        if let undone {
            let again = try SecretReader.prompt("Repeat the passphrase: ", limit: limit)
            guard passphrase.equals(again) else { throw ConfigurationError("the passphrases differ; nothing was \(undone).") }
        }
        return passphrase
    }

    private static func key(fromFile path: String) throws -> KeychainCredential {
        let text: SecretBytes
        do { text = try SecretReader.readKeyFile(path) } catch let error as InputError {
            throw ConfigurationError("cannot read the key file: \(error.description)")
        } catch is InputTooLarge {
            throw ConfigurationError(
                "\(path) is not a key file: longer than \(InputLimits.keyFileBytes) bytes (a key is 44 base64 characters).")
        }
        return try KeychainCredential.key(base64: text, source: "key file \(path)")
    }

    /// A passphrase (or application password) read whole from descriptor `fd`, less one trailing
    /// newline (as `echo` adds), within `InputLimits.passphraseBytes`. The descriptor is closed
    /// once read (made close-on-exec when it is 0, 1 or 2): nothing keychainctl starts later (exec's
    /// command, git) can reopen it through /proc/self/fd and read the passphrase again.
    static func passphrase(fromFD fd: Int32, what: String) throws -> SecretBytes {
        defer { SecretReader.retire(fd: fd) }
        let secret = try SecretReader.readAll(fd: fd, source: "file descriptor \(fd)", limit: InputLimits.passphraseBytes + 2)
        secret.stripTrailingNewline()
        return try capped(secret, source: what)
    }

    /// `passphrase` when it is within `InputLimits.passphraseBytes` (a prompt line is capped as
    /// it is read).
    static func capped(_ passphrase: SecretBytes, source: String) throws -> SecretBytes {
        guard passphrase.count <= InputLimits.passphraseBytes else {
            throw InputTooLarge(source: source, limit: InputLimits.passphraseBytes)
        }
        return passphrase
    }
}
