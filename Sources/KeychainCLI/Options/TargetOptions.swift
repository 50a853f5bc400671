import CommandLineKit
import KeychainCore

/// How `lint` and `matrix` are given the targets they compare, declared once and read alike:
/// `--target NAME=PATH` (and `--profile`, matrix's older spelling), `--app` for every target of a
/// built app, and `--provisioning NAME=PATH` for the profile that signs one.
enum TargetOptions {
    static let target = Option.text(
        "target", nil, "name=path", repeatable: true,
        "One target: its name and entitlements (a file, a built bundle or its executable; repeat per target).")
    /// The spelling matrix had before `--target`, kept by both commands.
    static let profile = Option.text("profile", nil, "name=path", repeatable: true, "The same as --target (matrix's older spelling).")
    static let provisioning = Option.text(
        "provisioning", nil, "name=path", repeatable: true, "The provisioning profile that signs the target NAME (repeat per target).")

    /// The options, for a command's spec.
    static let specs = [target.spec, profile.spec, NamedPath.appOption.spec, provisioning.spec]

    /// What can be checked before a bundle is read: every NAME=PATH, and that some target is given
    /// (the usage error says what `command` needs them `for`).
    static func validate(_ arguments: ParsedArguments, command: String, for purpose: String) throws(UsageError) {
        _ = try attachedProvisioning(arguments)
        guard try !named(arguments).isEmpty || arguments[NamedPath.appOption] != nil else {
            throw UsageError("\(command) needs a --target NAME=PATH for each target \(purpose), or --app PATH for a built app's.")
        }
    }

    /// The targets, `--app`'s read from its bundle, and the provisioning profile given for each.
    static func resolve(_ arguments: ParsedArguments) throws -> (targets: [NamedPath], provisioning: [String: String]) {
        let targets = try named(arguments) + (try arguments[NamedPath.appOption].map(NamedPath.app) ?? [])
        return (targets, try NamedPath.attach(try attachedProvisioning(arguments), option: provisioning.spec.long, to: targets))
    }

    /// The targets `--target` and `--profile` name.
    private static func named(_ arguments: ParsedArguments) throws(UsageError) -> [NamedPath] {
        try NamedPath.parse(arguments.all(target) + arguments.all(profile), option: target.spec.long)
    }

    /// The provisioning profiles `--provisioning` attaches to targets.
    private static func attachedProvisioning(_ arguments: ParsedArguments) throws(UsageError) -> [NamedPath] {
        try NamedPath.attached(arguments.all(provisioning), option: provisioning.spec.long)
    }
}
