import Glibc
import KeychainFoundation
import TextEscaping

/// The `keychainctl init` that makes a missing keychain, as a refusal prints it for the user to
/// run where the refused call ran (its variables in force): the command's hint and the library's
/// alike, so that both name a command that works as printed.
package struct InitHint {
    /// The command: the keychain as the call named it; the key file the call names (made with
    /// `--generate-key-file` when it is missing too); else, beside any keychain but the default one
    /// and with no key in the environment, a key file of the keychain's own.
    package let command: String
    /// That key file of the keychain's own, which later calls then need to be given; `nil` when
    /// they find the key as they did.
    package let newKeyFile: String?

    /// - Parameters:
    ///   - keychainPath: the keychain the call opens.
    ///   - keychainOption: `--keychain` as the call gave it (`nil`: the variable or the default).
    ///   - keyFileOption: `--key-file` as the call gave it.
    ///   - passphraseOption: whether the call gave `--passphrase-fd`.
    package init(keychainPath: String, keychainOption: String? = nil, keyFileOption: String? = nil, passphraseOption: Bool = false) {
        var words = ["keychainctl", "init"]
        if let keychainOption { words += ["--keychain", keychainOption.shellQuoted] }
        var newKeyFile: String?
        if let keyFile = keyFileOption ?? SettingVariable.keyFile.value {
            // From the variable, init reads the same file; from the option, it is given again.
            if access(keyFile, F_OK) != 0 {
                words += ["--generate-key-file", keyFile.shellQuoted]
            } else if let keyFileOption {
                words += ["--key-file", keyFileOption.shellQuoted]
            }
        } else if !passphraseOption, keychainPath != ConfigFolder.defaultKeychain,
            SettingVariable.key.value == nil, SettingVariable.passphrase.value == nil
        {
            let beside = Self.keyFile(beside: keychainPath)
            words += ["--generate-key-file", beside.shellQuoted]
            newKeyFile = beside
        }
        command = words.joined(separator: " ")
        self.newKeyFile = newKeyFile
    }

    /// The key file of a keychain's own that the hint names beside it (`PATH.key`), where a later
    /// call without a key looks for it too.
    package static func keyFile(beside keychainPath: String) -> String { keychainPath + ".key" }
}
