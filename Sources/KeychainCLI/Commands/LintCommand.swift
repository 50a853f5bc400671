import CommandLineKit
import Glibc
import KeychainCore

/// `keychainctl lint`: checks entitlement and provisioning files, before anything is built or
/// shipped, for the mistakes that make keychain sharing fail (docs/DEBUGGING.md).
struct LintCommand: Subcommand {
    static let name = "lint"

    static let spec = CommandSpec(
        name: name,
        abstract: "Check targets' entitlements and provisioning profiles for keychain-sharing mistakes, like a compiler.",
        discussion: """
            Give a built app, archive or .ipa as --app PATH (or alone, as APP): every target inside it is checked \
            with the entitlements signed into it and its embedded profile. Or give each target as --target \
            NAME=PATH (its signed entitlements: codesign output, an .xcent, or the source .entitlements; a built \
            app there brings its extensions too), with --provisioning NAME=PATH and --source NAME=PATH. Exit 0 \
            without errors, 65 with at least one (or, with --strict, one warning), 78 when a file cannot be read.
            """,
        sections: [
            (
                "options",
                [NamedPath.appOption.spec, TargetOptions.target.spec, TargetOptions.profile.spec, TargetOptions.provisioning.spec] + [
                    Self.source.spec, Self.codeGroup.spec, Self.teamChange.spec, Self.now.spec, Self.format.spec, Self.strict.spec,
                    Self.warningsAsErrors.spec,
                ]
            ),
            (ProgramSpec.globalSectionTitle, [GlobalOptions.platform.spec, GlobalOptions.teamID.spec]),
        ],
        operands: [("APP", "A built app, archive or .ipa: the same as --app.")],
        examples: [
            Example(
                "keychainctl lint --app App.ipa",
                "Every target of a built app at once, each with the entitlements signed into it and its embedded profile."),
            Example(
                "keychainctl lint --target app=app.plist --target share=share-extension.plist",
                "Entitlement mistakes across two targets, before anything is built."
            ),
        ])

    static let source = Option.text(
        "source", nil, "name=path", repeatable: true, "The source .entitlements of the target NAME, to compare with what was signed.")
    static let codeGroup = Option.text(
        "code-group", nil, "group", repeatable: true, "An access group the code passes as kSecAttrAccessGroup (repeat).")
    static let teamChange = TeamChangeOption.option("Also say which groups stop matching if the app moves to this team (KC016).")
    static let now = Option(
        "now", nil, "iso-8601", expected: "an ISO-8601 UTC time such as 2026-11-24T00:00:00Z",
        "The time expiry is judged at (default: now), as 2026-11-24T00:00:00Z.", parse: ISO8601.parse)
    static let format = Option.choice(
        "format", nil, "text|json|sarif", environment: GlobalOptions.format.spec.environment,
        "Output format (the variable gives text or json; default text).", Format.init(rawValue:))

    static let strict = Flag("strict", "Exit 65 for warnings too, as for errors (what a CI gate wants).")
    static let warningsAsErrors = Flag("warnings-as-errors", "The same as --strict.")

    /// Report formats.
    enum Format: String {
        case text, json, sarif
    }

    static let ownsFormat = true

    let context: CommandContext

    func validate() throws(UsageError) {
        try TargetOptions.validate(context.arguments, command: Self.name, for: "to check")
        _ = try sources()
    }

    /// Errors (exit 78) are reported as JSON when the report would be JSON or SARIF.
    var errorFormat: OutputFormat { context[Self.format].map { $0 == .text ? .text : .json } ?? context.resolvedFormat }

    /// The `.entitlements` sources `--source` attaches to targets.
    private func sources() throws(UsageError) -> [NamedPath] {
        try NamedPath.attached(context.all(Self.source), option: Self.source.spec.long)
    }

    func run() throws {
        let (named, provisioning) = try TargetOptions.resolve(context.arguments)
        let sources = try NamedPath.attach(try sources(), option: Self.source.spec.long, to: named)
        let lintTargets = try named.map { named in
            let claims = try ProfileDocument.load(path: named.path)
            // A bundle brings its embedded provisioning profile, unless --provisioning names another.
            let profile = try (provisioning[named.name] ?? claims.embeddedProvisioning).map { path in
                try ProvisioningProfile.load(path: path)
            }
            let sourcePath = sources[named.name]
            return LintTarget(
                name: named.name, claimsPath: named.path, claims: claims, provisioning: profile, sourcePath: sourcePath,
                source: try sourcePath.map { try ProfileDocument.load(path: $0) }, buildSettings: context.buildSettings)
        }
        var linter = Linter(targets: lintTargets, now: context[Self.now] ?? Int64(time(nil)) * 1000)
        linter.codeGroups = context.all(Self.codeGroup)
        linter.platform = try context.resolvedPlatform()
        linter.teamID = context.teamID
        linter.teamChange = context[Self.teamChange]
        let findings = linter.run()
        let strict = context[Self.strict] || context[Self.warningsAsErrors]
        let files = Set(lintTargets.flatMap { [$0.claimsPath, $0.provisioning?.path, $0.sourcePath].compactMap { $0 } }).count
        let renderer = LintRenderer(findings: findings, files: files)
        switch context[Self.format] ?? Self.format.environmentValue.flatMap(Format.init(rawValue:)) ?? .text {
        case .text: StandardStreams.out(renderer.text)
        case .json: StandardStreams.out(JSON.render(renderer.json) + "\n")
        case .sarif: StandardStreams.out(JSON.render(renderer.sarif) + "\n")
        }
        if findings.contains(where: { $0.severity == .error || (strict && $0.severity == .warning) }) {
            throw SilentExit(code: ExitStatusTable.lintErrors)
        }
    }
}
