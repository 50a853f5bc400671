import KeychainFormats
import KeychainFoundation

/// `lint`: the rules of `LintRule.all` run over each target's claims, its
/// provisioning profile and source, across the targets, and over the groups code passes.
package struct Linter {
    package let targets: [LintTarget]
    /// Access groups the code passes (`--code-group`).
    package var codeGroups: [String] = []
    /// `--platform`, overriding each target's own.
    package var platform: Platform? = nil
    /// `--team-id`, for build variables nothing else resolves.
    package var teamID: String? = nil
    /// The clock, in milliseconds since 1970 UTC (`--now`).
    package var now: Int64
    /// `--team-change NEWTEAM`: the team the app moves to.
    package var teamChange: String? = nil

    package init(targets: [LintTarget], now: Int64) {
        self.targets = targets
        self.now = now
    }

    /// Where code groups are reported.
    package static let codeFile = "--code-group"

    /// Every finding, most severe first, then in the order the targets were given.
    package func run() -> [LintFinding] {
        let facts = targets.map { TargetFacts($0, platform: platform, teamID: teamID) }
        var findings: [LintFinding] = []
        for fact in facts {
            findings += entitlementFindings(fact)
            findings += platformFindings(fact)
            findings += profileFindings(fact)
            findings += sourceFindings(fact)
            if let teamChange { findings += teamChangeFindings(fact, to: teamChange) }
        }
        findings += crossTargetFindings(facts)
        findings += codeGroupFindings(team: facts.lazy.compactMap(\.team).first, facts: facts)
        let files = targets.flatMap { [$0.claimsPath, $0.provisioning?.path, $0.sourcePath].compactMap { $0 } } + [Self.codeFile]
        // Most severe first, then by file and rule; within those, in the order the checks found them.
        func order(_ finding: LintFinding) -> (LintRule.Severity, Int, LintRuleID) {
            (finding.severity, files.firstIndex(of: finding.file) ?? files.count, finding.rule)
        }
        return findings.enumerated().sorted { a, b in
            let (x, y) = (order(a.element), order(b.element))
            if x.0 != y.0 { return x.0 < y.0 }
            if x.1 != y.1 { return x.1 < y.1 }
            if x.2 != y.2 { return x.2 < y.2 }
            return a.offset < b.offset
        }.map(\.element)
    }

    static let missingEntitlement: (status: Int32, name: String) = (-34018, "errSecMissingEntitlement")
    static let itemNotFound: (status: Int32, name: String) = (-25300, "errSecItemNotFound")

    /// `text` with `$(AppIdentifierPrefix)` and `$(TeamIdentifierPrefix)` written out (`TEAMID.` when
    /// the team is unknown).
    static func resolvedPrefixes(_ text: String, team: String?) -> String {
        let prefix = "\(team ?? "TEAMID")."
        return text.replacingBytes("$(AppIdentifierPrefix)", with: prefix).replacingBytes("$(TeamIdentifierPrefix)", with: prefix)
    }

    /// `"TEAM.rest"` with the team when it is known, else `"TEAMID.rest"`.
    static func prefixed(_ rest: String, team: String?) -> String { "\(team ?? "TEAMID").\(rest)" }

    // MARK: One file's entitlements (KC001, KC002, KC004, KC010, KC018)

    private func entitlementFindings(_ fact: TargetFacts) -> [LintFinding] {
        let target = fact.target
        let file = target.claimsPath
        var findings: [LintFinding] = []
        for (key, meant) in AccessGroupList.misspelledKeys(in: target.claims.entitlements) {
            let lost = target.claims.entitlements[meant] == nil ? "" : " (\(meant) is there too: this one adds nothing)"
            findings.append(
                LintFinding(
                    rule: .kc022, severity: .error, file: file, target: target.name, key: key,
                    message:
                        "is not an entitlement Apple reads: \(meant) was likely meant\(lost), and nothing under this key is claimed; the app gets errSecMissingEntitlement for what it lists.",
                    fix: "rename the key to \(meant).", runtime: Self.missingEntitlement))
        }
        for key in AccessGroupList.groupSources {
            guard let value = target.claims.entitlements[key] else { continue }
            let isArray = key != AccessGroupList.Key.applicationIdentifier && key != AccessGroupList.Key.macApplicationIdentifier
            let raw: [(index: Int?, element: PlistValue)]
            switch value {
            case .array(let elements) where isArray: raw = elements.enumerated().map { ($0, $1) }
            case .string where !isArray: raw = [(nil, value)]
            default:
                findings.append(
                    LintFinding(
                        rule: .kc018, severity: .error, file: file, target: target.name, key: key,
                        message: "is \(Self.kind(value)), not \(isArray ? "an array of strings" : "a string"); securityd ignores it.",
                        fix: "write \(key) as \(isArray ? "an <array> of <string> elements" : "a <string>")."))
                continue
            }
            var seen: [String] = []
            for (index, element) in raw {
                guard case .string(let text) = element else {
                    findings.append(
                        LintFinding(
                            rule: .kc018, severity: .error, file: file, target: target.name, key: key, index: index,
                            message: "is \(Self.kind(element)); securityd ignores the entire \(key) array because of it.",
                            fix: "make every element of \(key) a <string>, or remove this one.",
                            edits: fact.edit(key: key, index: index, .remove)))
                    continue
                }
                if seen.contains(where: { $0.sameBytes(as: text) }) {
                    findings.append(
                        LintFinding(
                            rule: .kc018, severity: .info, file: file, target: target.name, key: key, index: index, value: text,
                            message: "repeats an earlier entry; a repeat adds no access.", fix: "remove the repeat.",
                            edits: fact.edit(key: key, index: index, .remove)))
                }
                seen.append(text)
                if text.containsBytes("$(") {
                    findings += variableFinding(fact, key: key, index: index, text: text)
                    continue
                }
                if key == AccessGroupList.Key.keychainAccessGroups {
                    findings += groupFindings(text, in: fact, key: key, index: index)
                    if text.containsBytes("*"), !target.claims.isProvisioningProfile {
                        // Its own application identifier group is one it surely uses.
                        let own = fact.applicationIdentifier.flatMap { GroupPrefix.of($0).valid == nil ? nil : $0 }
                        findings.append(
                            LintFinding(
                                rule: .kc010, severity: .error, file: file, target: target.name, key: key, index: index, value: text,
                                message:
                                    "is a wildcard: wildcards are allowlist syntax in provisioning profiles, not groups an app can hold; securityd rejects \"*\" for third-party code.",
                                fix: "list each group the target uses, with its Team ID prefix\(own.map { " (its own is \($0))" } ?? "").",
                                edits: own.map { fact.edit(key: key, index: index, .replace($0)) } ?? []))
                    }
                }
            }
        }
        return findings
    }

    /// KC002 for a `$(…)` in `text`: an error in a signed artefact (codesign does not expand
    /// variables), and in a source file only when nothing can resolve it.
    private func variableFinding(_ fact: TargetFacts, key: String, index: Int?, text: String) -> [LintFinding] {
        let target = fact.target
        let resolved = fact.entitlements[key].flatMap { value -> String? in
            if let index { return value.stringArray.flatMap { $0.indices.contains(index) ? $0[index] : nil } }
            return value.string
        }
        if target.claimsAreSource, let resolved, !resolved.containsBytes("$(") { return [] }
        // A source file's variable other than the two prefixes is a build setting's.
        let prefixesOnly = (resolved ?? text).replacingBytes("$(AppIdentifierPrefix)", with: "").replacingBytes(
            "$(TeamIdentifierPrefix)", with: "")
        let setting = !prefixesOnly.containsBytes("$(") && !prefixesOnly.containsBytes("${") ? nil : prefixesOnly
        let message =
            target.claimsAreSource
            ? setting == nil
                ? "cannot be resolved: nothing gives the Team ID (no application identifier, no provisioning profile, no --team-id)."
                : "cannot be resolved: a build setting no built app or --build-setting gives."
            : "is the literal text of a build variable. codesign does not expand Xcode build variables, so the signed app holds this string and SecItem calls naming the resolved group fail with errSecMissingEntitlement (-34018)."
        let signedValue = Self.resolvedPrefixes(text, team: fact.team)
        let fix =
            target.claimsAreSource
            ? setting == nil
                ? "pass --provisioning NAME=PATH (the profile that signs it) or --team-id TEAMID."
                : "pass --build-setting NAME=VALUE (PRODUCT_BUNDLE_IDENTIFIER=com.example.app, say), or --app the built app whose Info.plist names it."
            : "sign with the resolved value (\(signedValue)), or let Xcode process the .entitlements file."
        let resolvable = !target.claimsAreSource && fact.team != nil && !signedValue.containsBytes("$(")
        return [
            LintFinding(
                rule: .kc002, severity: .error, file: target.claimsPath, target: target.name, key: key, index: index, value: text,
                message: message, fix: fix, edits: resolvable ? fact.edit(key: key, index: index, .replace(signedValue)) : [],
                runtime: Self.missingEntitlement)
        ]
    }

    /// Where a group lint checks is written: an element of a target's array entitlement, or a
    /// group code passes (`--code-group`, at `index` among them).
    struct GroupPlace {
        let file: String
        let target: String?
        let key: String?
        let index: Int?
        let team: String?
        /// Whether the fix can be stated as an edit here.
        let editable: Bool

        var inCode: Bool { file == Linter.codeFile }

        /// The group replaced by `group`.
        func replace(_ group: String) -> [LintEdit] {
            editable ? [LintEdit(file: file, key: key, index: index, .replace(group))] : []
        }

        /// The group taken out of `key` and `appGroup` added to the app groups.
        func moveToAppGroups(_ appGroup: String) -> [LintEdit] {
            guard editable, !inCode else { return replace(appGroup) }
            return [
                LintEdit(file: file, key: key, index: index, .remove),
                LintEdit(file: file, key: AccessGroupList.Key.applicationGroups, .append(appGroup)),
            ]
        }
    }

    /// The place of `fact`'s `key[index]`.
    func groupFindings(_ group: String, in fact: TargetFacts, key: String, index: Int?) -> [LintFinding] {
        groupFindings(
            group,
            at: GroupPlace(
                file: fact.target.claimsPath, target: fact.target.name, key: key, index: index, team: fact.team,
                editable: fact.claimsAreEditable))
    }

    /// KC001, KC004 and KC007's one-target form for one group at `place`.
    func groupFindings(_ group: String, at place: GroupPlace) -> [LintFinding] {
        let team = place.team
        func finding(
            _ rule: LintRuleID, _ message: String, _ fix: String, severity: LintRule.Severity = .error, edits: [LintEdit],
            runtime: (status: Int32, name: String)? = Self.missingEntitlement
        ) -> LintFinding {
            LintFinding(
                rule: rule, severity: severity, file: place.file, target: place.target, key: place.key,
                index: place.inCode ? nil : place.index, value: group, message: message, fix: fix, edits: edits, runtime: runtime)
        }
        let inCode = place.inCode
        switch GroupPrefix.of(group) {
        case .token: return []
        case .none:
            if group.hasPrefix("group.") {
                if inCode { return [] }
                return [
                    finding(
                        .kc001,
                        "is an app group listed in keychain-access-groups: no provisioning profile allows it there (they allow TEAMID.*), so signed builds are rejected (ITMS-90164).",
                        "move it to com.apple.security.application-groups, where it is an access group too.",
                        edits: place.moveToAppGroups(group))
                ]
            }
            if group.containsBytes("*") { return [] }  // KC010 says it
            let signedName = Self.prefixed(group, team: team)
            // A source file spells the prefix as the variable Xcode resolves; signed claims hold it resolved.
            let written = place.file.hasSuffix(".entitlements") ? "$(AppIdentifierPrefix)\(group)" : signedName
            return [
                finding(
                    .kc001,
                    "has no App ID prefix. \(inCode ? "" : "Signed builds are rejected (ITMS-90164) and ")SecItem calls naming it fail with errSecMissingEntitlement (-34018).",
                    inCode
                        ? "pass \"\(signedName)\": access groups carry the Team ID prefix."
                        : "write \"$(AppIdentifierPrefix)\(group)\" in the .entitlements file and \"\(signedName)\" in code.",
                    edits: team == nil ? [] : place.replace(inCode ? signedName : written))
            ]
        case .empty:
            let named = Self.prefixed(String(group.dropFirst()), team: team)
            return [
                finding(
                    .kc004, "has an empty App ID prefix (it starts with a dot).", "write \"\(named)\".",
                    edits: team == nil ? [] : place.replace(named))
            ]
        case .malformed(let prefix):
            let rest = String(group.dropFirst(prefix.count + 1))
            return [
                finding(
                    .kc004,
                    "has the malformed App ID prefix \"\(prefix)\": a prefix is ten upper-case letters or digits.",
                    "use the Team ID (\(team.map { "\"\($0).\(rest)\"" } ?? "the ten characters shown in the developer account")).",
                    edits: team == nil ? [] : place.replace(Self.prefixed(rest, team: team)))
            ]
        case .valid(let prefix):
            let rest = group.dropFirst(prefix.count + 1)
            if rest.hasPrefix(prefix + ".") {
                let once = "\(prefix).\(rest.dropFirst(prefix.count + 1))"
                return [finding(.kc004, "has the App ID prefix twice.", "write \"\(once)\".", edits: place.replace(once))]
            }
            if rest.hasPrefix("group.") {
                return [
                    finding(
                        .kc004,
                        "puts a Team ID in front of an app-group name: it is a keychain group of its own, unrelated to the app group \(rest).",
                        inCode
                            ? "pass the app group \"\(rest)\" itself if that is what the targets share."
                            : "name the app group \"\(rest)\" itself, in com.apple.security.application-groups, if that is what the targets share.",
                        severity: .warning, edits: place.moveToAppGroups(String(rest)), runtime: nil)
                ]
            }
            if let team, prefix != team, !inCode {
                return [
                    finding(
                        .kc007,
                        "has the prefix \(prefix), not this target's \(team): another team's group, which this target's provisioning profile cannot allow.",
                        "use \"\(team).\(rest)\", or check which team signs this target.", severity: .warning,
                        edits: place.replace("\(team).\(rest)"))
                ]
            }
            return []
        }
    }

    /// "an integer", "a dictionary"…
    static func kind(_ value: PlistValue) -> String {
        switch value {
        case .string: "a string"
        case .bool: "a boolean"
        case .array: "an array"
        case .dictionary: "a dictionary"
        case .date: "a date"
        case .other: "a number, data or another non-string value"
        }
    }

    // MARK: Groups code passes (--code-group)

    private func codeGroupFindings(team: String?, facts: [TargetFacts]) -> [LintFinding] {
        var findings: [LintFinding] = []
        func claimed(_ group: String) -> Bool { facts.contains { $0.groups.canWrite(group) || $0.groups.canRead(group) } }
        for (position, group) in codeGroups.enumerated() {
            var problems: [LintFinding]
            if group.containsBytes("$(") {
                let resolved = Self.resolvedPrefixes(group, team: team)
                problems = [
                    LintFinding(
                        rule: .kc002, severity: .error, file: Self.codeFile, value: group,
                        message:
                            "is a build variable in code: only the signing step expands $(…), so securityd receives this literal text and answers errSecMissingEntitlement (-34018).",
                        fix: "pass the resolved group (\(resolved)), or read the prefix from the app's own entitlements at run time.",
                        edits: team == nil || resolved.containsBytes("$(")
                            ? [] : [LintEdit(file: Self.codeFile, key: nil, index: position, .replace(resolved))],
                        runtime: Self.missingEntitlement)
                ]
            } else {
                problems = groupFindings(
                    group, at: GroupPlace(file: Self.codeFile, target: nil, key: nil, index: position, team: team, editable: true))
            }
            // A corrected name no target claims yet needs the claim too, or the call stays -34018.
            for (number, problem) in problems.enumerated() {
                guard let fixed = problem.edits.first?.action.value, !facts.isEmpty, !claimed(fixed) else { continue }
                let claim = Self.claim(fixed, in: facts)
                problems[number].fix =
                    (problem.fix ?? "") + " No target claims \(fixed) yet: add it to \(Keychain.entitlementListing(fixed)) too."
                problems[number].edits = claim.isEmpty ? [] : problem.edits + claim
            }
            findings += problems
            // A well-formed group that none of the targets holds: every call naming it is -34018.
            if problems.isEmpty, !facts.isEmpty, !claimed(group) {
                let claims = facts.map { "\($0.target.name): \($0.groups.groups.joined(separator: ", "))" }.joined(separator: "; ")
                findings.append(
                    LintFinding(
                        rule: .kc021, severity: .error, file: Self.codeFile, value: group,
                        message:
                            "is a group no target claims (\(claims)): SecItem calls naming it fail with errSecMissingEntitlement (-34018).",
                        fix:
                            "pass a group a target claims, or add this one to the targets that use it (\(Keychain.entitlementListing(group))).",
                        edits: Self.claim(group, in: facts), runtime: Self.missingEntitlement))
            }
        }
        return findings
    }

    /// `group` added to every target's claims, in the entitlement that lists it (none if one
    /// target's claims cannot be edited).
    static func claim(_ group: String, in facts: [TargetFacts]) -> [LintEdit] {
        everyTarget(facts) { $0.edit(key: Keychain.entitlementListing(group), index: nil, .append(group)) }
    }

    /// `edit` made to each of `facts`, or no edit at all when one of them cannot be edited: a fix
    /// for several targets is stated whole or not at all.
    static func everyTarget(_ facts: [TargetFacts], _ edit: (TargetFacts) -> [LintEdit]) -> [LintEdit] {
        let edits = facts.map(edit)
        return edits.contains(where: \.isEmpty) ? [] : edits.flatMap { $0 }
    }
}
