import KeychainFormats
import KeychainFoundation

/// `--team-change`: what an app transfer or App ID prefix migration does to one target's items
/// in this keychain, and the `migrate-group` plan that would keep them.
extension Keychain {
    /// What moving `profile`'s target to `newTeam` does: its team is the one the profile is signed
    /// under, and the plan runs as that profile.
    package func assess(_ profile: Profile, movingTo newTeam: String) throws -> TeamChangeReport {
        try assess(TeamChange(from: profile.team, to: newTeam), groups: profile.accessGroups, profile: profile.path)
    }

    package func assess(_ change: TeamChange, groups: AccessGroupList, profile: String? = nil) throws -> TeamChangeReport {
        let lost = change.lost(in: groups)
        let kept = change.kept(in: groups)
        // Counted from the plaintext group column, unopened, over every class; tombstones are not
        // items. (A row edited without the key counts where its column says; `verify` names it.)
        var counts: [[UInt8]: Int] = [:]
        for group in lost + kept { counts[Array(group.utf8)] = 0 }
        try store.read {
            for itemClass in ItemClass.stored {
                try store.forEachRow(itemClass, filter: .everyRow, withSecret: false) { _, row in
                    let key = Array(row.accessGroup.utf8)
                    if row.malformed == nil, !row.isTombstone, let count = counts[key] { counts[key] = count + 1 }
                    return true
                }
            }
        }
        func held(_ groups: [String]) -> [TeamChangeReport.Group] {
            groups.map { TeamChangeReport.Group(name: $0, items: counts[Array($0.utf8)] ?? 0) }
        }
        // Only groups that hold items need moving.
        let holding = lost.filter { counts[Array($0.utf8), default: 0] > 0 }
        return TeamChangeReport(
            change: change, moved: change.moved(groups), lost: held(lost), kept: held(kept), destination: change.destination(for: groups),
            plan: change.plan(for: groups, moving: holding, profile: profile))
    }
}

/// One target's groups before and after a team change, with the items each holds.
package struct TeamChangeReport: Sendable {
    package struct Group: Sendable {
        package let name: String
        package let items: Int
    }

    package let change: TeamChange
    /// The target's groups as the new team's build has them.
    package let moved: AccessGroupList
    /// Groups the new team cannot name: their items become unreachable (-25300).
    package let lost: [Group]
    /// Groups that keep their names (app groups: if transferred with the app).
    package let kept: [Group]
    /// The app group the plan copies to.
    package let destination: String
    /// The `migrate-group --copy` commands, run by the old team's build before the transfer, for
    /// the lost groups that hold items.
    package let plan: [String]
}
