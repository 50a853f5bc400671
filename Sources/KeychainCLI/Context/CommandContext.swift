import CommandLineKit
import Glibc
import KeychainCore
import TextEscaping

/// What one invocation's global options mean together: the keychain file, the credential that
/// opens it, the calling app's profile, how authentication is answered and the output format,
/// each from its option, else its environment variable, else the default.
struct CommandContext {
    /// The invocation's options and operands, each read where it is used (values were checked
    /// when parsed).
    let arguments: ParsedArguments
    /// Whether the command declares its own `--format` (export, lint): the global one is then not
    /// read, and errors are reported in the variable's format.
    let ownFormat: Bool
    /// Whether the command leaves protected items out of its results with `--auth-ui skip` (find
    /// alone, as Apple's kSecUseAuthenticationUISkip applies to SecItemCopyMatching only).
    let allowsAuthUISkip: Bool

    /// The build settings `--build-setting` gives, by name.
    let buildSettings: [String: String]

    /// The context of `arguments`, the rules between the global options' values checked (each
    /// `--build-setting` a NAME=VALUE, no name twice) before the command's own.
    init(_ arguments: ParsedArguments, ownFormat: Bool = false, allowsAuthUISkip: Bool = false) throws(UsageError) {
        self.arguments = arguments
        self.ownFormat = ownFormat
        self.allowsAuthUISkip = allowsAuthUISkip
        buildSettings = try GlobalOptions.settings(arguments.all(GlobalOptions.buildSetting))
    }

    /// The command being run.
    var command: String { arguments.command }

    /// The value of `option` on the command line (checked when parsed), `nil` when not given.
    subscript<Value>(option: Option<Value>) -> Value? { arguments[option] }

    /// Whether `flag` was given.
    subscript(flag: Flag) -> Bool { arguments[flag] }

    /// Every value of a repeatable `option`, in order.
    func all<Value>(_ option: Option<Value>) -> [Value] { arguments.all(option) }

    /// The text of `option`, else of its environment variable.
    func given(_ option: Option<String>) -> String? { arguments[option] ?? option.environmentValue }

    /// The device state this call runs as (`ProcessSettings.deviceState`): `nil` for the stored one.
    func resolvedDeviceState() throws -> DeviceState.Lock? { try ProcessSettings.deviceState(option: self[GlobalOptions.deviceState]) }

    /// The format in force: the option, the environment, else text.
    var resolvedFormat: OutputFormat {
        (ownFormat ? nil : self[GlobalOptions.format]) ?? GlobalOptions.format.environmentValue.flatMap(OutputFormat.init(rawValue:))
            ?? .text
    }

    /// Whether this call uses the default keychain: neither `--keychain` nor KEYCHAINCTL_KEYCHAIN, or
    /// one of them naming the default file.
    var usesDefaultKeychain: Bool { keychainPath == ConfigFolder.defaultKeychain }

    /// The default keychain's key file (`ConfigFolder.defaultKeyFile`) when this call uses the
    /// default keychain; `nil` otherwise, or when there is no folder of settings.
    var defaultKeyFile: String? { usesDefaultKeychain ? ConfigFolder.defaultKeyFile : nil }

    /// The command that creates this call's keychain, as a hint prints it (`InitHint`): the
    /// keychain and key file as this call gave them, or a key file of its own beside a keychain
    /// other than the default when no key source is given.
    var initCommand: String {
        InitHint(
            keychainPath: keychainPath, keychainOption: self[GlobalOptions.keychain], keyFileOption: self[GlobalOptions.keyFile],
            passphraseOption: self[GlobalOptions.passphraseFD] != nil
        ).command
    }

    /// The key file `initCommand` names beside a keychain other than the default (`PATH.key`).
    var besideKeyFile: String { InitHint.keyFile(beside: keychainPath) }

    /// errSecNotAvailable naming `initCommand` when the keychain file does not exist.
    func checkKeychainExists() throws {
        try KeychainStore.checkExists(keychainPath, create: initCommand)
    }

    /// The keychain path in force.
    var keychainPath: String { ProcessSettings.keychainPath(option: self[GlobalOptions.keychain]) }

    /// Where this invocation's profile comes from (`ProfileSource`).
    var profileSource: ProfileSource { ProfileSource.resolve(option: self[GlobalOptions.profile]) }

    /// Loads the profile of `profileSource`. The built-in one takes no provisioning profile.
    func loadProfile() throws -> Profile {
        let provisioning = ProcessSettings.provisioning(option: self[GlobalOptions.provisioning])
        var named = false
        let profile = try profileSource.load(
            provisioning: provisioning,
            refusal: "--provisioning checks a profile's claims, and none was given: pass the app's entitlements as --profile too.",
            platform: try resolvedPlatform()
        ) { path in
            named = true
            return try loadProfile(path: try BuiltTarget.path(in: path, target: self[GlobalOptions.target]), provisioning: provisioning)
        }
        if let target = self[GlobalOptions.target], !named {
            throw UsageError(
                "--target \(target.terminalSafe) picks a target of a built app given as --profile (.app, .ipa, .xcarchive); no --profile was given."
            )
        }
        return profile
    }

    /// The platform in force (`ProcessSettings.platform`).
    func resolvedPlatform() throws -> Platform? { try ProcessSettings.platform(option: self[GlobalOptions.platform]) }

    /// The team ID in force (`ProcessSettings.teamID`).
    var teamID: String? { ProcessSettings.teamID(option: self[GlobalOptions.teamID]) }

    /// Loads the claims at `path`, signed by the provisioning profile at `provisioning`, under
    /// this invocation's team ID, platform and wildcard options.
    func loadProfile(path: String, provisioning: String?) throws -> Profile {
        let loaded = try Profile.load(
            path: path, provisioning: provisioning, teamID: teamID,
            buildSettings: buildSettings, platform: try resolvedPlatform(),
            allowWildcard: self[GlobalOptions.allowAnyGroup])
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
        try checkKeychainExists()
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
            guard let path = given(GlobalOptions.keyFile), access(path + ".new", F_OK) == 0 else {
                throw error
            }
            throw KeychainError(
                .authFailed,
                hint: error.hint + " \(path).new exists: a rekey was interrupted after it changed the keychain; "
                    + "if \(path).new opens it (KEYCHAINCTL_KEY_FILE=\(path).new), move it over \(path).")
        }
        keychain.authentication = authentication
        return keychain
    }

    /// How this call answers a protected item (docs/FIDELITY.md): `--auth` or KEYCHAINCTL_AUTH (an
    /// unknown word there is exit 78), else the user on the terminal, else nobody (-25308). The
    /// application password comes from `--application-password-fd`, else a prompt on the terminal
    /// (unless `--auth-ui fail`). `--auth-ui skip` outside find is errSecParam, before anything else.
    func authentication() throws -> Authentication {
        let ui = self[GlobalOptions.authUI] ?? .allow
        try Authentication(ui: ui).checkSkip(allowed: allowsAuthUISkip, operation: command)
        let answer = try ProcessSettings.authenticationAnswer(option: self[GlobalOptions.auth])
        let onTerminal = StandardStreams.isTerminal(0) || StandardStreams.isTerminal(2)
        var authentication = Authentication(ui: ui)
        if let given = answer {
            authentication.answer = { _ in given }
        } else if onTerminal {
            authentication.answer = { prompt in try Confirmation.authenticate(prompt) }
        }
        if let fd = self[GlobalOptions.applicationPasswordFD] {
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
        guard self[GlobalOptions.passphraseFD] == nil, (try? KeychainStore.checkExists(keychainPath)) != nil else { return nil }
        if given(GlobalOptions.keyFile) != nil || Environment.value(Self.keyVariable) != nil
            || defaultKeyFile.map({ access($0, F_OK) == 0 }) == true
        {
            return try openKeychain(with: Keychain.opening(path: keychainPath, source: credentialSource()))
        }
        guard !noCache else { return nil }
        do {
            return try openKeychain(
                with: Keychain.opening(path: keychainPath, source: CredentialSource(useCache: true) { _ in throw NoKeyAtHand() }))
        } catch is NoKeyAtHand { return nil }
    }

    /// Whether a key cached by `unlock` may be used: not with `--no-cache` or KEYCHAINCTL_NO_CACHE=1.
    private var noCache: Bool { ProcessSettings.noCache(flag: self[GlobalOptions.noCache]) }

    /// The secret variables, taken (and wiped) whichever source wins. Only their names are here:
    /// no option carries these values.
    static let keyVariable = SettingVariable.key.rawValue
    static let passphraseVariable = SettingVariable.passphrase.rawValue

    /// `keychainIfKeyAtHand` found no cached key.
    private struct NoKeyAtHand: Error {}

    /// Where the key that opens an existing keychain comes from, in this order: `--key-file`,
    /// `--passphrase-fd`, KEYCHAINCTL_KEY_FILE, KEYCHAINCTL_KEY (explicit sources: a stale cache
    /// never shadows them), then the key `unlock` cached (unless `--no-cache`), then
    /// for the default keychain opened by a key, its key file (`ConfigFolder.defaultKeyFile`), then
    /// KEYCHAINCTL_PASSPHRASE, then a no-echo prompt on a terminal. With none of them: the
    /// keychain is locked to this process, errSecInteractionNotAllowed (exit 36).
    func credentialSource() throws -> CredentialSource {
        let chain = CredentialChain()
        if let explicit = try explicitCredential(chain) { return CredentialSource(useCache: false) { _ in explicit } }
        let defaultKeyFile = defaultKeyFile
        let besideKeyFile = usesDefaultKeychain ? nil : besideKeyFile
        return chain.rest(noCache: noCache, defaultKeyFile: defaultKeyFile) { passphraseKeychain in
            if let prompted = try Self.prompted("Keychain passphrase: ") { return .passphrase(prompted) }
            // The key file the 53 hint had init make beside this keychain: named, so the hint runs as printed.
            if !passphraseKeychain, let besideKeyFile, access(besideKeyFile, F_OK) == 0 {
                throw KeychainError(
                    .interactionNotAllowed,
                    hint: "no key given; \(besideKeyFile) beside the keychain may be its key file: pass --key-file "
                        + "\(besideKeyFile.shellQuoted), or set KEYCHAINCTL_KEY_FILE=\(besideKeyFile.shellQuoted) for every call.")
            }
            // A default keychain made on a terminal has a passphrase; a job with none (cron, CI) opens
            // it by the key file route, which the default key file then serves with no variable.
            let unattended =
                usesDefaultKeychain
                ? defaultKeyFile.map {
                    " For jobs that run unattended, give it a key file instead, once, on a terminal or with KEYCHAINCTL_PASSPHRASE: "
                        + "'keychainctl rekey --generate-key-file \($0.shellQuoted)'."
                } ?? "" : ""
            throw KeychainError(
                .interactionNotAllowed,
                hint: passphraseKeychain
                    ? "the keychain is locked: no key is cached for it and there is no terminal to ask on. Run 'keychainctl unlock' "
                        + "once (with KEYCHAINCTL_PASSPHRASE or --passphrase-fd), or set KEYCHAINCTL_PASSPHRASE." + unattended
                    : "no key available"
                        + (defaultKeyFile.map { ", and none at \($0), where 'keychainctl init' puts the default keychain's key" } ?? "")
                        + ": pass --key-file PATH, set KEYCHAINCTL_KEY_FILE or KEYCHAINCTL_KEY, or run 'keychainctl unlock' once with one of them."
            )
        }
    }

    /// The credential for a new keychain (`init`): an explicit source, KEYCHAINCTL_PASSPHRASE, or
    /// a passphrase typed twice; `nil` with none of them and no terminal.
    func creatingCredential() throws -> KeychainCredential? {
        let chain = CredentialChain()
        if let explicit = try explicitCredential(chain) { return explicit }
        if let passphrase = try chain.passphraseCredential() { return passphrase }
        if let prompted = try Self.prompted("New keychain passphrase: ", confirming: "created") { return .passphrase(prompted) }
        return nil
    }

    /// The sources that name their key outright: `--key-file`, `--passphrase-fd`, then what the
    /// variables name (KEYCHAINCTL_KEY_FILE, KEYCHAINCTL_KEY).
    private func explicitCredential(_ chain: CredentialChain) throws -> KeychainCredential? {
        if let keyFile = self[GlobalOptions.keyFile] { return try SecretFiles.key(fromFile: keyFile) }
        if let fd = self[GlobalOptions.passphraseFD] { return .passphrase(try Self.passphrase(fromFD: fd, what: "the passphrase")) }
        return try chain.named()
    }

    /// Set by a credential helper: the terminal is the calling program's (git's), and nothing is
    /// asked on it; without a key at hand the call fails, as with no terminal. One process, one
    /// command: set once, before any credential is chosen.
    nonisolated(unsafe) static var neverPrompt = false

    /// A passphrase typed on the terminal after `prompt`; typed twice when `confirming` names
    /// what a mismatch leaves undone ("created", "changed"). `nil` without a terminal.
    static func prompted(_ prompt: String, confirming undone: String? = nil) throws -> SecretBytes? {
        guard !neverPrompt, StandardStreams.isTerminal(0) || StandardStreams.isTerminal(2) else { return nil }
        let limit = InputLimits.passphraseBytes
        let passphrase = try SecretReader.prompt(prompt, limit: limit)
        if let undone {
            let again = try SecretReader.prompt("Repeat the passphrase: ", limit: limit)
            guard passphrase.equals(again) else { throw ConfigurationError("the passphrases differ; nothing was \(undone).") }
        }
        return passphrase
    }

    /// A passphrase (or application password) read whole from descriptor `fd`, less one trailing
    /// newline (as `echo` adds), within `InputLimits.passphraseBytes`. The descriptor is closed
    /// once read (made close-on-exec when it is 0, 1 or 2): nothing keychainctl starts later (exec's
    /// command, git) can reopen it through /proc/self/fd and read the passphrase again.
    static func passphrase(fromFD fd: Int32, what: String) throws -> SecretBytes {
        defer { SecretReader.retire(fd: fd) }
        let secret = try SecretFiles.readAll(fd: fd, source: "file descriptor \(fd)", limit: InputLimits.passphraseBytes + 2)
        secret.stripTrailingNewline()
        return try SecretFiles.capped(secret, source: what)
    }
}
