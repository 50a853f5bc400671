import CommandLineKit
import KeychainCore

/// How `lint` and `matrix` are given the targets they compare, declared once and read alike:
/// `--target NAME=PATH` (and `--profile`, matrix's older spelling), `--app` for every target of a
/// built app (or, for a command that takes one, the app as its operand), and `--provisioning
/// NAME=PATH` for the profile that signs one. A built app, archive or `.ipa` named by `--target`
/// brings every target inside it too, as `--app` does: checking its main target alone would pass
/// on exactly the mistakes between an app and its extensions.
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
        if arguments[NamedPath.appOption] != nil, arguments.operand != nil {
            throw UsageError("\(command) takes a built app once: as --app PATH or as its operand, not both.")
        }
        guard try !named(arguments).isEmpty || app(arguments) != nil else {
            throw UsageError("\(command) needs a --target NAME=PATH for each target \(purpose), or --app PATH for a built app's.")
        }
    }

    /// The targets, a built app's read from its bundle, and the provisioning profile given for each.
    static func resolve(_ arguments: ParsedArguments) throws -> (targets: [NamedPath], provisioning: [String: String]) {
        let targets = try named(arguments).flatMap(expanding) + (try app(arguments).map(NamedPath.app) ?? [])
        return (targets, try NamedPath.attach(try attachedProvisioning(arguments), option: provisioning.spec.long, to: targets))
    }

    /// The built app `--app` names, or the command's operand.
    private static func app(_ arguments: ParsedArguments) -> String? { arguments[NamedPath.appOption] ?? arguments.operand }

    /// A target whose path is a built app, archive or `.ipa` holding more than one target: its main
    /// target under the name given, then the others under their bundle identifiers. Any other
    /// target as it is.
    private static func expanding(_ target: NamedPath) throws -> [NamedPath] {
        let path = target.path.hasSuffix("/") ? String(target.path.dropLast()) : target.path
        guard [".app", ".ipa", ".xcarchive"].contains(where: { path.lowercased().hasSuffix($0) }) else { return [target] }
        let inside = try NamedPath.app(path)
        guard let main = inside.first, inside.count > 1 else { return [target] }
        return [NamedPath(name: target.name, path: main.path)] + inside.dropFirst()
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
