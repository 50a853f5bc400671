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
        func order(_ finding: LintFinding) -> (LintRule.Severity, Int, String) {
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

    /// `"TEAM.rest"` with the team when it is known, else `"TEAMID.rest"`.
    static func prefixed(_ rest: String, team: String?) -> String { "\(team ?? "TEAMID").\(rest)" }

    // MARK: One file's entitlements (KC001, KC002, KC004, KC010, KC018)

    private func entitlementFindings(_ fact: TargetFacts) -> [LintFinding] {
        let target = fact.target
        let file = target.claimsPath
        var findings: [LintFinding] = []
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
                        rule: "KC018", severity: .error, file: file, target: target.name, key: key,
                        message: "is \(Self.kind(value)), not \(isArray ? "an array of strings" : "a string"); securityd ignores it.",
                        fix: "write \(key) as \(isArray ? "an <array> of <string> elements" : "a <string>")."))
                continue
            }
            var seen: [String] = []
            for (index, element) in raw {
                guard case .string(let text) = element else {
                    findings.append(
                        LintFinding(
                            rule: "KC018", severity: .error, file: file, target: target.name, key: key, index: index,
                            message: "is \(Self.kind(element)); securityd ignores the entire \(key) array because of it.",
                            fix: "make every element of \(key) a <string>."))
                    continue
                }
                if seen.contains(where: { $0.sameBytes(as: text) }) {
                    findings.append(
                        LintFinding(
                            rule: "KC018", severity: .info, file: file, target: target.name, key: key, index: index, value: text,
                            message: "repeats an earlier entry; a repeat adds no access.", fix: "remove the repeat."))
                }
                seen.append(text)
                if text.containsBytes("$(") {
                    findings += variableFinding(fact, key: key, index: index, text: text)
                    continue
                }
                if key == AccessGroupList.Key.keychainAccessGroups {
                    findings += groupFindings(text, file: file, target: target.name, key: key, index: index, team: fact.team)
                    if text.containsBytes("*"), !target.claims.isProvisioningProfile {
                        findings.append(
                            LintFinding(
                                rule: "KC010", severity: .error, file: file, target: target.name, key: key, index: index, value: text,
                                message:
                                    "is a wildcard: wildcards are allowlist syntax in provisioning profiles, not groups an app can hold; securityd rejects \"*\" for third-party code.",
                                fix: "list each group the target uses, with its Team ID prefix."))
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
        let fix =
            target.claimsAreSource
            ? setting == nil
                ? "pass --provisioning NAME=PATH (the profile that signs it) or --team-id TEAMID."
                : "pass --build-setting NAME=VALUE (PRODUCT_BUNDLE_IDENTIFIER=com.example.app, say), or --app the built app whose Info.plist names it."
            : "sign with the resolved value (\(text.replacingBytes("$(AppIdentifierPrefix)", with: "\(fact.team ?? "TEAMID")."))), or let Xcode process the .entitlements file."
        return [
            LintFinding(
                rule: "KC002", severity: .error, file: target.claimsPath, target: target.name, key: key, index: index, value: text,
                message: message, fix: fix, runtime: Self.missingEntitlement)
        ]
    }

    /// KC001, KC004 and KC007's one-target form for one group in `file`.
    func groupFindings(_ group: String, file: String, target: String?, key: String?, index: Int?, team: String?) -> [LintFinding] {
        func finding(_ rule: String, _ severity: LintRule.Severity, _ message: String, _ fix: String) -> LintFinding {
            LintFinding(
                rule: rule, severity: severity, file: file, target: target, key: key, index: index, value: group, message: message,
                fix: fix, runtime: Self.missingEntitlement)
        }
        let inCode = file == Self.codeFile
        switch GroupPrefix.of(group) {
        case .token: return []
        case .none:
            if group.hasPrefix("group.") {
                if inCode { return [] }
                return [
                    finding(
                        "KC001", .error,
                        "is an app group listed in keychain-access-groups: no provisioning profile allows it there (they allow TEAMID.*), so signed builds are rejected (ITMS-90164).",
                        "move it to com.apple.security.application-groups, where it is an access group too.")
                ]
            }
            if group.containsBytes("*") { return [] }  // KC010 says it
            let signedName = Self.prefixed(group, team: team)
            return [
                finding(
                    "KC001", .error,
                    "has no App ID prefix. \(inCode ? "" : "Signed builds are rejected (ITMS-90164) and ")SecItem calls naming it fail with errSecMissingEntitlement (-34018).",
                    inCode
                        ? "pass \"\(signedName)\": access groups carry the Team ID prefix."
                        : "write \"$(AppIdentifierPrefix)\(group)\" in the .entitlements file and \"\(signedName)\" in code.")
            ]
        case .empty:
            return [
                finding(
                    "KC004", .error, "has an empty App ID prefix (it starts with a dot).",
                    "write \"\(Self.prefixed(String(group.dropFirst()), team: team))\".")
            ]
        case .malformed(let prefix):
            return [
                finding(
                    "KC004", .error,
                    "has the malformed App ID prefix \"\(prefix)\": a prefix is ten upper-case letters or digits.",
                    "use the Team ID (\(team ?? "the ten characters shown in the developer account")).")
            ]
        case .valid(let prefix):
            let rest = group.dropFirst(prefix.count + 1)
            if rest.hasPrefix(prefix + ".") {
                return [
                    finding(
                        "KC004", .error, "has the App ID prefix twice.", "write \"\(prefix).\(rest.dropFirst(prefix.count + 1))\".")
                ]
            }
            if rest.hasPrefix("group.") {
                return [
                    LintFinding(
                        rule: "KC004", severity: .warning, file: file, target: target, key: key, index: index, value: group,
                        message:
                            "puts a Team ID in front of an app-group name: it is a keychain group of its own, unrelated to the app group \(rest).",
                        fix: "name the app group \"\(rest)\" itself if that is what the targets share.")
                ]
            }
            if let team, prefix != team, !inCode {
                return [
                    LintFinding(
                        rule: "KC007", severity: .warning, file: file, target: target, key: key, index: index, value: group,
                        message:
                            "has the prefix \(prefix), not this target's \(team): another team's group, which this target's provisioning profile cannot allow.",
                        fix: "use \"\(team).\(rest)\", or check which team signs this target.",
                        runtime: Self.missingEntitlement)
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
        for group in codeGroups {
            if group.containsBytes("$(") {
                findings.append(
                    LintFinding(
                        rule: "KC002", severity: .error, file: Self.codeFile, value: group,
                        message:
                            "is a build variable in code: only the signing step expands $(…), so securityd receives this literal text and answers errSecMissingEntitlement (-34018).",
                        fix:
                            "pass the resolved group (\(group.replacingBytes("$(AppIdentifierPrefix)", with: "\(team ?? "TEAMID")."))), or read the prefix from the app's own entitlements at run time.",
                        runtime: Self.missingEntitlement))
                continue
            }
            let problems = groupFindings(group, file: Self.codeFile, target: nil, key: nil, index: nil, team: team)
            findings += problems
            // A well-formed group that none of the targets holds: every call naming it is -34018.
            if problems.isEmpty, !facts.isEmpty, !facts.contains(where: { $0.groups.canWrite(group) || $0.groups.canRead(group) }) {
                let claimed = facts.map { "\($0.target.name): \($0.groups.groups.joined(separator: ", "))" }.joined(separator: "; ")
                findings.append(
                    LintFinding(
                        rule: "KC021", severity: .error, file: Self.codeFile, value: group,
                        message:
                            "is a group no target claims (\(claimed)): SecItem calls naming it fail with errSecMissingEntitlement (-34018).",
                        fix: "pass a group a target claims, or add this one to the targets that use it (keychain-access-groups).",
                        runtime: Self.missingEntitlement))
            }
        }
        return findings
    }
}
