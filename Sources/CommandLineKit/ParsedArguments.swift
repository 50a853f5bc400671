import TextEscaping

/// The options of one invocation, parsed against its command's `CommandSpec`.
///
/// Accepts `--long value`, `--long=value`, `-s value` and flags; `--` ends the options. Help
/// (`-h`, `--help`) is recognised only where an option may stand, never as another option's value.
/// A command with actions (`device lock`) takes them as its leading words; otherwise no command
/// takes positional arguments, so any stray word is a usage error (exit 64). Errors never quote a
/// value or a stray word: either may be a secret typed in the wrong place.
public struct ParsedArguments {
    @usableFromInline var values: [String: [String]] = [:]
    private var flags: Set<String> = []
    /// The action the leading words named (the spec's first when none was given); `nil` for a
    /// command without actions.
    public private(set) var action: String?
    /// The operands given, in order, at most as many as the command takes (`error -25300`).
    public private(set) var operands: [String] = []
    /// The first operand (`error -25300`).
    public var operand: String? { operands.first }
    /// Whether `-h` or `--help` stood in option position (parsing stopped there).
    public private(set) var helpRequested = false
    /// The first option (other than a path) whose value was not valid UTF-8 on the command line:
    /// Swift would have replaced the bad bytes, making `x\xff` and `x\xfe` one account.
    public private(set) var invalidUTF8Option: String?
    /// The first operand (its name, `NAME`) that was not valid UTF-8 on the command line: the
    /// same replacement would make two names one.
    public private(set) var invalidUTF8Operand: String?
    /// The command and its arguments after `--`, for a command that runs one (`exec`).
    public private(set) var trailing: [String]?
    /// The command these options are for.
    public let command: String

    /// Parses `arguments` (after the subcommand's name) for `spec`; `invalidUTF8` holds the
    /// indices of words that were not valid UTF-8 as given.
    public init(_ arguments: ArraySlice<String>, spec: CommandSpec, invalidUTF8: Set<Int> = []) throws(UsageError) {
        // A linear search of a few dozen options for a handful of words: cheaper per process than
        // building two dictionaries (and looking up Character's Hashable conformance at run time).
        command = spec.name
        let options = spec.options
        var index = arguments.startIndex
        if let first = spec.actions.first {
            var words: [String] = []
            // Leading words belong to the action while they still begin one (`device passcode
            // set`); a command with an operand takes the next word as it (`cloud init DIR`).
            while index < arguments.endIndex, words.count < 2, !arguments[index].hasPrefix("-") {
                let longer = (words + [arguments[index]]).joined(separator: " ")
                if !spec.operands.isEmpty, !words.isEmpty,
                    !spec.actions.contains(where: { $0.words == longer || $0.words.hasPrefix(longer + " ") })
                {
                    break
                }
                words.append(arguments[index])
                index += 1
            }
            let named = words.joined(separator: " ")
            guard words.isEmpty || spec.actions.contains(where: { $0.words == named }) else {
                throw UsageError(
                    "\(spec.name) takes one of these actions (the words given are not shown): "
                        + spec.actions.map(\.words).joined(separator: ", ") + ".")
            }
            action = words.isEmpty ? first.words : named
        }
        while index < arguments.endIndex {
            let word = arguments[index]
            let position = index - arguments.startIndex + 1
            index += 1
            if word == "--" {
                if spec.trailingCommand != nil {
                    trailing = Array(arguments[index...])
                    break
                }
                // After `--`, words are operands even when they look like options (`error -- -34018`).
                let rest = arguments[index...]
                guard rest.count <= spec.operands.count - operands.count else {
                    throw UsageError("unexpected argument after '--' (word \(position + 1), not shown); \(spec.name) takes options only.")
                }
                for restIndex in rest.indices where invalidUTF8.contains(restIndex) && invalidUTF8Operand == nil {
                    invalidUTF8Operand = spec.operands[operands.count + (restIndex - rest.startIndex)].name
                }
                operands += rest
                break
            }
            if word == "-h" || word == "--help" {
                helpRequested = true
                return
            }
            if operands.count < spec.operands.count, !word.hasPrefix("-") || word.dropFirst().allSatisfy(\.isNumber) {
                if invalidUTF8.contains(index - 1), invalidUTF8Operand == nil { invalidUTF8Operand = spec.operands[operands.count].name }
                operands.append(word)
                continue
            }
            var option: OptionSpec?
            var inlineValue: String?
            let shown: String
            if word.hasPrefix("--"), word.utf8.count > 2 {
                // Split at the "=" byte: as Characters, "=" and a combining mark after it are one,
                // and `--label=\u{301}x` would read as an unknown option.
                let body = word.utf8.dropFirst(2)
                let name = body.prefix { $0 != UInt8(ascii: "=") }
                option = options.first { $0.long.utf8.elementsEqual(name) }
                if name.count < body.count { inlineValue = String(decoding: body.dropFirst(name.count + 1), as: UTF8.self) }
                shown = "--" + String(decoding: name, as: UTF8.self)
            } else if word.hasPrefix("-"), word.count == 2, let short = word.last {
                option = options.first { $0.short == short }
                shown = word
            } else if spec.trailingCommand != nil {
                throw UsageError(
                    "unexpected argument (word \(position), not shown): put -- before the command, as in '\(spec.name) [options] -- CMD [ARG…]'."
                )
            } else {
                let takes = spec.operands.isEmpty ? "options only" : "options and " + spec.operands.map(\.name).joined(separator: " ")
                throw UsageError("unexpected argument (word \(position), not shown); \(spec.name) takes \(takes).")
            }
            guard let option else {
                throw UsageError("unknown option '\(shown.terminalSafe)' for \(spec.name)." + Self.suggestion(for: shown, in: spec))
            }
            if option.isFlag {
                guard inlineValue == nil else { throw UsageError("--\(option.long) takes no value.") }
                flags.insert(option.long)
                continue
            }
            let value: String
            let valueIndex: Int
            if let inlineValue {
                value = inlineValue
                valueIndex = index - 1
            } else if option.valueOptional, index == arguments.endIndex || arguments[index].hasPrefix("-") {
                value = ""
                valueIndex = index - 1
            } else {
                guard index < arguments.endIndex else {
                    throw UsageError("missing value for '\(shown)' (\(option.valueName!)).")
                }
                value = arguments[index]
                valueIndex = index
                index += 1
            }
            if invalidUTF8.contains(valueIndex), option.kind != .path {
                // Reported apart, as the program reports bad text (never checked as a value).
                if invalidUTF8Option == nil { invalidUTF8Option = option.long }
            } else if let accepts = option.accepts, !accepts(value) {
                throw UsageError("--\(option.long) does not take the value given (not shown); use \(option.expected).")
            }
            if !option.repeatable, values[option.long] != nil {
                throw UsageError("--\(option.long) was given more than once.")
            }
            values[option.long, default: []].append(value)
        }
        if operands.count < spec.requiredOperands {
            let missing = spec.operands[operands.count]
            throw UsageError("\(spec.name) needs \(missing.name): \(missing.help.prefix(1).lowercased() + missing.help.dropFirst())")
        }
    }

    /// These arguments in one spelling: the action's words, each option as `--long` or
    /// `--long=value`, then the operands (after `--` where the command runs none) and the trailing
    /// command after `--`. Parsed again they give these arguments (the argument fuzzer checks it).
    public func canonical(_ spec: CommandSpec) -> [String] {
        var words = action.map { $0.split(separator: " ").map(String.init) } ?? []
        let optionWords =
            flags.sorted().map { "--" + $0 } + values.keys.sorted().flatMap { name in values[name]!.map { "--\(name)=\($0)" } }
        if spec.trailingCommand != nil {
            words += operands + optionWords
            if let trailing { words += ["--"] + trailing }
        } else {
            words += optionWords + (operands.isEmpty ? [] : ["--"] + operands)
        }
        return words
    }

    /// Whether `other` holds the same action, options, operands and trailing command.
    public func sameArguments(as other: ParsedArguments) -> Bool {
        action == other.action && values == other.values && flags == other.flags && operands == other.operands
            && trailing == other.trailing
    }

    /// Whether `part`'s bytes occur in `whole`'s.
    private static func contains(_ whole: String, _ part: String) -> Bool {
        let whole = Array(whole.utf8)
        let part = Array(part.utf8)
        guard part.count <= whole.count else { return false }
        return (0...(whole.count - part.count)).contains { whole[$0..<($0 + part.count)].elementsEqual(part) }
    }

    /// " Did you mean '--x'?" when one of `spec`'s long options is close to `shown`; empty otherwise.
    private static func suggestion(for shown: String, in spec: CommandSpec) -> String {
        let typed = shown.drop { $0 == "-" }.lowercased()
        guard typed.count > 1 else { return "" }
        let scored = spec.options.map { option -> (OptionSpec, Int) in
            let name = option.long
            if Self.contains(name, typed) || Self.contains(typed, name) { return (option, 0) }
            // Against the whole name and each of its hyphenated tails: "pasword" is near "set-password".
            let words = name.split(separator: "-")
            let tails = words.indices.map { words[$0...].joined(separator: "-") }
            return (option, tails.map { EditDistance.between(typed, $0) }.min() ?? Int.max)
        }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= max(1, typed.count / 4) else { return "" }
        return " Did you mean '--\(best.0.long)'?"
    }

    /// The value of `option`, parsed (the parser checked it); `nil` when not given. Inlinable, as
    /// every generic of the framework, so a command's read is specialised for its type.
    @inlinable public subscript<Value>(option: Option<Value>) -> Value? {
        values[option.spec.long]?.last.flatMap(option.parse)
    }

    /// Every value of a repeatable `option`, in order, each parsed (the parser checked them).
    @inlinable public func all<Value>(_ option: Option<Value>) -> [Value] {
        // An option not in the command's spec was never given, so every value here was checked.
        (values[option.spec.long] ?? []).compactMap(option.parse)
    }

    /// Whether `flag` was given.
    public subscript(flag: Flag) -> Bool {
        flags.contains(flag.spec.long)
    }

    /// The text given for `option`, unparsed: for reporting an error in the format asked for
    /// before the command's own options are read.
    public func rawValue(of option: OptionSpec) -> String? { values[option.long]?.last }

    /// (code, value) for each option of `table` that was given, in the table's order.
    public func attributes(from table: [(spec: OptionSpec, code: String)]) -> [(code: String, value: String)] {
        table.compactMap { spec, code in
            values[spec.long]?.last.map { (code, $0) }
        }
    }
}
