import CommandLineKit
import KeychainCore
import TextEscaping

/// The options every command accepts, each declared once with its environment variable. What they
/// mean together (which keychain, which credential, which profile) is `CommandContext`'s, which
/// reads each where it uses it.
enum GlobalOptions {
    static let keychain = Option.path(
        "keychain", environment: SettingVariable.keychain.rawValue, "The keychain file (default $XDG_DATA_HOME/keychainctl/keychain.db).")
    static let profile = Option.path(
        "profile", environment: SettingVariable.profile.rawValue,
        "The calling app: its entitlements plist or provisioning profile, or what Xcode built (.app, .appex, .ipa, .xcarchive, executable)."
    )
    static let target = Option.text(
        "target", nil, "bundle-id",
        "With a built app as --profile (.app, .ipa, .xcarchive): act as this target of it, named by bundle identifier as lint names it (default: the app)."
    )
    static let provisioning = Option.path(
        "provisioning", environment: SettingVariable.provisioning.rawValue,
        "The provisioning profile that signs the app (or a built app, whose embedded one it takes): its allowlist, checked against the claims."
    )
    static let platform = Option.choice(
        "platform", nil, "ios|macos", environment: SettingVariable.platform.rawValue,
        "Whose rules apply (default from the profile, else ios).",
        Platform.init(rawValue:))
    static let keyFile = Option.path(
        "key-file", environment: SettingVariable.keyFile.rawValue,
        "File holding the keychain key, base64 (or KEYCHAINCTL_KEY, the key itself).")
    static let passphraseFD = Option.descriptor(
        "passphrase-fd", "Read the passphrase from this file descriptor (or KEYCHAINCTL_PASSPHRASE, the passphrase itself).")
    static let noCache = Flag(
        "no-cache", environment: SettingVariable.noCache.rawValue,
        "Do not use a key 'keychainctl unlock' cached in the kernel keyring (the variable: when 1).")
    static let teamID = Option.text(
        "team-id", "id", environment: SettingVariable.teamID.rawValue,
        "Team ID for $(AppIdentifierPrefix)/$(TeamIdentifierPrefix) the profile cannot resolve.")
    static let buildSetting = Option.text(
        "build-setting", nil, "name=value", repeatable: true,
        "A build setting for the variables of an .entitlements file, as $(PRODUCT_BUNDLE_IDENTIFIER) (repeat).")
    static let format = Option.choice(
        "format", nil, "text|json", environment: SettingVariable.format.rawValue, "Output format (default text).",
        OutputFormat.init(rawValue:))
    static let allowAnyGroup = Flag(
        "allow-any-group", "Honour a profile's \"*\" access group (every group), as Apple does only for its own tools.")
    static let deviceState = Option.choice(
        "device-state", nil, "unlocked|locked|before-first-unlock", environment: SettingVariable.deviceState.rawValue,
        "Run this one call as if the simulated device were in this state; nothing stored changes.", DeviceState.Lock.init(rawValue:))
    static let auth = Option.choice(
        "auth", nil, "approve|cancel|fail", environment: SettingVariable.auth.rawValue,
        "Answer for the user when a protected item asks for Face ID, Touch ID or the passcode (default: ask on the terminal).",
        Authentication.Answer.init(rawValue:))
    static let authUI = Option.choice(
        "auth-ui", nil, "allow|fail|skip",
        "kSecUseAuthenticationUI: ask (default), never ask (exit 36), or leave protected items out of a find.",
        Authentication.UI.init(rawValue:))
    static let applicationPasswordFD = Option.descriptor(
        "application-password-fd", "Read the application password of items protected by one from this file descriptor.")

    /// The ones a script uses, which the everyday commands' help shows (`briefGlobalOptions`).
    static let everyday: Set<String> = ["keychain", "key-file", "passphrase-fd", "format"]

    /// The options, for command specs, in help order: by theme (`themes`). A literal, as every
    /// command's spec holds it: built from the themes it cost a find 1% more.
    static let specs: [OptionSpec] = [
        Self.keychain.spec, Self.keyFile.spec, Self.passphraseFD.spec, Self.noCache.spec, Self.profile.spec, Self.target.spec,
        Self.provisioning.spec,
        Self.platform.spec, Self.teamID.spec, Self.buildSetting.spec, Self.allowAnyGroup.spec, Self.deviceState.spec, Self.auth.spec,
        Self.authUI.spec, Self.applicationPasswordFD.spec, Self.format.spec,
    ]

    /// The options grouped by what they are about, as help, the man page and the reference show
    /// them (SwiftPM groups its own likewise): which keychain, what opens it, who calls, what the
    /// simulated device and user do, what is printed. By long name, in `specs`' order.
    static let themes: [(title: String, names: [String])] = [
        ("location", ["keychain"]),
        ("credential", ["key-file", "passphrase-fd", "no-cache"]),
        ("caller", ["profile", "target", "provisioning", "platform", "team-id", "build-setting", "allow-any-group"]),
        ("simulation", ["device-state", "auth", "auth-ui", "application-password-fd"]),
        ("output", ["format"]),
    ]

    /// The themes with their options, for the pages (`KeychainProgram`).
    static var themedSpecs: [(title: String, options: [OptionSpec])] {
        themes.map { theme in (theme.title, specs.filter { theme.names.contains($0.long) }) }
    }

    /// Their section in a command's spec.
    static var section: (title: String, options: [OptionSpec]) { (ProgramSpec.globalSectionTitle, specs) }

    /// The options of a command that declares its own `--format` (export, lint).
    static var specsWithoutFormat: [OptionSpec] { specs.filter { $0.long != Self.format.spec.long } }

    /// The words of `--build-setting`, each `NAME=VALUE` with a name as Xcode spells one; a name
    /// given twice, or a control character, is a usage error.
    static func settings(_ words: [String]) throws(UsageError) -> [String: String] {
        var settings: [String: String] = [:]
        for word in words {
            guard let equals = word.firstIndex(of: "="), equals != word.startIndex else {
                throw UsageError("--build-setting takes NAME=VALUE, not '\(word.terminalSafe)'.")
            }
            let name = String(word[..<equals])
            let value = String(word[word.index(after: equals)...])
            guard
                name.utf8.allSatisfy({
                    $0 == UInt8(ascii: "_") || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
                })
            else { throw UsageError("--build-setting: '\(name.terminalSafe)' is not a build setting name (letters, digits, _).") }
            guard !value.containsControlCharacters else {
                throw UsageError("--build-setting \(name): the value holds a control character.")
            }
            // Values are never expanded again: one that holds a variable would stay one, unresolved.
            guard !value.containsBytes("$(") && !value.containsBytes("${") else {
                throw UsageError("--build-setting \(name): give the value itself, not another build variable.")
            }
            guard settings.updateValue(value, forKey: name) == nil else { throw UsageError("--build-setting names \(name) twice.") }
        }
        return settings
    }
}
