import KeychainCore

/// Every exit status keychainctl ends with: each keychain status's low byte (as macOS `security`
/// exits), then keychainctl's own. The one table behind `keychainctl error`, error reports and
/// the pages' exit-status lists (`KeychainProgram`).
enum ExitStatusTable {
    /// One exit status.
    struct Row {
        let exit: Int32
        /// The keychain status it stands for, if it is one.
        let status: KeychainStatus?
        /// What it means and what usually causes it.
        let meaning: String

        /// The meaning up to its first explanation, for a one-line list (root help).
        var summary: String {
            var text = meaning.prefix { $0 != "(" && $0 != ":" && $0 != ";" }
            while text.last == " " { text.removeLast() }
            return String(text)
        }
    }

    static let success: Int32 = 0
    static let usage: Int32 = 64
    static let lintErrors: Int32 = 65
    static let ioFailure: Int32 = 74
    static let unusableConfiguration: Int32 = 78
    static let bug: Int32 = 1

    /// keychainctl's own exits, in the reference's order around the keychain statuses.
    private static let own: [Row] = [
        Row(
            exit: usage, status: nil,
            meaning:
                "the command line is wrong (unknown option, missing value, stray word, an unknown status for `error`); the message names the option, never its value, and suggests the option probably meant"
        ),
        Row(
            exit: lintErrors, status: nil,
            meaning: "`lint` found at least one error (the findings are on stdout; warnings and notes alone exit 0)"),
        Row(
            exit: unusableConfiguration, status: nil,
            meaning:
                "the profile or configuration is unusable (unreadable plist or signed profile, a claim the provisioning profile does not allow, unresolved variable, a control character in a group, no key, an empty passphrase, a passphrase over its cap, a key file others can read or that is not a key; for `unlock`, a kernel keyring that is blocked or a session keyring that is not there)"
        ),
        Row(
            exit: ioFailure, status: nil,
            meaning:
                "the keychain file or an input file cannot be read or written (not a keychain, a tampered schema or metadata, Argon2id parameters out of bounds, I/O), or the output could not all be written (a full disk, `/dev/full`): a command that would have succeeded exits 74 naming the stream"
        ),
        Row(exit: bug, status: nil, meaning: "anything else: a bug"),
    ]

    /// Every row: success, the keychain statuses, then keychainctl's own.
    static var rows: [Row] {
        [Row(exit: success, status: nil, meaning: "success")]
            + KeychainStatus.allCases.map { Row(exit: $0.exitStatus, status: $0, meaning: $0.row.causes) } + own
    }
}
