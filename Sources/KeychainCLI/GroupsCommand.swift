import KeychainCore

/// `keychainctl groups`: the profile's access-group list.
struct GroupsCommand: Subcommand {
    static let spec = CommandSpec(
        name: "groups",
        abstract: "Print the profile's access groups in Apple's order, with sources, default and writability.",
        discussion: "",
        sections: [("global options", GlobalOptions.specs)])

    let globals: GlobalOptions

    init(_ arguments: ParsedArguments) throws(UsageError) { globals = try GlobalOptions(arguments) }

    func run() throws {
        let profile = try globals.loadProfile()
        let list = profile.accessGroups
        switch globals.resolvedFormat {
        case .json:
            let groups: [JSON.Value] = list.entries.map {
                .object(["group": .string($0.group), "source": .string($0.source), "writable": .bool($0.isWritable)])
            }
            StandardStreams.out(
                JSON.render(.object(["default": list.defaultGroup.map { .string($0) } ?? .null, "groups": .array(groups)])) + "\n")
        case .text:
            var out = "profile: \(profile.path) (\(profile.platform.rawValue))\n"
            out += "default: \(list.defaultGroup ?? "(none: this profile cannot write)")\n"
            if list.grantsEveryGroup { out += "grants every group (\"*\", --allow-any-group)\n" }
            for (index, entry) in list.entries.enumerated() {
                out += "\(index + 1). \(entry.group)  [\(entry.source)]  \(entry.isWritable ? "read-write" : "read-only")\n"
            }
            if list.entries.isEmpty { out += "no access groups: every item command fails with errSecMissingEntitlement (-34018)\n" }
            StandardStreams.out(out)
        }
    }
}
