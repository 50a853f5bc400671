import CommandLineKit
import KeychainCore
import TextEscaping

/// `keychainctl groups`: the profile's access-group list.
struct GroupsCommand: Subcommand {
    static let name = "groups"

    static let spec = CommandSpec(
        name: name,
        abstract: "Print the profile's access groups in Apple's order, with sources, default and writability.",
        discussion: """
            When the keychain exists and a key file or KEYCHAINCTL_KEY opens it, the simulated device's state is \
            shown too, with the classes it makes unavailable.
            """,
        sections: [("options", [NamedPath.appOption.spec]), GlobalOptions.section],
        examples: [
            Example("keychainctl groups", "The access groups of the profile in force, and where it came from."),
            Example("keychainctl groups --profile share-extension.plist --format json", "An extension's groups, as JSON."),
        ])

    let context: CommandContext

    func run() throws {
        if let app = context[NamedPath.appOption] { return try runApp(app) }
        let profile = try context.loadProfile()
        let device = try context.keychainIfKeyAtHand()?.device
        let renderer = ProfileRenderer(profile: profile, source: context.profileSource)
        switch context.resolvedFormat {
        case .json:
            var object = renderer.json
            if let device {
                object["device"] = .object([
                    "state": .string(device.lock.rawValue), "passcode": .bool(device.passcode),
                    "unavailable": .array(Accessibility.allCases.filter { !device.allows($0) }.map { .string($0.rawValue) }),
                ])
            }
            StandardStreams.out(JSON.render(.object(object)) + "\n")
        case .text:
            var out = renderer.text
            if let device {
                let unavailable = Accessibility.allCases.filter { !device.allows($0) }
                out += "device: \(device.lock.rawValue), \(device.passcode ? "passcode set" : "no passcode")"
                out +=
                    unavailable.isEmpty
                    ? "; every accessibility class is available\n"
                    : "; unavailable: \(unavailable.map { "\($0.longName) (\($0.rawValue))" }.joined(separator: ", ")) (exit 36)\n"
            }
            StandardStreams.out(out)
        }
    }

    /// `--app`: each target of the built app, one block (or JSON object) per target.
    private func runApp(_ app: String) throws {
        let targets = try NamedPath.app(app)
        let profiles = try targets.map { try context.loadProfile(path: $0.path, provisioning: nil) }
        switch context.resolvedFormat {
        case .json:
            let objects: [JSON.Value] = zip(targets, profiles).map { target, profile in
                var object = ProfileRenderer(profile: profile).json
                object["target"] = .string(target.name)
                return .object(object)
            }
            StandardStreams.out(JSON.render(.array(objects)) + "\n")
        case .text:
            StandardStreams.out(
                zip(targets, profiles).map { target, profile in
                    "target: \(target.name.terminalSafe)\n" + ProfileRenderer(profile: profile).text
                }
                .joined(separator: "\n"))
        }
    }
}
