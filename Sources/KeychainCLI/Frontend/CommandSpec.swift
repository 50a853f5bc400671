/// What an option's value is. It decides the help placeholder's meaning, shell completion, and
/// whether the value may hold bytes that are not UTF-8.
enum OptionKind: Sendable, Equatable {
    /// No value: the option's presence is the value.
    case flag
    /// Text, which must be valid UTF-8 (an attribute, a query, a duration, a number).
    case text
    /// A file path: any bytes, completed as a file.
    case path
    /// One of the few words its placeholder lists (`auto|session|user`).
    case choices
}

/// One command-line option as help, the man page, completion and the parser see it. Commands
/// declare options as typed `Option` and `Flag` constants, which carry one of these.
struct OptionSpec: Sendable {
    /// The long name without dashes (`service`).
    let long: String
    /// The short name (`s` for `-s`), if any.
    let short: Character?
    /// The value's placeholder in help (`duration`, `auto|session|user`); `nil` for a flag.
    let valueName: String?
    /// What the value is.
    let kind: OptionKind
    /// Whether the option may be given more than once (its values accumulate).
    let repeatable: Bool
    /// One line of help.
    let help: String
    /// The environment variable that stands in for the option when it is not given.
    let environment: String?

    /// The words a `.choices` option takes, from its placeholder (split only when asked: at
    /// start-up every command's options are declared, and few are ever completed or refused).
    var choices: [String] { kind == .choices ? (valueName ?? "").split(separator: "|").map(String.init) : [] }

    /// Whether the option takes no value.
    var isFlag: Bool { kind == .flag }

    /// The help line with the environment variable, as help and the man page show it.
    var helpWithEnvironment: String { environment.map { "\(help) [env: \($0)]" } ?? help }
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

    /// `keychainctl NAME [action] [OPERAND] [options] -- CMD`, as the man page and the reference
    /// show it.
    var synopsis: String {
        var text = "keychainctl \(name)"
        if !actions.isEmpty { text += " [action]" }
        if let operand { text += " [\(operand.name)]" }
        text += " [options]"
        if let trailingCommand { text += " -- \(trailingCommand.name)" }
        return text
    }
}

/// A command-line mistake: exit 64 with the message and a pointer to `--help`.
struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
