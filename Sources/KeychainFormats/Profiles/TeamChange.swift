import KeychainFoundation

/// An app transfer or App ID prefix migration (QA1726; forums threads 706128, 834090): the same
/// target signed under another Team ID.
///
/// The new team's build claims every team-prefixed group under its own prefix, while the items stay
/// in the old groups, which no build of the new team can name: they become unreachable
/// (errSecItemNotFound). `group.` app groups keep their names and survive if the app group is
/// transferred with the app; macOS-style team-prefixed app groups do not. Nothing else changes.
package struct TeamChange: Sendable, Equatable {
    /// The old Team ID; `nil` when the target has no team-prefixed group (nothing is lost).
    package let from: String?
    /// The new Team ID.
    package let to: String

    package init(from: String?, to: String) {
        self.from = from
        self.to = to
    }

    /// Whether `text` is a Team ID: ten upper-case letters or digits.
    package static func isTeamID(_ text: String) -> Bool { GroupPrefix.of(text + ".x").valid == text }

    /// The old team's groups of `groups`, which the new team cannot name.
    package func lost(in groups: AccessGroupList) -> [String] {
        guard let from, from != to else { return [] }
        return groups.entries.map(\.group).filter { GroupPrefix.of($0).valid == from }
    }

    /// The writable groups of `groups` that keep their names: `group.` app groups survive if the
    /// app group is transferred with the app.
    package func kept(in groups: AccessGroupList) -> [String] {
        let lost = lost(in: groups)
        return groups.writable.filter { group in !lost.contains { $0.sameBytes(as: group) } }
    }

    /// The groups the new team's build has: the old prefix replaced by the new one, the rest as they were.
    package func moved(_ groups: AccessGroupList) -> AccessGroupList {
        func move(_ entry: AccessGroupList.Entry) -> AccessGroupList.Entry {
            guard let from, GroupPrefix.of(entry.group).valid == from else { return entry }
            return AccessGroupList.Entry(group: to + entry.group.dropFirst(from.count), source: entry.source, index: entry.index)
        }
        return AccessGroupList(
            entries: groups.entries.map(move), grantsEveryGroup: groups.grantsEveryGroup, ignored: groups.ignored.map(move),
            withholdsToken: groups.withholdsToken, isAppClip: groups.isAppClip,
            applicationIdentifier: groups.applicationIdentifier.map { move(AccessGroupList.Entry(group: $0, source: "")).group })
    }

    /// The app group a plan copies the lost items to: the first one the target has, else one named
    /// after its default group.
    package func destination(for groups: AccessGroupList) -> String {
        if let kept = kept(in: groups).first(where: { $0.hasPrefix("group.") }) { return kept }
        let suffix = groups.defaultGroup.map { group in
            from.map { group.hasPrefix($0 + ".") ? String(group.dropFirst($0.count + 1)) : group } ?? group
        }
        return "group." + (suffix ?? "com.example")
    }

    /// The commands, run by a build the old team signs (`profile`) before the transfer, that keep
    /// the items of `lost` (by default every lost group): one `migrate-group --copy` per group.
    package func plan(for groups: AccessGroupList, moving lost: [String]? = nil, profile: String? = nil) -> [String] {
        let destination = destination(for: groups)
        let signed = profile.map { " --profile \($0)" } ?? ""
        return (lost ?? self.lost(in: groups)).map { "keychainctl migrate-group\(signed) --copy --from \($0) --to \(destination)" }
    }
}

extension Profile {
    /// The Team ID the target is signed under: its provisioning profile's, else its application
    /// identifier's prefix (claimed, even where a platform rule ignores it), else the first
    /// team-prefixed group's.
    package var team: String? {
        if let team = provisioning?.document.teamIdentifiers.first { return team }
        let entries = accessGroups.entries + accessGroups.ignored
        let appIDSources = [AccessGroupList.Key.applicationIdentifier, AccessGroupList.Key.macApplicationIdentifier]
        if let appID = entries.first(where: { appIDSources.contains($0.source) }), let prefix = GroupPrefix.of(appID.group).valid {
            return prefix
        }
        return entries.lazy.compactMap { GroupPrefix.of($0.group).valid }.first
    }
}
