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
    /// The words completion offers for a text option that takes any text but knows its usual
    /// values (`--class genp`, `--accessible after-first-unlock`).
    var suggestions: Suggestions = .none
    /// Whether the value may be left out (`init --generate-key-file`): the option is then given
    /// with an empty value, which the command reads as "the default".
    var valueOptional = false

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
    /// The words a command takes besides options, in order (`error STATUS`, `set NAME ACCOUNT`),
    /// each with its help; empty for the commands that take options only. Each may be left out
    /// (the command says which it needs). A negative number is an operand, never an option.
    var operands: [(name: String, help: String)] = []
    /// How many of the first operands the command cannot do without (`set NAME`): shown without
    /// brackets in the usage line.
    var requiredOperands = 0
    /// The words completion offers for the first operand, when it has a known set (`completion bash`).
    var operandWords: [String] = []
    /// Whether `--help` shows only the program's everyday global options, with a pointer to the
    /// rest; the parser takes them all.
    var briefGlobalOptions = false
    /// Whether the first operand is a stored name, which completion offers by asking the program
    /// (`PROGRAM completion names`).
    var operandIsStoredName = false
    /// The options whose value is VAR=QUERY (`exec --env`, `--file`): completion offers VAR=NAME for
    /// the stored names, a bare NAME being the item `set NAME` stored.
    var queryOptions: [String] = []
    /// The command a command runs, given after `--` (`exec -- CMD ARG…`), with its help; `nil`
    /// for the commands that run none.
    var trailingCommand: (name: String, help: String)? = nil

    /// Every option the command accepts.
    var options: [OptionSpec] { sections.flatMap(\.options) }

    /// The words that may come first after the command (an action's first word, or a known
    /// operand), and for each action's first word the words that may follow it (`passcode`: `set`,
    /// `remove`): what completion offers word by word.
    var leadingWords: (first: [String], second: [String: [String]]) {
        var first: [String] = []
        var second: [String: [String]] = [:]
        for action in actions {
            let words = action.words.split(separator: " ").map(String.init)
            if !first.contains(words[0]) { first.append(words[0]) }
            if words.count > 1 { second[words[0], default: []].append(words[1]) }
        }
        return (first + operandWords, second)
    }

    /// `PROGRAM NAME [action] [OPERAND] [options] -- CMD`, as the man page and the reference
    /// show it.
    func synopsis(program: String) -> String {
        var text = "\(program) \(name)"
        if !actions.isEmpty { text += " [action]" }
        text += operandWords(operands.map(\.name))
        text += " [options]"
        if let trailingCommand { text += " -- \(trailingCommand.name)" }
        return text
    }

    /// ` NAME [ACCOUNT]`: the required operands bare, the others in brackets.
    func operandWords(_ names: [String]) -> String {
        names.enumerated().map { $0.offset < requiredOperands ? " \($0.element)" : " [\($0.element)]" }.joined()
    }
}

/// One command line that shows a command at work, and what it does: each command's `examples`,
/// the EXAMPLES of its help, the man page and the reference. The test suite runs them all, in help
/// order, on a fresh machine (`ExampleTests`), so each must succeed after the ones before it. They
/// are a static of the command, not part of its spec, so that no run builds them but help's.
struct Example: Sendable {
    let command: String
    let does: String

    init(_ command: String, _ does: String) {
        self.command = command
        self.does = does
    }
}

/// A command-line mistake: exit 64 with the message and a pointer to `--help`.
struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
