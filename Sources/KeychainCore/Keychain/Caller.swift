/// The process a request runs as: its profile's name and access groups.
package struct Caller: Sendable {
    /// How to name the caller in hints (the profile's path).
    package let name: String
    /// Its access groups.
    package let groups: AccessGroupList

    package init(name: String, groups: AccessGroupList) {
        self.name = name
        self.groups = groups
    }

    /// A caller from a loaded profile.
    package init(_ profile: Profile) { self.init(name: profile.path, groups: profile.accessGroups) }
}

/// The errSecMissingEntitlement answers, each with a hint that explains this case.
extension Caller {
    /// The process has no group it may write (or, reading, read).
    func noGroups(writing: Bool) -> KeychainError {
        let what = writing ? "writable" : "readable"
        let has = groups.groups.isEmpty ? "no access groups at all" : "only \(groups.groups.joined(separator: ", "))"
        return KeychainError(
            .missingEntitlement,
            hint:
                "profile \(name) has no \(what) access group (\(has)): it needs keychain-access-groups, an application-identifier or app groups."
        )
    }

    /// `group` is not one the process may use.
    func refused(group: String, writing: Bool) -> KeychainError {
        let allowed = writing ? groups.writable : groups.readable
        var hint =
            group.isEmpty
            ? "the empty string is not an access group;"
            : "access group '\(group)' is not \(writing ? "writable" : "readable") by profile \(name);"
        hint +=
            allowed.isEmpty ? " it has none." : " its \(writing ? "writable" : "readable") groups are: \(allowed.joined(separator: ", "))."
        if group.containsBytes("$(") {
            hint +=
                " Build variables such as $(AppIdentifierPrefix) are resolved only inside profiles; write the resolved group (TEAMID.…)."
        } else if !group.isEmpty, let meant = groups.groups.first(where: { $0.hasSuffix("." + group) && $0.count > group.count + 1 }) {
            hint += " Did you mean '\(meant)'? Access groups carry the Team ID prefix."
        }
        return KeychainError(.missingEntitlement, hint: hint)
    }

    /// Checks an explicit group.
    func check(group: String, writing: Bool) throws(KeychainError) {
        let allowed = writing ? groups.canWrite(group) : groups.canRead(group)
        if !allowed { throw refused(group: group, writing: writing) }
    }
}
