import CommandLineKit
import KeychainCore
import TextEscaping

/// A file given as `NAME=PATH` (or a bare `PATH`, named by its last component): how `matrix` and
/// `lint` name the targets they compare.
struct NamedPath: Equatable {
    let name: String
    let path: String

    /// The words of a repeatable option, each `NAME=PATH` or `PATH`. A name or a path given twice
    /// is a usage error: two columns of one name, or one file twice, are a mistake.
    static func parse(_ words: [String], option: String) throws(UsageError) -> [NamedPath] {
        var parsed: [NamedPath] = []
        for word in words {
            let entry: NamedPath
            if let equals = word.firstIndex(of: "="), equals != word.startIndex, !word[..<equals].contains("/") {
                entry = NamedPath(name: String(word[..<equals]), path: String(word[word.index(after: equals)...]))
            } else {
                entry = NamedPath(name: String(word.split(separator: "/").last ?? Substring(word)), path: word)
            }
            guard !entry.path.isEmpty else { throw UsageError("--\(option) '\(word.terminalSafe)' names no file.") }
            if parsed.contains(where: { $0.name == entry.name }) {
                throw UsageError("--\(option) names '\(entry.name.terminalSafe)' twice; give each target its own NAME=PATH.")
            }
            if parsed.contains(where: { $0.path == entry.path }) {
                throw UsageError("--\(option) gives '\(entry.path.terminalSafe)' twice.")
            }
            parsed.append(entry)
        }
        return parsed
    }

    /// Every target of the built app at `path` (`--app`): the app and what it embeds, each named by
    /// its bundle identifier (else its folder's name).
    static func app(_ path: String) throws -> [NamedPath] {
        try AppBundle.targets(in: path).map { bundle in
            NamedPath(name: bundle.identifier ?? String(bundle.path.split(separator: "/").last ?? ""), path: bundle.path)
        }
    }

    /// The option every command that takes a built app declares.
    static let appOption = Option.path(
        "app", valueName: "bundle",
        "A built app (.app, .ipa or .xcarchive): it and every target inside it (PlugIns, Extensions, Watch, AppClips), each named by its bundle identifier."
    )

    /// The entries of an option that attaches a file to targets (`--provisioning app=PATH`), parsed
    /// when the command is built; each is checked against the targets once they are known
    /// (`--app` names its targets only when the bundle is read).
    static func attached(_ words: [String], option: String) throws(UsageError) -> [NamedPath] {
        let entries = try parse(words, option: option)
        if let bare = zip(words, entries).first(where: { !$0.0.contains("=") }) {
            throw UsageError("--\(option) takes NAME=PATH with NAME one of the targets, not '\(bare.0.terminalSafe)'.")
        }
        return entries
    }

    /// `entries` by target name: each NAME must be one of `targets`' names.
    static func attach(_ entries: [NamedPath], option: String, to targets: [NamedPath]) throws(UsageError) -> [String: String] {
        var attached: [String: String] = [:]
        for entry in entries {
            guard targets.contains(where: { $0.name == entry.name }) else {
                let names = targets.map(\.name).joined(separator: ", ")
                throw UsageError("--\(option) takes NAME=PATH with NAME one of the targets (\(names.terminalSafe)).")
            }
            attached[entry.name] = entry.path
        }
        return attached
    }
}
