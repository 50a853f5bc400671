/// `--help` text, derived from the command specs.
enum HelpText {
    /// Help for one subcommand.
    static func render(_ spec: CommandSpec) -> String {
        var out = "OVERVIEW: \(spec.abstract)\n\n"
        if !spec.discussion.isEmpty { out += spec.discussion + "\n\n" }
        if let operand = spec.operand {
            let action = spec.actions.isEmpty ? "" : "[action] "
            out += "USAGE: keychainctl \(spec.name) \(action)[\(operand.name)] [options]\n"
            out += actionList(spec)
            out += "\nARGUMENTS:\n"
            out += "  " + operand.name + String(repeating: " ", count: max(1, 34 - operand.name.count)) + operand.help + "\n"
        } else if let trailing = spec.trailingCommand {
            out += "USAGE: keychainctl \(spec.name) [options] -- \(trailing.name)\n\nARGUMENTS:\n"
            out += "  " + trailing.name + String(repeating: " ", count: max(1, 34 - trailing.name.count)) + trailing.help + "\n"
        } else if spec.actions.isEmpty {
            out += "USAGE: keychainctl \(spec.name) [options]\n"
        } else {
            out += "USAGE: keychainctl \(spec.name) [action] [options]\n" + actionList(spec)
        }
        for (title, options) in spec.sections where !options.isEmpty {
            out += "\n\(title.uppercased()):\n"
            for option in options {
                var names = option.short.map { "-\($0), " } ?? ""
                names += "--\(option.long)"
                if let valueName = option.valueName { names += " <\(valueName)>" }
                let padded =
                    names.count < 34
                    ? names + String(repeating: " ", count: 34 - names.count) : names + "\n" + String(repeating: " ", count: 36)
                out += "  \(padded)\(option.help)\(option.repeatable ? " (repeatable)" : "")\n"
            }
        }
        out += "  -h, --help                        Show this help.\n"
        return out
    }

    /// The ACTIONS section (empty for a command that takes none).
    private static func actionList(_ spec: CommandSpec) -> String {
        guard !spec.actions.isEmpty else { return "" }
        return "\nACTIONS:\n"
            + spec.actions.map { "  " + $0.words + String(repeating: " ", count: max(1, 34 - $0.words.count)) + $0.help + "\n" }.joined()
    }

    /// Help for `keychainctl` itself.
    static func root(_ commands: [CommandSpec]) -> String {
        var out = """
            OVERVIEW: Apple's data-protection keychain semantics on an encrypted SQLite file.

            Each invocation acts as one app or extension whose entitlements come from --profile: its access
            groups decide what it may read and write, as SecItemAdd, SecItemCopyMatching, SecItemUpdate and
            SecItemDelete decide on iOS and macOS.

            USAGE: keychainctl <subcommand> [options]

            SUBCOMMANDS:

            """
        for command in commands {
            out += "  " + command.name + String(repeating: " ", count: max(1, 16 - command.name.count)) + command.abstract + "\n"
        }
        out += """

            EXIT STATUS: 0 success; a keychain status's low byte (44 not found, 45 duplicate, 30 missing
            entitlement, 36 interaction not allowed, 51 wrong key or passphrase, 93 damaged item, 206 bad
            parameter, 41 no such attribute, 38 no such class, 53 no keychain); 64 usage; 78 unusable
            profile or configuration; 74 keychain file or input unreadable; 1 a bug. 'keychainctl error
            --list' prints them all, 'keychainctl error STATUS' explains one.

              -h, --help        Show help (also 'keychainctl <subcommand> --help').
              --version         Show the version.

            """
        return out
    }
}
