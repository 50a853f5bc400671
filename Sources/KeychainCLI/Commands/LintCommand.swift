import Glibc
import KeychainCore

/// `keychainctl lint`: checks entitlement and provisioning files, before anything is built or
/// shipped, for the mistakes that make keychain sharing fail (research `debugging-anchors.md` §3).
struct LintCommand: Subcommand {
    static let spec = CommandSpec(
        name: "lint",
        abstract: "Check targets' entitlements and provisioning profiles for keychain-sharing mistakes, like a compiler.",
        discussion: """
            Give each target as --target NAME=PATH (its signed entitlements: codesign output, an .xcent, or the \
            source .entitlements), with --provisioning NAME=PATH for the profile that signs it and --source NAME=PATH \
            for its source .entitlements. Findings are printed most severe first, each with the runtime status it \
            causes and the fix. Exit 0 without errors, 65 with at least one, 78 when a file cannot be read. Nothing \
            is opened but the files named: no keychain is needed.
            """,
        sections: [
            (
                "options",
                [
                    .value(
                        "target", nil, "name=path", repeatable: true, "One target: its name and claimed entitlements (repeat per target)."),
                    .value("provisioning", nil, "name=path", repeatable: true, "The provisioning profile that signs the target NAME."),
                    .value(
                        "source", nil, "name=path", repeatable: true,
                        "The source .entitlements of the target NAME, to compare with what was signed."),
                    .value(
                        "code-group", nil, "group", repeatable: true, "An access group the code passes as kSecAttrAccessGroup (repeat)."),
                    TeamChangeOption.spec("Also say which groups stop matching if the app moves to this team (KC016)."),
                    .value("now", nil, "iso-8601", "The time expiry is judged at (default: now), as 2026-11-24T00:00:00Z."),
                    .value("format", nil, "text|json|sarif", "Output format (env KEYCHAINCTL_FORMAT for text or json; default text)."),
                ]
            ),
            (
                "global options",
                GlobalOptions.specs.filter { ["platform", "team-id"].contains($0.long) }
            ),
        ])

    /// Report formats.
    enum Format: String {
        case text, json, sarif
    }

    var globals: GlobalOptions
    let targets: [NamedPath]
    let provisioning: [String: String]
    let sources: [String: String]
    let codeGroups: [String]
    let teamChange: String?
    let now: Int64?
    let format: Format?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        globals = try GlobalOptions(arguments)
        targets = try NamedPath.parse(arguments.all("target"), option: "target")
        guard !targets.isEmpty else { throw UsageError("lint needs a --target NAME=PATH for each target to check.") }
        provisioning = try NamedPath.attach(arguments.all("provisioning"), option: "provisioning", to: targets)
        sources = try NamedPath.attach(arguments.all("source"), option: "source", to: targets)
        codeGroups = arguments.all("code-group")
        teamChange = try TeamChangeOption.parse(arguments)
        now = try arguments.value("now", choices: "an ISO-8601 UTC time such as 2026-11-24T00:00:00Z", ISO8601.parse)
        format = try arguments.value("format", choices: "text, json or sarif", Format.init(rawValue:))
        // Errors (exit 78) are reported as JSON when the report would be JSON or SARIF.
        globals.format = format.map { $0 == .text ? .text : .json }
    }

    func run() throws {
        let lintTargets = try targets.map { named in
            let claims = try ProfileDocument.load(path: named.path)
            let profile = try provisioning[named.name].map { path in
                try ProvisioningProfile(try ProfileDocument.load(path: path), path: path)
            }
            let sourcePath = sources[named.name]
            return LintTarget(
                name: named.name, claimsPath: named.path, claims: claims, provisioning: profile, sourcePath: sourcePath,
                source: try sourcePath.map { try ProfileDocument.load(path: $0) })
        }
        var linter = Linter(targets: lintTargets, now: now ?? Int64(time(nil)) * 1000)
        linter.codeGroups = codeGroups
        linter.platform = globals.platform ?? Environment.value("KEYCHAINCTL_PLATFORM").flatMap(Platform.init(rawValue:))
        linter.teamID = globals.teamID ?? Environment.value("KEYCHAINCTL_TEAM_ID")
        linter.teamChange = teamChange
        let findings = linter.run()
        let files = Set(lintTargets.flatMap { [$0.claimsPath, $0.provisioning?.path, $0.sourcePath].compactMap { $0 } }).count
        let renderer = LintRenderer(findings: findings, files: files)
        switch format ?? Environment.value("KEYCHAINCTL_FORMAT").flatMap(Format.init(rawValue:)) ?? .text {
        case .text: StandardStreams.out(renderer.text)
        case .json: StandardStreams.out(JSON.render(renderer.json) + "\n")
        case .sarif: StandardStreams.out(JSON.render(renderer.sarif) + "\n")
        }
        if findings.contains(where: { $0.severity == .error }) { throw SilentExit(code: ExitStatusTable.lintErrors) }
    }
}
