import TextEscaping

/// The environment variables that configure keychainctl, named once: the command's global options
/// fall back on them, and the `Security` library, which has no options, reads them alone.
package enum SettingVariable: String, CaseIterable, Sendable {
    case keychain = "KEYCHAINCTL_KEYCHAIN"
    case profile = "KEYCHAINCTL_PROFILE"
    case provisioning = "KEYCHAINCTL_PROVISIONING"
    case platform = "KEYCHAINCTL_PLATFORM"
    case teamID = "KEYCHAINCTL_TEAM_ID"
    case keyFile = "KEYCHAINCTL_KEY_FILE"
    /// The key itself, base64: taken and wiped from the environment when read.
    case key = "KEYCHAINCTL_KEY"
    /// The passphrase itself: taken and wiped from the environment when read.
    case passphrase = "KEYCHAINCTL_PASSPHRASE"
    case noCache = "KEYCHAINCTL_NO_CACHE"
    case deviceState = "KEYCHAINCTL_DEVICE_STATE"
    case auth = "KEYCHAINCTL_AUTH"
    case format = "KEYCHAINCTL_FORMAT"

    /// The variable's value, `nil` when unset or empty.
    package var value: String? { Environment.value(rawValue) }

    /// The variable's word when `isKnown` takes it; `nil` when unset. A word it does not take is
    /// unusable configuration (exit 78) naming it and what `allowed` lists, built only then (joining
    /// a list of names, a generic call, cost a find 110,000 instructions). (Not generic over the
    /// parsed type: other modules call it, and could not specialise a generic, at every start-up.)
    package func word(allowed: @autoclosure () -> String, _ isKnown: (String) -> Bool) throws(ConfigurationError) -> String? {
        guard let text = value else { return nil }
        guard isKnown(text) else { throw ConfigurationError("\(rawValue) is '\(text.terminalSafe)'; use \(allowed()).") }
        return text
    }
}
