import Glibc
import KeychainCore

/// `keychainctl profile`: the profile used when none is given, to read or to start one's own from.
struct ProfileCommand: Subcommand {
    static let name = "profile"

    static let spec = CommandSpec(
        name: name,
        abstract: "Print the built-in profile, or where the user's default profile goes.",
        discussion: """
            With neither --profile nor KEYCHAINCTL_PROFILE, keychainctl acts as the user's default profile \
            ($XDG_CONFIG_HOME/keychainctl/profile.plist) when it exists, else as its built-in profile: one \
            access group of its own, \(BuiltInProfile.group). 'keychainctl groups' says which one is in force. \
            To start a default of your own: keychainctl profile show > "$(keychainctl profile path)" (its \
            folder must exist), then edit it.
            """,
        sections: [(GlobalOptions.sectionTitle, [GlobalOptions.format.spec])],
        actions: [
            ("show", "Print the built-in profile as an XML property list (the default)."),
            ("path", "Print the path of the user's default profile, and whether it exists (on stderr)."),
        ])

    static let examples: [Example] = [
        Example("keychainctl profile show > my-profile.plist", "Start a profile of your own from the built-in one.")
    ]

    let context: CommandContext
    let action: String

    init(_ arguments: ParsedArguments) throws(UsageError) {
        context = try CommandContext(arguments)
        action = arguments.action ?? "show"
    }

    func run() throws {
        guard action == "path" else { return StandardStreams.out(BuiltInProfile.plist) }
        guard let path = ProfileSource.userDefaultPath else {
            throw ConfigurationError(
                "neither XDG_CONFIG_HOME nor HOME is an absolute folder, so there is no default profile: the built-in one is used.")
        }
        let exists = access(path, F_OK) == 0
        switch context.resolvedFormat {
        case .json: StandardStreams.out(JSON.render(.object(["path": .string(path), "exists": .bool(exists)])) + "\n")
        case .text:
            StandardStreams.out(path + "\n")
            if !exists { StandardStreams.warn("\(path.terminalSafe) does not exist: the built-in profile is used.") }
        }
    }
}
