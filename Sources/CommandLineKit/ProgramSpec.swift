/// What a program's pages say besides its commands: its name and what it is, how root help groups
/// the commands, the global options by theme, and the environment, files and exit statuses the man
/// page and the reference list. Help, the man page, the reference and completion are rendered from
/// it and the commands' specs, so the framework holds no word of any one program.
public struct ProgramSpec: Sendable {
    /// One exit status: its number, the one line root help shows, and the full meaning the man
    /// page and the reference show.
    public struct ExitStatus: Sendable {
        public let exit: Int32
        public let summary: String
        public let meaning: String

        public init(exit: Int32, summary: String, meaning: String) {
            self.exit = exit
            self.summary = summary
            self.meaning = meaning
        }
    }

    /// The program's name, as its pages and completion scripts spell it.
    public var name: String
    /// What the program is, in one line (root help's overview, the man page's NAME).
    public var title: String
    /// What an invocation is (root help, the man page's DESCRIPTION, the reference's opening).
    public var overview: String
    /// Root help's examples: a command line and what it does (a shell comment after it).
    public var examples: [Example]
    /// The commands by what a user comes for, in root help's order: every command in one group.
    public var groups: [(title: String, commands: [String])]
    /// The options every command takes, by theme, in help order.
    public var globalOptions: [(title: String, options: [OptionSpec])]
    /// What the pages say of the global options before listing them; `code` is set as code.
    public var globalOptionsNote: String
    /// The global options a script uses, which the help of a command with `briefGlobalOptions` shows.
    public var everydayGlobalOptions: Set<String>
    /// The line such help ends its global options with, saying where the rest are.
    public var briefGlobalNote: String
    /// Where an everyday command's whole description is, which its brief `--help` leaves out.
    public var fullDescriptionNote: String
    /// The variables that stand in for no option (an option's own variable is listed from its spec).
    public var environment: [(name: String, meaning: String)]
    /// The files the program reads by default; a meaning may mark code as `code`.
    public var files: [(name: String, meaning: String)]
    /// Every exit status, in the reference's order.
    public var exitStatuses: [ExitStatus]
    /// What the reference says of the exit statuses before their table (Markdown).
    public var exitStatusIntro: String
    /// Root help's closing lines after the exit statuses.
    public var rootFooter: String
    /// The man page's SEE ALSO; `code` is set in bold.
    public var seeAlso: String

    public init(
        name: String, title: String, overview: String, examples: [Example], groups: [(title: String, commands: [String])],
        globalOptions: [(title: String, options: [OptionSpec])], globalOptionsNote: String, everydayGlobalOptions: Set<String>,
        briefGlobalNote: String, fullDescriptionNote: String = "",
        environment: [(name: String, meaning: String)], files: [(name: String, meaning: String)], exitStatuses: [ExitStatus],
        exitStatusIntro: String, rootFooter: String, seeAlso: String
    ) {
        self.fullDescriptionNote = fullDescriptionNote
        self.name = name
        self.title = title
        self.overview = overview
        self.examples = examples
        self.groups = groups
        self.globalOptions = globalOptions
        self.globalOptionsNote = globalOptionsNote
        self.everydayGlobalOptions = everydayGlobalOptions
        self.briefGlobalNote = briefGlobalNote
        self.environment = environment
        self.files = files
        self.exitStatuses = exitStatuses
        self.exitStatusIntro = exitStatusIntro
        self.rootFooter = rootFooter
        self.seeAlso = seeAlso
    }

    /// The title of the global options' section in a command's spec.
    public static let globalSectionTitle = "global options"

    /// Every global option, in help order.
    public var globalOptionSpecs: [OptionSpec] { globalOptions.flatMap(\.options) }

    /// `options` (a command's global options) by theme, leaving out empty themes.
    public func byTheme(_ options: [OptionSpec]) -> [(title: String, options: [OptionSpec])] {
        globalOptions.compactMap { theme in
            let members = options.filter { option in theme.options.contains { $0.long == option.long } }
            return members.isEmpty ? nil : (theme.title, members)
        }
    }

    /// Every variable the program reads: the ones that stand in for an option (in the order the
    /// global options and then the commands declare them), then `environment`.
    public func environmentRows(_ commands: [CommandSpec]) -> [(name: String, meaning: String)] {
        var rows: [(name: String, meaning: String)] = []
        for option in globalOptionSpecs + commands.flatMap(\.options) {
            guard let name = option.environment, !rows.contains(where: { $0.name == name }) else { continue }
            rows.append((name, "As --\(option.long): \(option.help)"))
        }
        return rows + environment
    }
}
