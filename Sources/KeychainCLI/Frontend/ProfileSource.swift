import KeychainCore

/// Where the profile of an invocation comes from, first match wins: `--profile`, then
/// KEYCHAINCTL_PROFILE, then the user's default profile file when it exists, then the built-in
/// profile (`BuiltInProfile`).
enum ProfileSource: Equatable {
    case option(String)
    case environment(String)
    case userDefault(String)
    case builtIn

    /// The user's default profile: `$XDG_CONFIG_HOME/keychainctl/profile.plist`
    /// (`$HOME/.config/keychainctl/profile.plist` when XDG_CONFIG_HOME is unset).
    static var userDefaultPath: String {
        let configHome = Environment.value("XDG_CONFIG_HOME") ?? ((Environment.value("HOME") ?? ".") + "/.config")
        return configHome + "/keychainctl/profile.plist"
    }

    /// The file to load; `nil` for the built-in profile.
    var path: String? {
        switch self {
        case .option(let path), .environment(let path), .userDefault(let path): path
        case .builtIn: nil
        }
    }

    /// How `groups` says where the profile came from.
    var origin: String {
        switch self {
        case .option: "from --profile"
        case .environment: "from KEYCHAINCTL_PROFILE"
        case .userDefault: "the user default, used when no profile is given"
        case .builtIn: "keychainctl's own, used when no profile is given ('keychainctl profile show' prints it)"
        }
    }

    /// The word `groups --format json` gives it.
    var word: String {
        switch self {
        case .option: "option"
        case .environment: "environment"
        case .userDefault: "user-default"
        case .builtIn: "built-in"
        }
    }
}
