import KeychainFormats
import KeychainFoundation

/// Rules across targets (KC003, KC007, KC012), between a target's source and signed entitlements
/// (KC011), and for a team change (KC016).
extension Linter {
    func crossTargetFindings(_ facts: [TargetFacts]) -> [LintFinding] {
        guard facts.count > 1 else { return [] }
        var findings: [LintFinding] = []
        // KC007: one app's targets under different App ID prefixes cannot share a team group.
        if let first = facts.first(where: { $0.appIDPrefix != nil }), let prefix = first.appIDPrefix {
            for other in facts where other.appIDPrefix != nil && other.appIDPrefix != prefix {
                findings.append(
                    LintFinding(
                        rule: .kc007, severity: .error, file: other.target.claimsPath, target: other.target.name,
                        key: AccessGroupList.Key.applicationIdentifier, value: other.appIDPrefix,
                        message:
                            "\(other.target.name) uses App ID prefix \(other.appIDPrefix!) and \(first.target.name) uses \(prefix): they cannot share any team-prefixed group (TN2311).",
                        fix:
                            "sign every target with one team's prefix; moving a target to another prefix loses its items once (QA1726) unless they are migrated first.",
                        runtime: Self.missingEntitlement))
            }
        }
        // KC003: where each writer's adds without a group land, and who cannot read them there. The
        // fix is the writer's to make (which group it passes or lists first), so the finding is
        // reported once per writer, against the writer's file, naming every reader it misses.
        for writer in facts {
            guard let landing = writer.groups.defaultGroup else { continue }
            var missed: [TargetFacts] = []
            for reader in facts where reader.target.name != writer.target.name && !reader.groups.canRead(landing) {
                if writer.groups.writable.contains(where: reader.groups.canRead) {
                    missed.append(reader)
                } else if writer.target.name < reader.target.name, reader.groups.hasWritableGroup {
                    // Once per pair; a target that can write nowhere is KC014's or KC018's to report.
                    findings.append(
                        LintFinding(
                            rule: .kc003, severity: .error, file: writer.target.claimsPath, target: writer.target.name,
                            message:
                                "\(writer.target.name) and \(reader.target.name) have no access group in common: neither can read what the other stores.",
                            fix: sharingFix(writer, reader, landing: landing), edits: sharingEdits(writer, reader, landing: landing),
                            runtime: Self.itemNotFound))
                }
            }
            guard !missed.isEmpty else { continue }
            // The code passes a group the writer writes and every reader reads (--code-group), as
            // the fix below advises: its shared items land there, whatever the default.
            if codeGroups.contains(where: { group in
                writer.groups.writable.contains(group) && missed.allSatisfy { $0.groups.canRead(group) }
            }) {
                continue
            }
            let names = missed.map(\.target.name).joined(separator: ", ")
            let everyone = writer.groups.writable.filter { group in missed.allSatisfy { $0.groups.canRead(group) } }
            let perReader = missed.map { reader in
                "\(reader.target.name): \(writer.groups.writable.filter(reader.groups.canRead).joined(separator: ", "))"
            }
            findings.append(
                LintFinding(
                    rule: .kc003, severity: .warning, file: writer.target.claimsPath, target: writer.target.name,
                    message:
                        "items \(writer.target.name) adds without kSecAttrAccessGroup go to \"\(landing)\"; \(names) cannot read that group, so \(missed.count == 1 ? "its find returns" : "their finds return") errSecItemNotFound (-25300).",
                    fix: everyone.isEmpty
                        ? "no group \(writer.target.name) writes is read by all of them: pass, per reader, a group both read (\(perReader.joined(separator: "; "))) when adding shared items."
                        : defaultFix(everyone, targets: [writer] + missed, adder: writer.target.name),
                    edits: everyone.isEmpty ? [] : defaultEdits(everyone, targets: [writer] + missed, adder: writer, all: facts),
                    runtime: Self.itemNotFound))
        }
        // KC012: targets whose adds land in different groups.
        let landings = facts.map { ($0.target.name, $0.groups.defaultGroup) }
        let distinct = Set(landings.compactMap { $0.1.map { Array($0.utf8) } })
        let passedToAll = codeGroups.contains { group in facts.allSatisfy { $0.groups.writable.contains(group) } }
        if distinct.count > 1, !passedToAll {
            let shared = facts[0].groups.writable.filter { group in facts.allSatisfy { $0.groups.writable.contains(group) } }
            findings.append(
                LintFinding(
                    rule: .kc012, severity: .warning, file: facts[0].target.claimsPath,
                    message:
                        "default add groups differ: \(landings.map { "\($0.0) → \($0.1 ?? "(none)")" }.joined(separator: ", ")). Items a target adds without a group stay where only it looks first (openradar 20744541).",
                    fix: shared.isEmpty
                        ? "no group is written by every target: list one Team-prefixed group (such as \(Self.suggestedGroup(facts))) first in every target's keychain-access-groups, or pass a group when adding."
                        : defaultFix(shared, targets: facts, adder: nil),
                    edits: shared.isEmpty
                        ? Self.putFirst(Self.suggestedGroup(facts), in: facts)
                        : defaultEdits(shared, targets: facts, adder: nil, all: facts)))
        }
        return findings
    }

    /// How targets that all use `shared` groups make one of them where their adds land. A
    /// Team-prefixed group can be put first in keychain-access-groups; an app group cannot (it
    /// belongs in com.apple.security.application-groups, whose groups come after those, and a
    /// provisioning profile allows only TEAMID.* in keychain-access-groups): it is passed as
    /// kSecAttrAccessGroup, or a Team-prefixed group both list is made the default. `adder` names
    /// the one target the fix is for; `nil`: every target.
    private func defaultFix(_ shared: [String], targets: [TargetFacts], adder: String?) -> String {
        let who = adder.map { "\($0)'s" } ?? "every target's"
        let when = adder.map { "when \($0) adds shared items" } ?? "when adding"
        if let team = Self.teamGroup(among: shared, of: targets) {
            return "put \(team) first in \(who) keychain-access-groups, or pass it (kSecAttrAccessGroup) \(when)."
        }
        let appGroup = shared[0]
        return
            "pass \(appGroup) (kSecAttrAccessGroup) \(when): it is an app group, which cannot come first in keychain-access-groups; "
            + "for a default they share, list one Team-prefixed group, such as \(Self.suggestedGroup(targets)), first in every target's keychain-access-groups."
    }

    /// `defaultFix` as edits: the Team-prefixed group first in the adder's (or every target's) list;
    /// where they share only an app group, the suggested Team-prefixed group first in the list of
    /// every target linted (`all`: a new group no target reads yet must be read by all of them).
    private func defaultEdits(_ shared: [String], targets: [TargetFacts], adder: TargetFacts?, all: [TargetFacts]) -> [LintEdit] {
        if let team = Self.teamGroup(among: shared, of: targets) {
            return Self.putFirst(team, in: adder.map { [$0] } ?? targets)
        }
        return Self.putFirst(Self.suggestedGroup(targets), in: all)
    }

    /// The first of `shared` that is not an app group of `targets` (a Team-prefixed group, which
    /// can come first in keychain-access-groups); `nil` when they share only app groups.
    private static func teamGroup(among shared: [String], of targets: [TargetFacts]) -> String? {
        let appGroups = Set(targets.flatMap { $0.strings(AccessGroupList.Key.applicationGroups).map { Array($0.value.utf8) } })
        return shared.first { !appGroups.contains(Array($0.utf8)) }
    }

    /// `group` put first in the keychain-access-groups of each of `targets` (none if one cannot be edited).
    static func putFirst(_ group: String, in targets: [TargetFacts]) -> [LintEdit] {
        everyTarget(targets) { $0.edit(key: AccessGroupList.Key.keychainAccessGroups, index: nil, .putFirst(group)) }
    }

    /// A Team-prefixed group name to suggest where the targets share none: `TEAMID.shared`.
    static func suggestedGroup(_ targets: [TargetFacts]) -> String {
        (targets.compactMap(\.appIDPrefix).first ?? "TEAMID") + ".shared"
    }

    /// How two targets with no group in common could share: one group both list, which needs one
    /// team; targets signed under different App ID prefixes cannot share a keychain item at all.
    private func sharingFix(_ writer: TargetFacts, _ reader: TargetFacts, landing: String) -> String {
        if let one = writer.appIDPrefix, let other = reader.appIDPrefix, one != other {
            return
                "they are signed under different App ID prefixes (\(one), \(other)), and no access group crosses teams: sign both with one team (KC007), then list one group in both."
        }
        return "give both targets one group (\(landing), or an app group) and pass it when adding shared items."
    }

    /// `sharingFix` as an edit: the reader lists the group the writer's adds land in (one team only).
    private func sharingEdits(_ writer: TargetFacts, _ reader: TargetFacts, landing: String) -> [LintEdit] {
        if let one = writer.appIDPrefix, let other = reader.appIDPrefix, one != other { return [] }
        return reader.edit(key: Keychain.entitlementListing(landing), index: nil, .append(landing))
    }

    /// KC011: groups the source `.entitlements` lists that the signed claims lack, and the reverse.
    func sourceFindings(_ fact: TargetFacts) -> [LintFinding] {
        guard let source = fact.target.source, let sourcePath = fact.target.sourcePath else { return [] }
        let sourceFacts = TargetFacts(
            LintTarget(
                name: fact.target.name, claimsPath: sourcePath, claims: source, provisioning: fact.target.provisioning,
                buildSettings: fact.target.buildSettings),
            platform: fact.platform, teamID: teamID ?? fact.team)
        var findings: [LintFinding] = []
        for key in [AccessGroupList.Key.keychainAccessGroups, AccessGroupList.Key.applicationGroups] {
            let listed = sourceFacts.strings(key)
            let signed = fact.strings(key)
            for (index, value) in listed where !signed.contains(where: { $0.value.sameBytes(as: value) }) {
                findings.append(
                    LintFinding(
                        rule: .kc011, severity: .warning, file: sourcePath, target: fact.target.name, key: key, index: index, value: value,
                        message:
                            "is in the source file but not in the signed entitlements (\(fact.target.claimsPath)): the build lacks it.",
                        fix: fact.target.claimsPath.hasSuffix("-Simulated.xcent")
                            ? "the simulator build signs with these simulated entitlements: add the capability in the target's Signing & Capabilities so Xcode writes it for the simulator and the device alike, and test sharing on a device too."
                            : "check CODE_SIGN_ENTITLEMENTS for every build configuration, and the capability in the target's Signing & Capabilities.",
                        // What the fixed build signs: the signed claims list it too.
                        edits: fact.edit(key: key, index: nil, .append(value))))
            }
            for (index, value) in signed where !listed.contains(where: { $0.value.sameBytes(as: value) }) {
                findings.append(
                    LintFinding(
                        rule: .kc011, severity: .warning, file: fact.target.claimsPath, target: fact.target.name, key: key, index: index,
                        value: value,
                        message:
                            "is signed but not in the source file (\(sourcePath)): another entitlements file or a build setting added it.",
                        fix: "make the source file the one the build signs with.",
                        // What the fixed build signs: the source's list, without it.
                        edits: fact.edit(key: key, index: index, .remove)))
            }
        }
        return findings
    }

    /// KC016: the groups that stop matching when the app moves to `newTeam`.
    func teamChangeFindings(_ fact: TargetFacts, to newTeam: String) -> [LintFinding] {
        let change = TeamChange(from: fact.team, to: newTeam)
        let lost = change.lost(in: fact.groups)
        guard !lost.isEmpty else { return [] }
        let kept = change.kept(in: fact.groups)
        var message =
            "after moving to \(newTeam): items in \(lost.joined(separator: ", ")) become unreachable (errSecItemNotFound, -25300): the new team's builds claim \(newTeam). groups."
        if !kept.isEmpty {
            message +=
                " \(kept.joined(separator: ", ")) survive\(kept.count == 1 ? "s" : "") if the app group moves with the app (forums 706128)."
        }
        return [
            LintFinding(
                rule: .kc016, severity: .info, file: fact.target.claimsPath, target: fact.target.name, message: message,
                fix: "before the transfer, ship a build signed by \(fact.team ?? "the old team") that runs "
                    + change.plan(for: fact.groups).joined(separator: "; ")
                    + " (SecItemUpdate with kSecAttrAccessGroup), and transfer the app group with the app.",
                runtime: Self.itemNotFound)
        ]
    }
}
