import KeychainCore

/// `keychainctl groups`: the profile's access-group list.
struct GroupsCommand: Subcommand {
    static let spec = CommandSpec(
        name: "groups",
        abstract: "Print the profile's access groups in Apple's order, with sources, default and writability.",
        discussion:
            "When the keychain exists and a key file or KEYCHAINCTL_KEY opens it, the simulated device's state is shown too, with the classes it makes unavailable.",
        sections: [("global options", GlobalOptions.specs)])

    let globals: GlobalOptions

    init(_ arguments: ParsedArguments) throws(UsageError) { globals = try GlobalOptions(arguments) }

    func run() throws {
        let profile = try globals.loadProfile()
        let list = profile.accessGroups
        let device = try globals.keychainIfKeyAtHand()?.device
        switch globals.resolvedFormat {
        case .json:
            let groups: [JSON.Value] = list.entries.map {
                .object(["group": .string($0.group), "source": .string($0.source), "writable": .bool($0.isWritable)])
            }
            var object: [String: JSON.Value] = ["default": list.defaultGroup.map { .string($0) } ?? .null, "groups": .array(groups)]
            if let device {
                object["device"] = .object([
                    "state": .string(device.lock.rawValue), "passcode": .bool(device.passcode),
                    "unavailable": .array(Accessibility.allCases.filter { !device.allows($0) }.map { .string($0.rawValue) }),
                ])
            }
            StandardStreams.out(JSON.render(.object(object)) + "\n")
        case .text:
            var out = "profile: \(profile.path) (\(profile.platform.rawValue))\n"
            out += "default: \(list.defaultGroup ?? "(none: this profile cannot write)")\n"
            if list.grantsEveryGroup { out += "grants every group (\"*\", --allow-any-group)\n" }
            for (index, entry) in list.entries.enumerated() {
                out += "\(index + 1). \(entry.group)  [\(entry.source)]  \(entry.isWritable ? "read-write" : "read-only")\n"
            }
            if list.entries.isEmpty { out += "no access groups: every item command fails with errSecMissingEntitlement (-34018)\n" }
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
}
