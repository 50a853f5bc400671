/// `--help` text, derived from the command specs.
enum HelpText {
    /// Help for one subcommand.
    static func render(_ spec: CommandSpec, examples: [Example] = []) -> String {
        var out = "OVERVIEW: \(spec.abstract)\n\n"
        if !spec.discussion.isEmpty { out += spec.discussion + "\n\n" }
        if !spec.operands.isEmpty {
            let action = spec.actions.isEmpty ? "" : "[action] "
            out += "USAGE: keychainctl \(spec.name) \(action)\(spec.operandWords(spec.operands.map(\.name)).dropFirst()) [options]\n"
            out += actionList(spec)
            out += "\nARGUMENTS:\n"
            for operand in spec.operands {
                out += "  " + operand.name + String(repeating: " ", count: max(1, 34 - operand.name.count)) + operand.help + "\n"
            }
        } else if let trailing = spec.trailingCommand {
            out += "USAGE: keychainctl \(spec.name) [options] -- \(trailing.name)\n\nARGUMENTS:\n"
            out += "  " + trailing.name + String(repeating: " ", count: max(1, 34 - trailing.name.count)) + trailing.help + "\n"
        } else if spec.actions.isEmpty {
            out += "USAGE: keychainctl \(spec.name) [options]\n"
        } else {
            out += "USAGE: keychainctl \(spec.name) [action] [options]\n" + actionList(spec)
        }
        for (title, options) in spec.sections where !options.isEmpty {
            guard title == GlobalOptions.sectionTitle else {
                out += "\n\(title.uppercased()):\n" + options.map(line).joined()
                continue
            }
            // The global options by theme; the everyday commands show those a script uses, and
            // say where the rest are.
            let brief = spec.briefGlobalOptions
            let shown = brief ? options.filter { GlobalOptions.everyday.contains($0.long) } : options
            for theme in GlobalOptions.byTheme(shown) {
                out += "\n\(theme.title.uppercased()) OPTIONS (every command):\n" + theme.options.map(line).joined()
            }
            if brief {
                out += "  (and the options that act as an app: --profile and the rest, as 'keychainctl find --help' lists them)\n"
            }
        }
        out += "  -h, --help                        Show this help.\n"
        if !examples.isEmpty {
            out += "\nEXAMPLES:\n" + examples.map { "  \($0.command)\n      \($0.does)\n" }.joined()
        }
        return out
    }

    /// One option's line: its names and value, padded, then its help.
    private static func line(_ option: OptionSpec) -> String {
        var names = option.short.map { "-\($0), " } ?? ""
        names += "--\(option.long)"
        if let valueName = option.valueName { names += option.valueOptional ? " [<\(valueName)>]" : " <\(valueName)>" }
        let padded =
            names.count < 34 ? names + String(repeating: " ", count: 34 - names.count) : names + "\n" + String(repeating: " ", count: 36)
        return "  \(padded)\(option.helpWithEnvironment)\(option.repeatable ? " (repeatable)" : "")\n"
    }

    /// The ACTIONS section (empty for a command that takes none).
    private static func actionList(_ spec: CommandSpec) -> String {
        guard !spec.actions.isEmpty else { return "" }
        return "\nACTIONS:\n"
            + spec.actions.map { "  " + $0.words + String(repeating: " ", count: max(1, 34 - $0.words.count)) + $0.help + "\n" }.joined()
    }

    /// The subcommands by what a user comes for, in root help's order: every command in one group.
    static let groups: [(title: String, commands: [String])] = [
        ("everyday secrets", ["init", "set", "get", "ls", "rm", "backup"]),
        ("CI and scripts", ["unlock", "lock", "exec", "import", "export", "rekey"]),
        ("SecItem calls", ["add", "find", "update", "delete", "migrate-group"]),
        ("sync between devices", ["cloud", "sync"]),
        ("debugging access groups", ["groups", "profile", "explain", "matrix", "lint", "device"]),
        ("maintenance and reference", ["verify", "error", "completion", "manpage"]),
    ]

    /// What keychainctl is, in one line (root help's overview, the man page's NAME).
    static let title = "Apple's data-protection keychain semantics on an encrypted SQLite file"

    /// What an invocation is (root help and the man page's DESCRIPTION).
    static let overview = """
        Each invocation acts as one app or extension whose entitlements come from --profile (else the \
        user's default profile, else the built-in one): its access groups decide what it may read and write, \
        as SecItemAdd, SecItemCopyMatching, SecItemUpdate and SecItemDelete decide on iOS and macOS. Secrets \
        are read from standard input, files or descriptors, never from the command line unless the user insists.
        """

    /// Help for `keychainctl` itself.
    static func root(_ commands: [CommandSpec]) -> String {
        var out = """
            OVERVIEW: \(title).

            \(overview)

            USAGE: keychainctl [global options] <subcommand> [options]

            EXAMPLES:
              keychainctl init                                   # the default keychain, and its key file
              echo 'tok' | keychainctl set api-token             # 'keychainctl get api-token' prints it
              keychainctl exec --env TOKEN=api-token -- ./deploy.sh   # one secret for one command, masked


            """
        for (title, names) in groups {
            out += "\(title.uppercased()):\n"
            for command in commands where names.contains(command.name) {
                out += "  " + command.name + String(repeating: " ", count: max(1, 16 - command.name.count)) + command.abstract + "\n"
            }
            out += "\n"
        }
        out += "EXIT STATUS:\n"
        for row in ExitStatusTable.rows {
            let meaning = row.status.map { "\($0.name) (\($0.rawValue))" } ?? row.summary
            out += "  " + String(row.exit) + String(repeating: " ", count: max(1, 6 - String(row.exit).count)) + meaning + "\n"
        }
        out += """
            'keychainctl error STATUS' explains one, with what usually causes it.

              -h, --help        Show help (also 'keychainctl <subcommand> --help').
              --version         Show the version, its commit and the libraries inside (--format json too).

            """
        return out
    }
}
