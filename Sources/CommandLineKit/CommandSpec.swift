/// One subcommand's name, help and options.
public struct CommandSpec: Sendable {
    public let name: String
    public let abstract: String
    public let discussion: String
    /// Option sections in help order: (title, options).
    public let sections: [(title: String, options: [OptionSpec])]
    /// The actions a command takes as leading words (`device passcode set`), each with one line of
    /// help; the first is what no word means. Empty for the commands that take options only.
    public var actions: [(words: String, help: String)] = []
    /// The words a command takes besides options, in order (`error STATUS`, `set NAME ACCOUNT`),
    /// each with its help; empty for the commands that take options only. Each may be left out
    /// (the command says which it needs). A negative number is an operand, never an option.
    public var operands: [(name: String, help: String)] = []
    /// How many of the first operands the command cannot do without (`set NAME`): shown without
    /// brackets in the usage line.
    public var requiredOperands = 0
    /// The words completion offers for the first operand, when it has a known set (`completion bash`).
    public var operandWords: [String] = []
    /// Whether `--help` shows only the program's everyday global options, with a pointer to the
    /// rest; the parser takes them all.
    public var briefGlobalOptions = false
    /// Whether the first operand is a stored name, which completion offers by asking the program
    /// (`PROGRAM completion names`).
    public var operandIsStoredName = false
    /// The options whose value is VAR=QUERY (`exec --env`, `--file`): completion offers VAR=NAME for
    /// the stored names, a bare NAME being the item `set NAME` stored.
    public var queryOptions: [String] = []
    /// The command a command runs, given after `--` (`exec -- CMD ARG…`), with its help; `nil`
    /// for the commands that run none.
    public var trailingCommand: (name: String, help: String)? = nil
    /// Command lines showing the command at work: the EXAMPLES of its help, the man page and the
    /// reference.
    public var examples: [Example] = []

    public init(
        name: String, abstract: String, discussion: String = "", sections: [(title: String, options: [OptionSpec])],
        actions: [(words: String, help: String)] = [], operands: [(name: String, help: String)] = [], requiredOperands: Int = 0,
        operandWords: [String] = [], briefGlobalOptions: Bool = false, operandIsStoredName: Bool = false, queryOptions: [String] = [],
        trailingCommand: (name: String, help: String)? = nil, examples: [Example] = []
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.sections = sections
        self.actions = actions
        self.operands = operands
        self.requiredOperands = requiredOperands
        self.operandWords = operandWords
        self.briefGlobalOptions = briefGlobalOptions
        self.operandIsStoredName = operandIsStoredName
        self.queryOptions = queryOptions
        self.trailingCommand = trailingCommand
        self.examples = examples
    }

    /// Every option the command accepts.
    public var options: [OptionSpec] { sections.flatMap(\.options) }

    /// The words that may come first after the command (an action's first word, or a known
    /// operand), and for each action's first word the words that may follow it (`passcode`: `set`,
    /// `remove`): what completion offers word by word.
    public var leadingWords: (first: [String], second: [String: [String]]) {
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
    public func synopsis(program: String) -> String {
        var text = "\(program) \(name)"
        if !actions.isEmpty { text += " [action]" }
        text += operandWords(operands.map(\.name))
        text += " [options]"
        if let trailingCommand { text += " -- \(trailingCommand.name)" }
        return text
    }

    /// ` NAME [ACCOUNT]`: the required operands bare, the others in brackets.
    public func operandWords(_ names: [String]) -> String {
        names.enumerated().map { $0.offset < requiredOperands ? " \($0.element)" : " [\($0.element)]" }.joined()
    }
}

/// One command line that shows a command at work, and what it does: a command's `examples`, the
/// EXAMPLES of its help, the man page and the reference. Write them to run as shown, in help order,
/// each after the ones before it: a program's tests can then run them all on a fresh machine.
public struct Example: Sendable {
    public let command: String
    public let does: String

    public init(_ command: String, _ does: String) {
        self.command = command
        self.does = does
    }
}

/// A command-line mistake: exit 64 with the message and a pointer to `--help`.
public struct UsageError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
