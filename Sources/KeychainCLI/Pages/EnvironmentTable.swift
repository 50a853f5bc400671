/// Every environment variable keychainctl reads, for the man page's ENVIRONMENT section: the
/// ones that stand in for an option (declared with the option), then the ones no option carries.
enum EnvironmentTable {
    struct Row {
        let name: String
        let meaning: String
    }

    /// Variables that stand in for no option: secrets (never an option's value) and the default
    /// keychain location.
    private static let own: [Row] = [
        Row(
            name: CommandContext.keyVariable,
            meaning: "The keychain key itself, base64. Read once and wiped from the process; never passed to exec's command."),
        Row(
            name: CommandContext.passphraseVariable,
            meaning: "The keychain passphrase itself. Read once and wiped from the process; never passed to exec's command."),
        Row(name: "XDG_DATA_HOME", meaning: "Where the default keychain lives (default $HOME/.local/share)."),
        Row(name: "XDG_CONFIG_HOME", meaning: "Where the user's default profile lives (default $HOME/.config)."),
    ]

    /// One row per variable, in the order the commands declare them.
    static func rows(_ commands: [CommandSpec]) -> [Row] {
        var rows: [Row] = []
        for option in (GlobalOptions.specs + commands.flatMap(\.options)) {
            guard let name = option.environment, !rows.contains(where: { $0.name == name }) else { continue }
            rows.append(Row(name: name, meaning: "As --\(option.long): \(option.help)"))
        }
        return rows + own
    }
}
