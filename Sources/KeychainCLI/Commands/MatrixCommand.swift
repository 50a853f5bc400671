import CommandLineKit
import KeychainCore

/// `keychainctl matrix`: items (or groups) × targets, who may read and write what, and where each
/// target's adds without a group land.
struct MatrixCommand: Subcommand {
    static let name = "matrix"

    static let spec = CommandSpec(
        name: name,
        abstract: "Show which targets (app, extensions) may read and write each item, and where each one's adds land.",
        discussion: """
            Give each target as --target NAME=PATH (its entitlements, a built bundle or its executable; \
            --profile NAME=PATH is the same), with --provisioning NAME=PATH for the profile that signs it, or \
            --app PATH for a built app and every target inside it. The item options select the rows (class, attributes, --group); every target's \
            access groups, the sync filter, tombstones and the device state make the cells: RW read-write, R \
            read-only, — hidden, each with a letter saying why. Nothing is written and no secret is read.
            """,
        sections: [
            (
                "options",
                TargetOptions.specs + [Self.by.spec, Self.teamChange.spec]
            ),
            ItemOptions.section,
            (
                ProgramSpec.globalSectionTitle,
                GlobalOptions.specs.filter {
                    ![TargetOptions.profile.spec.long, TargetOptions.provisioning.spec.long, TargetOptions.target.spec.long].contains(
                        $0.long)
                }
            ),
        ],
        examples: [
            Example(
                "keychainctl matrix --target app=app.plist --target share=share-extension.plist --target widget=widget.plist",
                "Which target reads and writes each item, and where each one's adds land."
            ),
            Example(
                "keychainctl matrix --app App.ipa --by group",
                "The same for every target of a built app, by access group (with no keychain: what the entitlements allow)."),
        ])

    static let by = Option.choice("by", nil, "item|group", "One row per item (default) or per access group.") {
        ["item": false, "group": true][$0]
    }
    static let teamChange = TeamChangeOption.option(
        "Add a column per target for its build signed by this team, and say which groups' items each loses.")

    let context: CommandContext

    func validate() throws(UsageError) { try TargetOptions.validate(context.arguments, command: Self.name, for: "to compare") }

    func run() throws {
        let (item, teamChange) = (ItemOptions(context.arguments), context[Self.teamChange])
        let (targets, provisioning) = try TargetOptions.resolve(context.arguments)
        let profiles = try targets.map { try context.loadProfile(path: $0.path, provisioning: provisioning[$0.name]) }
        // With no keychain, what the entitlements alone say: where adds land and who may read them.
        if teamChange == nil, item.request().attributes.isEmpty, (try? KeychainStore.checkExists(context.keychainPath)) == nil {
            let callers = zip(targets, profiles).map { Caller(name: $0.name, groups: $1.accessGroups) }
            let renderer = MatrixRenderer(
                matrix: AccessMatrix.entitlementsOnly(callers), profiles: profiles, teamChanges: [], request: item.request(), device: nil,
                byGroup: true, missingKeychain: context.keychainPath)
            switch context.resolvedFormat {
            case .json: StandardStreams.out(JSON.render(renderer.json) + "\n")
            case .text: StandardStreams.out(renderer.text)
            }
            return
        }
        let keychain = try context.openKeychain()
        let request = item.request()
        var callers = zip(targets, profiles).map { Caller(name: $0.name, groups: $1.accessGroups) }
        var columns = profiles
        var reports: [TeamChangeReport] = []
        if let teamChange {
            // One more column per target: the same target as the new team's build signs it.
            for (target, profile) in zip(targets, profiles) {
                let report = try keychain.assess(profile, movingTo: teamChange)
                reports.append(report)
                callers.append(Caller(name: "\(target.name)@\(teamChange)", groups: report.moved))
                columns.append(profile)
            }
        }
        let matrix = try keychain.matrix(request, targets: callers)
        let renderer = MatrixRenderer(
            matrix: matrix, profiles: columns, teamChanges: reports, request: request, device: keychain.device,
            byGroup: context[Self.by] ?? false)
        switch context.resolvedFormat {
        case .json: StandardStreams.out(JSON.render(renderer.json) + "\n")
        case .text: StandardStreams.out(renderer.text)
        }
    }
}
