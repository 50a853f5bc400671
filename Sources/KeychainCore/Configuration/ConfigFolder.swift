/// keychainctl's folder of the user's own settings: `$XDG_CONFIG_HOME/keychainctl`, or
/// `$HOME/.config/keychainctl` when XDG_CONFIG_HOME is unset or not absolute (as the XDG
/// specification says to treat it); `nil` when neither gives an absolute folder. Never relative to
/// the working folder: a checked-out repository must not choose who keychainctl is, or its key.
package enum ConfigFolder {
    package static var path: String? {
        if let config = Environment.value("XDG_CONFIG_HOME"), config.hasPrefix("/") { return config + "/keychainctl" }
        if let home = Environment.value("HOME"), home.hasPrefix("/") { return home + "/.config/keychainctl" }
        return nil
    }

    /// The user default profile (`ProfileSource`).
    package static var defaultProfile: String? { path.map { $0 + "/profile.plist" } }

    /// The default keychain's key file: `init` writes it, and every command opening the default
    /// keychain reads it when no other source gives a key.
    package static var defaultKeyFile: String? { path.map { $0 + "/keychain.key" } }

    /// The default keychain: `$XDG_DATA_HOME/keychainctl/keychain.db`, or under `$HOME/.local/share`
    /// (where user data lives, not settings).
    package static var defaultKeychain: String {
        let dataHome = Environment.value("XDG_DATA_HOME") ?? ((Environment.value("HOME") ?? ".") + "/.local/share")
        return dataHome + "/keychainctl/keychain.db"
    }
}
