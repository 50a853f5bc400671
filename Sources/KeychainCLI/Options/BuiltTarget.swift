import CommandLineKit
import KeychainCore
import TextEscaping

/// `--target BUNDLE_ID` beside a built app given as `--profile`: the target (the app, an
/// extension, a watch app, an App Clip) the call acts as, by the bundle identifier lint and
/// matrix print; without `--target`, the app, with a note naming the others.
enum BuiltTarget {
    /// Whether `path` names a built app, an archive or an `.ipa` (not a bundle inside one).
    static func isBuiltApp(_ path: String) -> Bool {
        let trimmed = path.hasSuffix("/") ? String(path.dropLast()) : path
        return [".app", ".ipa", ".xcarchive"].contains { trimmed.lowercased().hasSuffix($0) }
    }

    /// The profile path to load for `path` and `target`: the target's bundle inside a built app,
    /// or `path` itself.
    static func path(in path: String, target: String?) throws -> String {
        guard isBuiltApp(path) else {
            if let target {
                throw UsageError(
                    "--target \(target.terminalSafe) picks a target of a built app (.app, .ipa, .xcarchive); "
                        + "\(path.terminalSafe) is not one: give the app as --profile.")
            }
            return path
        }
        guard let target else {
            // The note is no reason to fail: an app whose targets cannot all be read (lint's
            // business) is still read alone, as before.
            if let targets = try? NamedPath.app(path), targets.count > 1 {
                StandardStreams.note(
                    "\(path) holds \(targets.count) targets: \(targets.map(\.name).joined(separator: ", ")); "
                        + "this call acts as \(targets[0].name), the app. --target BUNDLE_ID acts as another.")
            }
            return path
        }
        let targets = try NamedPath.app(path)
        if let chosen = targets.first(where: { $0.name == target }) { return chosen.path }
        let near = EditDistance.nearest(target, among: targets.map(\.name), within: max(1, target.count / 5))
        throw UsageError(
            "\(path.terminalSafe) has no target \(target.terminalSafe)\(near.map { " (did you mean \($0)?)" } ?? ""); "
                + "its targets: \(targets.map(\.name).joined(separator: ", ")).")
    }
}
