/// One command-line option, declared once: parsing, usage errors and `--help` all derive from it.
struct OptionSpec: Sendable {
    /// The long name without dashes (`service`).
    let long: String
    /// The short name (`s` for `-s`), if any.
    let short: Character?
    /// The value's placeholder in help; `nil` for a flag that takes no value.
    let valueName: String?
    /// Whether the option may be given more than once (its values accumulate).
    let repeatable: Bool
    /// One line of help.
    let help: String

    /// An option taking a value.
    static func value(_ long: String, _ short: Character? = nil, _ valueName: String, repeatable: Bool = false, _ help: String)
        -> OptionSpec
    {
        OptionSpec(long: long, short: short, valueName: valueName, repeatable: repeatable, help: help)
    }

    /// A flag with a short name.
    static func flag(_ long: String, _ short: Character, _ help: String) -> OptionSpec {
        OptionSpec(long: long, short: short, valueName: nil, repeatable: false, help: help)
    }

    /// A flag.
    static func flag(_ long: String, _ help: String) -> OptionSpec {
        OptionSpec(long: long, short: nil, valueName: nil, repeatable: false, help: help)
    }
}

/// One subcommand's name, help and options.
struct CommandSpec: Sendable {
    let name: String
    let abstract: String
    let discussion: String
    /// Option sections in help order: (title, options).
    let sections: [(title: String, options: [OptionSpec])]
    /// The actions a command takes as leading words (`device passcode set`), each with one line of
    /// help; the first is what no word means. Empty for the commands that take options only.
    var actions: [(words: String, help: String)] = []
    /// The one word a command takes besides options (`error STATUS`), with its help; `nil` for the
    /// commands that take options only. A negative number is an operand, never an option.
    var operand: (name: String, help: String)? = nil
    /// The command a command runs, given after `--` (`exec -- CMD ARG…`), with its help; `nil`
    /// for the commands that run none.
    var trailingCommand: (name: String, help: String)? = nil

    /// Every option the command accepts.
    var options: [OptionSpec] { sections.flatMap(\.options) }
}

/// A command-line mistake: exit 64 with the message and a pointer to `--help`.
struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
