import Glibc
import KeychainFormats
import KeychainFoundation
import KeychainPlatform
import TextEscaping

/// What a process that has no command line (the `Security` library) runs as: the keychain, the
/// key that opens it, the caller's profile and the simulated device state, from the setting
/// variables alone, in the order the command reads them after its options (docs/LIBRARY.md).
package struct ProcessSettings {
    /// KEYCHAINCTL_KEYCHAIN, else the default keychain.
    package var keychainPath: String
    /// KEYCHAINCTL_PROFILE, else the user default profile when it exists, else the built-in one.
    package var profileSource: ProfileSource
    package var provisioning: String?
    package var teamID: String?
    package var platform: Platform?
    /// KEYCHAINCTL_DEVICE_STATE, else the state stored in the keychain (`nil`).
    package var deviceState: DeviceState.Lock?
    /// KEYCHAINCTL_AUTH: how a protected item's authentication is answered (none: -25308).
    package var authenticationAnswer: Authentication.Answer?
    /// KEYCHAINCTL_NO_CACHE=1 leaves `unlock`'s cached key alone.
    package var noCache: Bool

    /// The settings the environment gives; an unknown word in a variable that takes one is
    /// unusable configuration, named. Each is resolved as the command resolves it with none of its
    /// options given (the resolvers below), so the two front ends cannot drift apart.
    package static func fromEnvironment() throws(ConfigurationError) -> ProcessSettings {
        ProcessSettings(
            keychainPath: keychainPath(option: nil), profileSource: .resolve(option: nil), provisioning: provisioning(option: nil),
            teamID: teamID(option: nil), platform: try platform(option: nil), deviceState: try deviceState(option: nil),
            authenticationAnswer: try authenticationAnswer(option: nil), noCache: noCache(flag: false))
    }

    // The one resolver of each setting the command and the library share: the command's option
    // when given (the library has none), else the setting variable, else the default.

    /// `--keychain`, else KEYCHAINCTL_KEYCHAIN, else the default keychain.
    package static func keychainPath(option: String?) -> String { option ?? SettingVariable.keychain.value ?? ConfigFolder.defaultKeychain }

    /// `--provisioning`, else KEYCHAINCTL_PROVISIONING.
    package static func provisioning(option: String?) -> String? { option ?? SettingVariable.provisioning.value }

    /// `--team-id`, else KEYCHAINCTL_TEAM_ID.
    package static func teamID(option: String?) -> String? { option ?? SettingVariable.teamID.value }

    /// `--platform`, else KEYCHAINCTL_PLATFORM (an unknown word there is exit 78), else `nil`.
    package static func platform(option: Platform?) throws(ConfigurationError) -> Platform? {
        if let option { return option }
        return try SettingVariable.platform.word(allowed: "ios or macos") { Platform(rawValue: $0) != nil }.flatMap(
            Platform.init(rawValue:))
    }

    /// `--device-state`, else KEYCHAINCTL_DEVICE_STATE (an unknown word there is exit 78), else
    /// `nil`: the state stored in the keychain.
    package static func deviceState(option: DeviceState.Lock?) throws(ConfigurationError) -> DeviceState.Lock? {
        if let option { return option }
        return try SettingVariable.deviceState.word(allowed: "one of " + DeviceState.Lock.allNames) {
            DeviceState.Lock(rawValue: $0) != nil
        }
        .flatMap(DeviceState.Lock.init(rawValue:))
    }

    /// `--auth`, else KEYCHAINCTL_AUTH (an unknown word there is exit 78), else `nil`.
    package static func authenticationAnswer(option: Authentication.Answer?) throws(ConfigurationError) -> Authentication.Answer? {
        if let option { return option }
        return try SettingVariable.auth.word(allowed: "one of " + Authentication.Answer.allNames) {
            Authentication.Answer(rawValue: $0) != nil
        }
        .flatMap(Authentication.Answer.init(rawValue:))
    }

    /// `--no-cache`, else KEYCHAINCTL_NO_CACHE=1.
    package static func noCache(flag: Bool) -> Bool { flag || SettingVariable.noCache.value == "1" }

    /// The caller's profile, loaded as the command loads it (the user default only when it is the
    /// user's own; a provisioning profile only beside a profile). With neither, the program is an app
    /// of its own, as on Apple platforms: the built-in profile with the program's own group, not the
    /// command's, so that a test suite's delete of a whole class leaves a script's secrets alone.
    package func loadProfile() throws -> Profile {
        try profileSource.load(
            provisioning: provisioning,
            refusal: "KEYCHAINCTL_PROVISIONING checks a profile's claims, and no KEYCHAINCTL_PROFILE was given.", platform: platform,
            builtInGroup: BuiltInProfile.programGroup(executable: Executable.name)
        ) { path in try Profile.load(path: path, provisioning: provisioning, teamID: teamID, platform: platform, allowWildcard: false) }
    }

    /// Makes sure the keychain is there. An app's keychain always exists on Apple platforms, so a
    /// missing one is created on first use when it is the default keychain at an absolute path and
    /// no variable names a key or passphrase: opened by the default key file, the one already there
    /// or a new one, as `keychainctl init` makes it in a script. Any other missing keychain is
    /// errSecNotAvailable naming the `init` that makes it (`InitHint`): a variable pointing at the
    /// wrong file must not get a new, empty keychain. One that cannot be created says why.
    package func ensureKeychain() throws {
        guard access(keychainPath, F_OK) != 0 else { return }
        let named = [SettingVariable.keychain, .keyFile, .key, .passphrase].contains { $0.value != nil }
        guard !named, keychainPath.hasPrefix("/"), let keyFile = ConfigFolder.defaultKeyFile else {
            let hint = InitHint(keychainPath: keychainPath)
            try KeychainStore.checkExists(
                keychainPath, create: hint.command, then: hint.newKeyFile.map { "give this program KEYCHAINCTL_KEY_FILE=\($0.shellQuoted)" }
            )
            return
        }
        do { try Self.createKeychain(at: keychainPath, keyFile: keyFile) } catch {
            throw KeychainError(.notAvailable, hint: "no keychain at \(keychainPath), and it could not be created: \(error)")
        }
    }

    /// Creates the keychain at `path` opened by the key in `keyFile` (written first when missing),
    /// unless another process made it meanwhile.
    package static func createKeychain(at path: String, keyFile: String) throws {
        let credential = try KeyFile.existingOrNew(at: keyFile).credential
        do {
            try Keychain.create(path: path, credential: credential)
        } catch let error as KeychainError where error.status == .duplicateKeychain {
            // Another process made it first, opened by the same key file.
        }
    }

    /// Where the key comes from, in the command's order less its options and prompt:
    /// KEYCHAINCTL_KEY_FILE, KEYCHAINCTL_KEY, the key `unlock` cached (unless KEYCHAINCTL_NO_CACHE=1),
    /// the default keychain's key file, KEYCHAINCTL_PASSPHRASE. The secret variables are taken
    /// and wiped from the environment when read. With none: errSecInteractionNotAllowed, as a
    /// locked keychain answers.
    package func credentialSource() throws -> CredentialSource {
        let chain = CredentialChain()
        if let named = try chain.named() { return CredentialSource(useCache: false) { _ in named } }
        let defaultKeyFile = keychainPath == ConfigFolder.defaultKeychain ? ConfigFolder.defaultKeyFile : nil
        return chain.rest(noCache: noCache, defaultKeyFile: defaultKeyFile) { [keychainPath] _ in
            throw KeychainError(
                .interactionNotAllowed,
                hint: "no key for \(keychainPath): set KEYCHAINCTL_KEY_FILE or KEYCHAINCTL_KEY (or KEYCHAINCTL_PASSPHRASE), "
                    + "or run 'keychainctl unlock' once.")
        }
    }
}
