/// An option that takes a value, declared once as a constant of its command: its spelling, help
/// and environment variable (`spec`), and how its text becomes a `Value`. The parser checks a given
/// value with it (a usage error naming what is expected, before the command is built), and the
/// command reads it where it uses it, as `arguments[Self.timeout]`, never by name, so a read cannot
/// name an option the command does not declare.
///
/// A generic struct holding a closure, not a protocol: nothing is looked up at start-up.
public struct Option<Value>: Sendable {
    public var spec: OptionSpec
    /// The value `text` spells, or `nil` when it spells none.
    public let parse: @Sendable (String) -> Value?

    /// An option whose text `parse` turns into its value; `expected` says what a valid value looks
    /// like, for the usage error ("a file descriptor number"; a `.choices` option lists its words).
    @inlinable public init(
        _ long: String, _ short: Character? = nil, _ valueName: String, kind: OptionKind = .text, repeatable: Bool = false,
        environment: String? = nil, suggestions: Suggestions = .none, expected: String = "", _ help: String,
        parse: @escaping @Sendable (String) -> Value?
    ) {
        self.init(
            OptionSpec(
                long: long, short: short, valueName: valueName, kind: kind, repeatable: repeatable, help: help, environment: environment,
                suggestions: suggestions, accepts: { parse($0) != nil }, expectedText: expected),
            parse: parse)
    }

    @inlinable init(_ spec: OptionSpec, parse: @escaping @Sendable (String) -> Value?) {
        self.spec = spec
        self.parse = parse
    }
}

extension Option where Value == String {
    /// Text taken as given.
    public static func text(
        _ long: String, _ valueName: String, repeatable: Bool = false, environment: String? = nil, suggestions: Suggestions = .none,
        _ help: String
    ) -> Option {
        text(long, nil, valueName, repeatable: repeatable, environment: environment, suggestions: suggestions, help)
    }

    /// Text taken as given, with a short name (or `nil`).
    public static func text(
        _ long: String, _ short: Character?, _ valueName: String, repeatable: Bool = false, environment: String? = nil,
        suggestions: Suggestions = .none, _ help: String
    ) -> Option {
        Option(
            OptionSpec(
                long: long, short: short, valueName: valueName, kind: .text, repeatable: repeatable, help: help, environment: environment,
                suggestions: suggestions)
        ) { $0 }
    }

    /// A file path taken as given (its bytes need not be UTF-8); with `optional`, the path may be
    /// left out, and the value is then empty.
    public static func path(
        _ long: String, short: Character? = nil, valueName: String = "path", repeatable: Bool = false, environment: String? = nil,
        optional: Bool = false, _ help: String
    ) -> Option {
        Option(
            OptionSpec(
                long: long, short: short, valueName: valueName, kind: .path, repeatable: repeatable, help: help, environment: environment,
                valueOptional: optional)
        ) { $0 }
    }
}

extension Option where Value == Int32 {
    /// A file descriptor number.
    public static func descriptor(_ long: String, environment: String? = nil, _ help: String) -> Option {
        Option(long, nil, "n", environment: environment, expected: "a file descriptor number", help) { Int32($0) }
    }
}

extension Option {
    /// One of the words `valueName` lists (`auto|session|user`), parsed by `parse`.
    @inlinable public static func choice(
        _ long: String, _ short: Character? = nil, _ valueName: String, environment: String? = nil, _ help: String,
        _ parse: @escaping @Sendable (String) -> Value?
    ) -> Option {
        Option(long, short, valueName, kind: .choices, environment: environment, help, parse: parse)
    }
}

/// An option that takes no value, declared once as a constant of its command.
public struct Flag: Sendable {
    public let spec: OptionSpec

    public init(_ long: String, environment: String? = nil, _ help: String) {
        spec = OptionSpec(long: long, short: nil, valueName: nil, kind: .flag, repeatable: false, help: help, environment: environment)
    }

    public init(_ long: String, _ short: Character, _ help: String) {
        spec = OptionSpec(long: long, short: short, valueName: nil, kind: .flag, repeatable: false, help: help, environment: nil)
    }
}

extension Option {
    /// The value of the option's environment variable (see `OptionSpec.environmentValue`).
    @inlinable public var environmentValue: String? { spec.environmentValue }
}

extension Flag {
    /// The value of the flag's environment variable (see `OptionSpec.environmentValue`).
    public var environmentValue: String? { spec.environmentValue }
}
