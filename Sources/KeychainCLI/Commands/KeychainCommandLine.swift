import CommandLineKit
import Glibc
import KeychainCore
import KeychainPlatform
import TextEscaping

/// The `keychainctl` entry point: parse, run one command, map any failure to its exit status.
///
/// The command line is parsed by the small declarative parser in this module rather than
/// swift-argument-parser: measured on `find`, swift-argument-parser's reflection took 16 of 24.5
/// million instructions (5.7 ms a call against a 3.4 ms target), and every call is a new process.
public enum KeychainCommandLine {
    /// The subcommands, in help order (metatypes are not Sendable, so no stored global).
    static var commands: [any Subcommand.Type] {
        [
            InitCommand.self, UnlockCommand.self, LockCommand.self, SetCommand.self, GetCommand.self, ListCommand.self,
            RemoveCommand.self, AddCommand.self, FindCommand.self, UpdateCommand.self,
            DeleteCommand.self, MigrateGroupCommand.self, ImportCommand.self, ExportCommand.self, BackupCommand.self, ExecCommand.self,
            RekeyCommand.self, CloudCommand.self, SyncCommand.self, GroupsCommand.self, ProfileCommand.self, VerifyCommand.self,
            DeviceCommand.self,
            ExplainCommand.self,
            MatrixCommand.self, LintCommand.self, ErrorCommand.self, CompletionCommand.self, ManPageCommand.self,
        ]
    }

    /// Runs `arguments` (without the program name) and returns the exit status. `invalidUTF8`
    /// holds the indices of arguments that were not valid UTF-8 as the process received them.
    public static func run(_ arguments: [String], invalidUTF8: Set<Int> = []) -> Int32 {
        if let order = globalOptionsFirst(arguments) {
            return run(order.map { arguments[$0] }, invalidUTF8: Set(order.indices.filter { invalidUTF8.contains(order[$0]) }))
        }
        // `help VERB` is `VERB --help`, as git and swift spell it.
        if arguments.first == "help", arguments.count == 2 {
            guard commands.contains(where: { $0.name == arguments[1] }) else { return unknownSubcommand(arguments[1]) }
            return run([arguments[1], "--help"])
        }
        guard let name = arguments.first, name != "-h", name != "--help", name != "help" else {
            StandardStreams.out(HelpText.root(commands.map { $0.spec }, program: KeychainProgram.spec))
            return arguments.isEmpty ? 64 : 0
        }
        if name == "--version" {
            // `--version`, optionally with `--format text|json` (or KEYCHAINCTL_FORMAT).
            let rest = Array(arguments.dropFirst())
            var format = GlobalOptions.format.environmentValue.flatMap(OutputFormat.init(rawValue:)) ?? .text
            if !rest.isEmpty {
                guard rest.count == 2, rest[0] == "--format", let given = OutputFormat(rawValue: rest[1]) else {
                    return usage("--version takes only --format text|json.", command: nil)
                }
                format = given
            }
            StandardStreams.out(format == .json ? JSON.render(VersionReport.json) + "\n" : VersionReport.text)
            return 0
        }
        guard let type = commands.first(where: { $0.name == name }) else { return unknownSubcommand(name) }
        let command: any Subcommand
        do {
            let parsed = try ParsedArguments(arguments.dropFirst(), spec: type.spec, invalidUTF8: invalidUTF8)
            if parsed.helpRequested {
                StandardStreams.out(HelpText.render(type.spec, program: KeychainProgram.spec))
                return 0
            }
            let invalidText =
                parsed.invalidUTF8Option.map {
                    "the value of --\($0) is not valid UTF-8; attribute text must be UTF-8 "
                        + "(give the bytes of a data attribute as base64:...). Nothing was done."
                }
                ?? parsed.invalidUTF8Operand.map {
                    "\($0) is not valid UTF-8 (the word is not shown): a name is kept byte for byte or refused, never "
                        + "converted, since two names converted alike would be one item. Nothing was done."
                }
            if let invalidText {
                let error = KeychainError(.param, hint: invalidText)
                return ErrorReporter.report(error, format: parsed.rawValue(of: GlobalOptions.format.spec) == "json" ? .json : .text)
            }
            command = try type.validated(parsed)
        } catch {
            return usage(error.description, command: type.name)
        }
        do {
            _ = try SettingVariable.format.word(allowed: "text or json") { OutputFormat(rawValue: $0) != nil }
            try command.run()
            return 0
        } catch let error as UsageError {
            return usage(error.description, command: type.name)
        } catch {
            return ErrorReporter.report(error, format: command.errorFormat)
        }
    }

    /// Global options given before the subcommand (`keychainctl --keychain k.db get api`, as git and
    /// kubectl take them): the order of `arguments` that puts them after it, and before any `--`,
    /// where its parser reads them; `nil` when nothing needs moving. A word that is not one of the
    /// global options stops the scan, and the subcommand's parser reports it as before.
    static func globalOptionsFirst(_ arguments: [String]) -> [Int]? {
        var index = 0
        while index < arguments.count, arguments[index].hasPrefix("-"), arguments[index] != "-", arguments[index] != "--" {
            let word = arguments[index]
            let name = word.hasPrefix("--") ? String(word.dropFirst(2).prefix { $0 != "=" }) : nil
            guard
                let option = GlobalOptions.specs.first(where: { spec in
                    name.map { spec.long == $0 } ?? (word.count == 2 && spec.short == word.last)
                })
            else { break }
            index += option.isFlag || word.contains("=") ? 1 : 2
        }
        guard index > 0, index < arguments.count, commands.contains(where: { $0.name == arguments[index] }) else { return nil }
        let rest = Array(index + 1..<arguments.count)
        let end = rest.firstIndex { arguments[$0] == "--" } ?? rest.endIndex
        return [index] + rest[..<end] + Array(0..<index) + rest[end...]
    }

    /// The program's name, as its pages and completion scripts spell it.
    static let program = "keychainctl"

    /// The completion script for `shell` (`nil` for a shell there is none for), with keychainctl's
    /// words for the options that have usual values.
    static func completionScript(for shell: String) -> String? {
        Suggestions.provider = Suggestions.keychainWords
        return ShellCompletion.script(for: shell, program: program, commands: commands.map { $0.spec })
    }

    /// Every subcommand's name, in help order (for the argument fuzzer).
    package static var commandNames: [String] { commands.map { $0.name } }

    /// Parses an `exec` QUERY as `exec` does; whether it is one (for the argument fuzzer).
    package static func parsesAsQuery(_ text: String) -> Bool { (try? SecretQuery.parse(text, name: "fuzz")) != nil }

    /// Whether `arguments`, when they parse, parse the same again in their canonical spelling
    /// (`ParsedArguments.canonical`); true when they do not parse.
    package static func parsesTheSameCanonically(_ arguments: [String]) -> Bool {
        guard let name = arguments.first, let type = commands.first(where: { $0.name == name }),
            let parsed = try? ParsedArguments(arguments.dropFirst(), spec: type.spec), !parsed.helpRequested
        else { return true }
        let canonical = parsed.canonical(type.spec)
        guard let again = try? ParsedArguments(canonical[...], spec: type.spec) else { return false }
        return again.sameArguments(as: parsed)
    }

    /// Parses `arguments` as `run` does and builds the command, without running it: what the
    /// argument fuzzer drives. Returns 0, or 64 for a usage error.
    package static func parseOnly(_ arguments: [String]) -> Int32 {
        guard let name = arguments.first, let type = commands.first(where: { $0.name == name }) else { return 64 }
        do {
            let parsed = try ParsedArguments(arguments.dropFirst(), spec: type.spec)
            if !parsed.helpRequested { _ = try type.validated(parsed) }
            return 0
        } catch {
            _ = error.description
            return ExitStatusTable.usage
        }
    }

    /// Runs the process's command line and exits. Before anything is read, the process is made
    /// undumpable: no core file and no same-user ptrace can copy a key or a secret; then SQLite is
    /// configured for one command. A run whose output could not all be written exits 74, never 0.
    public static func main() -> Never {
        // The fresh image exec starts to give its command a view of its own becomes that command.
        Spawn.becomeViewIfAsked()
        if !ProcessGuard.protectMemory() {
            StandardStreams.warn("cannot turn off core dumps for this process; a crash could write secrets to disk.")
        }
        SQLiteConnection.configureForOneCommand()
        // A static Swift runtime reads the arguments from /proc: with no descriptor left to open it
        // (RLIMIT_NOFILE 3), there are none to run.
        guard CommandLine.argc >= 1 else {
            StandardStreams.err(
                "keychainctl: cannot read the command line: \(SystemError.text(EMFILE)) (the open-file limit is too low).\n")
            exit(ExitStatusTable.ioFailure)
        }
        // Called by a credential helper's name (a link to this binary), it speaks that protocol.
        let called = CommandLine.arguments[0].split(separator: "/").last.map(String.init) ?? ""
        if called == GitCredentialHelper.programName {
            exit(StandardStreams.finish(GitCredentialHelper.run(Array(CommandLine.arguments.dropFirst()))))
        }
        if called == DockerCredentialHelper.programName {
            exit(StandardStreams.finish(DockerCredentialHelper.run(Array(CommandLine.arguments.dropFirst()))))
        }
        exit(StandardStreams.finish(run(Array(CommandLine.arguments.dropFirst()), invalidUTF8: invalidUTF8Arguments())))
    }

    /// Indices (in the arguments after the program name) of the words that are not valid UTF-8.
    private static func invalidUTF8Arguments() -> Set<Int> {
        var invalid: Set<Int> = []
        for index in 1..<Int(CommandLine.argc) {
            guard let word = CommandLine.unsafeArgv[index] else { continue }
            let bytes = UnsafeRawBufferPointer(start: word, count: strlen(word))
            if String(validating: bytes.bindMemory(to: UInt8.self), as: UTF8.self) == nil { invalid.insert(index - 1) }
        }
        return invalid
    }

    /// The words other tools use for these verbs (`pass`, `secret-tool`, `security`), and what
    /// each is here.
    static let otherToolsWords = [
        "list": "ls", "show": "get", "read": "get", "lookup": "get", "insert": "set", "store": "set", "remove": "rm",
        "clear": "rm", "version": "--version",
    ]

    /// `word` in the subcommand's place is none: an option there is called one, and the nearest
    /// subcommand or option (within a third of its length, or another tool's word for it) is offered.
    private static func unknownSubcommand(_ word: String) -> Int32 {
        let isOption = word.hasPrefix("-")
        var known = commands.map { $0.name } + ["help"] + otherToolsWords.keys.sorted()
        var typed = word.count
        if isOption {
            known = ["--version", "--help"] + GlobalOptions.specs.map { "--" + $0.long }
            typed -= 2
        }
        var suggestion = ""
        if let near = EditDistance.nearest(word, among: known, within: max(1, typed / 3)) {
            suggestion = " Did you mean '\(otherToolsWords[near] ?? near)'?"
        }
        if isOption { return usage("unknown option '\(word)' before any subcommand.\(suggestion)", command: nil) }
        return usage("unknown subcommand '\(word)'.\(suggestion)", command: nil)
    }

    private static func usage(_ message: String, command: String?) -> Int32 {
        let help = command.map { "keychainctl \($0) --help" } ?? "keychainctl --help"
        // Usage errors are one line quoting words of the command line: every control character, a
        // line break too, is escaped here, once, whatever built the text (as ErrorReporter does for
        // every other failure).
        StandardStreams.err("keychainctl: \(message.terminalSafe)\nSee '\(help)'.\n")
        return ExitStatusTable.usage
    }
}

/// A subcommand: its spec, the rules between its options, and what it does. Its options are
/// declared once, as constants its spec lists; their values are checked as the command line is
/// parsed, and read where they are used (`context[Self.limit]`), never copied into properties.
protocol Subcommand {
    /// The command's name: found by it without building every command's spec.
    static var name: String { get }
    static var spec: CommandSpec { get }
    /// Whether the command declares its own `--format` (the global one is then not read).
    static var ownsFormat: Bool { get }
    /// Whether `--auth-ui skip` may leave protected items out of its results (find alone).
    static var allowsAuthUISkip: Bool { get }
    init(context: CommandContext)
    var context: CommandContext { get }
    /// The rules between options and operands (one of two, one going with another, an operand
    /// needed), checked before anything is read or run, as swift-argument-parser's `validate`.
    func validate() throws(UsageError)
    func run() throws
    /// The format an error is reported in.
    var errorFormat: OutputFormat { get }
}

extension Subcommand {
    static var ownsFormat: Bool { false }
    static var allowsAuthUISkip: Bool { false }
    func validate() throws(UsageError) {}
    var errorFormat: OutputFormat { context.resolvedFormat }

    /// The command for `arguments`, its global and own rules checked.
    static func validated(_ arguments: ParsedArguments) throws(UsageError) -> Self {
        let command = Self(context: try CommandContext(arguments, ownFormat: ownsFormat, allowsAuthUISkip: allowsAuthUISkip))
        try command.validate()
        return command
    }
}
