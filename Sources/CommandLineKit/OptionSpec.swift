import Glibc

/// What an option's value is. It decides the help placeholder's meaning, shell completion, and
/// whether the value may hold bytes that are not UTF-8.
public enum OptionKind: Sendable, Equatable {
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
public struct OptionSpec: Sendable {
    /// The long name without dashes (`service`).
    public let long: String
    /// The short name (`s` for `-s`), if any.
    public let short: Character?
    /// The value's placeholder in help (`duration`, `auto|session|user`); `nil` for a flag.
    public let valueName: String?
    /// What the value is.
    public let kind: OptionKind
    /// Whether the option may be given more than once (its values accumulate).
    public let repeatable: Bool
    /// One line of help.
    public let help: String
    /// The environment variable that stands in for the option when it is not given.
    public let environment: String?
    /// The words completion offers for a text option that takes any text but knows its usual
    /// values (`--class genp`, `--accessible after-first-unlock`).
    public var suggestions: Suggestions = .none
    /// Whether the value may be left out (`init --generate-key-file`): the option is then given
    /// with an empty value, which the command reads as "the default".
    public var valueOptional = false
    /// Whether a value is one the option takes, checked as the command line is parsed; `nil` for
    /// an option that takes any text (or whose reader checks it, as a table of plain options).
    public var accepts: (@Sendable (String) -> Bool)? = nil
    /// What a valid value looks like, for the usage error ("a file descriptor number"); a
    /// `.choices` option lists its words instead.
    public var expectedText = ""

    @inlinable public init(
        long: String, short: Character?, valueName: String?, kind: OptionKind, repeatable: Bool, help: String, environment: String?,
        suggestions: Suggestions = .none, valueOptional: Bool = false, accepts: (@Sendable (String) -> Bool)? = nil,
        expectedText: String = ""
    ) {
        self.long = long
        self.short = short
        self.valueName = valueName
        self.kind = kind
        self.repeatable = repeatable
        self.help = help
        self.environment = environment
        self.suggestions = suggestions
        self.valueOptional = valueOptional
        self.accepts = accepts
        self.expectedText = expectedText
    }

    /// What a valid value looks like, for the usage error ("auto, session or user").
    public var expected: String {
        let words = choices
        guard let last = words.last, words.count > 1 else { return words.first ?? expectedText }
        return words.dropLast().joined(separator: ", ") + " or " + last
    }

    /// The words a `.choices` option takes, from its placeholder (split only when asked: at
    /// start-up every command's options are declared, and few are ever completed or refused).
    public var choices: [String] { kind == .choices ? (valueName ?? "").split(separator: "|").map(String.init) : [] }

    /// Whether the option takes no value.
    public var isFlag: Bool { kind == .flag }

    /// The help line with the environment variable, as help and the man page show it.
    public var helpWithEnvironment: String { environment.map { "\(help) [env: \($0)]" } ?? help }
}

extension OptionSpec {
    /// A text option read as given and checked by whoever reads it (a table of such options), so a
    /// plain spec with no parser, which is cheaper to declare at start-up than a typed `Option`.
    public static func plain(
        _ long: String, _ short: Character?, _ valueName: String, kind: OptionKind = .text, suggestions: Suggestions = .none, _ help: String
    ) -> OptionSpec {
        OptionSpec(
            long: long, short: short, valueName: valueName, kind: kind, repeatable: false, help: help, environment: nil,
            suggestions: suggestions)
    }

    /// The value of the option's environment variable, when it has one and it is set and not empty.
    public var environmentValue: String? {
        guard let environment, let pointer = getenv(environment), pointer.pointee != 0 else { return nil }
        return String(cString: pointer)
    }
}
