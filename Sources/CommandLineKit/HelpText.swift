/// `--help` text, derived from the program's and the commands' specs.
public enum HelpText {
    /// Help for one subcommand of `program`.
    public static func render(_ spec: CommandSpec, program: ProgramSpec) -> String {
        var out = "OVERVIEW: \(spec.abstract)\n\n"
        // An everyday command's help fits a screen: its whole description is in the manual.
        if spec.briefGlobalOptions, !spec.discussion.isEmpty, !program.fullDescriptionNote.isEmpty {
            out += program.fullDescriptionNote + "\n\n"
        } else if !spec.discussion.isEmpty {
            out += spec.discussion + "\n\n"
        }
        if !spec.operands.isEmpty {
            let action = spec.actions.isEmpty ? "" : "[action] "
            out += "USAGE: \(program.name) \(spec.name) \(action)\(spec.operandWords(spec.operands.map(\.name)).dropFirst()) [options]\n"
            out += actionList(spec)
            out += "\nARGUMENTS:\n"
            for operand in spec.operands {
                out += "  " + operand.name + String(repeating: " ", count: max(1, 34 - operand.name.count)) + operand.help + "\n"
            }
        } else if let trailing = spec.trailingCommand {
            out += "USAGE: \(program.name) \(spec.name) [options] -- \(trailing.name)\n\nARGUMENTS:\n"
            out += "  " + trailing.name + String(repeating: " ", count: max(1, 34 - trailing.name.count)) + trailing.help + "\n"
        } else if spec.actions.isEmpty {
            out += "USAGE: \(program.name) \(spec.name) [options]\n"
        } else {
            out += "USAGE: \(program.name) \(spec.name) [action] [options]\n" + actionList(spec)
        }
        for (title, options) in spec.sections where !options.isEmpty {
            guard title == ProgramSpec.globalSectionTitle else {
                out += "\n\(title.uppercased()):\n" + options.map(line).joined()
                continue
            }
            // The global options by theme; the everyday commands show those a script uses, and
            // say where the rest are.
            let brief = spec.briefGlobalOptions
            let shown = brief ? options.filter { program.everydayGlobalOptions.contains($0.long) } : options
            for theme in program.byTheme(shown) {
                out += "\n\(theme.title.uppercased()) OPTIONS (every command):\n" + theme.options.map(line).joined()
            }
            if brief { out += "  \(program.briefGlobalNote)\n" }
        }
        out += "  -h, --help                        Show this help.\n"
        if !spec.examples.isEmpty {
            out += "\nEXAMPLES:\n" + spec.examples.map { "  \($0.command)\n      \($0.does)\n" }.joined()
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

    /// Help for the program itself: what it is, its commands by group, its exit statuses.
    public static func root(_ commands: [CommandSpec], program: ProgramSpec) -> String {
        var out = "OVERVIEW: \(program.title).\n\n\(program.overview)\n\n"
        out += "USAGE: \(program.name) [global options] <subcommand> [options]\n\nEXAMPLES:\n"
        for example in program.examples {
            out += "  " + example.command + String(repeating: " ", count: max(3, 51 - example.command.count)) + "# " + example.does + "\n"
        }
        out += "\n"
        for (title, names) in program.groups {
            out += "\(title.uppercased()):\n"
            for command in commands where names.contains(command.name) {
                out += "  " + command.name + String(repeating: " ", count: max(1, 16 - command.name.count)) + command.abstract + "\n"
            }
            out += "\n"
        }
        out += "EXIT STATUS:\n"
        for row in program.exitStatuses {
            out += "  " + String(row.exit) + String(repeating: " ", count: max(1, 6 - String(row.exit).count)) + row.summary + "\n"
        }
        return out + program.rootFooter
    }
}
