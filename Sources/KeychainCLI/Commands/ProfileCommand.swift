import CommandLineKit
import Glibc
import KeychainCore
import TextEscaping

/// `keychainctl profile`: the profile used when none is given, to read or to start one's own from.
struct ProfileCommand: Subcommand {
    static let name = "profile"
    static let target = Option.text(
        "target", nil, "ID", "With a built app as --profile: the target (its bundle identifier) whose entitlements to print.")
    static let program = Option.text(
        "program", "NAME", "The profile a Swift program of this file name acts as with no profile (its own group).")

    static let spec = CommandSpec(
        name: name,
        abstract: "Print the built-in profile, a built target's signed entitlements, or where the user's default profile goes.",
        discussion: """
            With neither --profile nor KEYCHAINCTL_PROFILE, keychainctl acts as the user's default profile \
            ($XDG_CONFIG_HOME/keychainctl/profile.plist) when it exists, else as its built-in profile: one \
            access group of its own, \(BuiltInProfile.group). 'keychainctl groups' says which one is in force. \
            To start a default of your own: keychainctl profile show > "$(keychainctl profile path)" (its \
            folder must exist), then edit it. With --profile, show prints that profile's entitlements \
            instead, as signed: from a built app, .ipa or archive the app's, or with --target ID the \
            extension's of that bundle identifier; an XML plist to edit and give back to lint --target. \
            A Swift program using the Security library with no profile is an app of its own, as on Apple \
            platforms: its group is \(BuiltInProfile.programGroup(executable: "NAME")), NAME its executable's \
            file name; show --program NAME prints that profile, for the command to read or store what the \
            program does.
            """,
        sections: [
            ("options", [Self.target.spec, Self.program.spec]),
            (ProgramSpec.globalSectionTitle, [GlobalOptions.profile.spec, GlobalOptions.format.spec]),
        ],
        actions: [
            ("show", "Print the built-in profile, or with --profile its entitlements, as an XML property list (the default)."),
            ("path", "Print the path of the user's default profile, and whether it exists (on stderr)."),
        ],
        examples: [
            Example("keychainctl profile show > my-profile.plist", "Start a profile of your own from the built-in one."),
            Example(
                "keychainctl profile show --program myserver > myserver.plist",
                "The profile of the Swift program myserver, to give it a secret: keychainctl set api --profile myserver.plist."),
            Example(
                "keychainctl profile show --profile App.ipa --target com.example.app.widget > widget.entitlements",
                "Write the widget's signed entitlements as a plist to edit (then: keychainctl lint --target widget=widget.entitlements)."
            ),
        ])

    let context: CommandContext

    func validate() throws(UsageError) {
        for option in [Self.target, Self.program] where context[option] != nil && context.arguments.action != "show" {
            throw UsageError("--\(option.spec.long) goes with profile show.")
        }
        if context[Self.program] != nil, context[Self.target] != nil {
            throw UsageError("--target picks a target of a built app; a program given by --program has none.")
        }
        // Only the option: a KEYCHAINCTL_PROFILE in the environment is the caller's, not the program's.
        if context[Self.program] != nil, context.arguments[GlobalOptions.profile] != nil {
            throw UsageError("--program prints the profile a program has when it is given none; leave out --profile.")
        }
    }

    func run() throws {
        guard context.arguments.action == "path" else { return try show() }
        guard let path = ConfigFolder.defaultProfile else {
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

    /// The built-in profile (a program's, with --program), or the entitlements of --profile (of its
    /// --target), as XML.
    private func show() throws {
        let target = context[Self.target]
        if let program = context[Self.program] {
            return StandardStreams.out(BuiltInProfile.plist(group: BuiltInProfile.programGroup(executable: program)))
        }
        guard let path = context.given(GlobalOptions.profile) else {
            if target != nil { throw UsageError("--target picks a target of a built app: give the app as --profile.") }
            return StandardStreams.out(BuiltInProfile.plist)
        }
        var file = path
        if let target {
            let bundles = try AppBundle.targets(in: path)
            guard let bundle = bundles.first(where: { $0.identifier.map { $0.sameBytes(as: target) } ?? false }) else {
                let names = bundles.compactMap(\.identifier).map(\.terminalSafe).joined(separator: ", ")
                throw ConfigurationError("\(path.terminalSafe) has no target \(target.terminalSafe); its targets: \(names).")
            }
            file = bundle.path
        }
        let document = try ProfileDocument.load(path: file)
        StandardStreams.out(PlistXMLWriter.document(.dictionary(document.entitlements)))
    }
}
