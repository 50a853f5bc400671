/// The options of one invocation, parsed against its command's `CommandSpec`.
///
/// Accepts `--long value`, `--long=value`, `-s value` and flags; `--` ends the options. No command
/// takes positional arguments, so any stray word is a usage error (exit 64).
struct ParsedArguments {
    private var values: [String: [String]] = [:]
    private var flags: Set<String> = []

    /// Parses `arguments` (after the subcommand's name) for `spec`.
    init(_ arguments: ArraySlice<String>, spec: CommandSpec) throws(UsageError) {
        var byLong: [String: OptionSpec] = [:]
        var byShort: [Character: OptionSpec] = [:]
        for option in spec.options {
            byLong[option.long] = option
            if let short = option.short { byShort[short] = option }
        }
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let word = arguments[index]
            index += 1
            var option: OptionSpec?
            var inlineValue: String?
            if word.hasPrefix("--"), word.count > 2 {
                let body = word.dropFirst(2)
                let name = body.prefix { $0 != "=" }
                option = byLong[String(name)]
                if name.count < body.count { inlineValue = String(body.dropFirst(name.count + 1)) }
            } else if word.hasPrefix("-"), word.count == 2, let short = word.last {
                option = byShort[short]
            } else {
                throw UsageError("unexpected argument '\(word)'; \(spec.name) takes options only.")
            }
            guard let option else { throw UsageError("unknown option '\(word)' for \(spec.name).") }
            if option.valueName == nil {
                guard inlineValue == nil else { throw UsageError("--\(option.long) takes no value.") }
                flags.insert(option.long)
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else {
                guard index < arguments.endIndex else {
                    throw UsageError("missing value for '\(word)' (\(option.valueName!)).")
                }
                value = arguments[index]
                index += 1
            }
            if !option.repeatable, values[option.long] != nil {
                throw UsageError("--\(option.long) was given more than once.")
            }
            values[option.long, default: []].append(value)
        }
    }

    /// The value of a single-valued option.
    func value(_ long: String) -> String? { values[long]?.last }

    /// Every value of a repeatable option, in order.
    func all(_ long: String) -> [String] { values[long] ?? [] }

    /// Whether a flag was given.
    func flag(_ long: String) -> Bool { flags.contains(long) }

    /// (code, value) for each option of `table` that was given, in the table's order.
    func attributes(from table: [(spec: OptionSpec, code: String)]) -> [(code: String, value: String)] {
        table.compactMap { option, code in value(option.long).map { (code, $0) } }
    }

    /// A value parsed by `transform`; a value it rejects is a usage error naming the choices.
    func value<T>(_ long: String, choices: String, _ transform: (String) -> T?) throws(UsageError) -> T? {
        guard let text = value(long) else { return nil }
        guard let parsed = transform(text) else {
            throw UsageError("'\(text)' is not valid for --\(long); use \(choices).")
        }
        return parsed
    }
}
