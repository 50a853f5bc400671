import KeychainFormats
import KeychainFoundation

/// Platform rules (KC013, KC014, KC015, KC017): the macOS rules of docs/FIDELITY.md.
extension Linter {
    func platformFindings(_ fact: TargetFacts) -> [LintFinding] {
        let target = fact.target
        let file = target.claimsPath
        let appGroups = fact.strings(AccessGroupList.Key.applicationGroups)
        var findings: [LintFinding] = []
        func finding(
            _ rule: LintRuleID, _ severity: LintRule.Severity, key: String?, index: Int? = nil, value: String? = nil,
            _ message: String, fix: String, edits: [LintEdit] = [], runtime: (status: Int32, name: String)? = Self.missingEntitlement
        ) -> LintFinding {
            LintFinding(
                rule: rule, severity: severity, file: file, target: target.name, key: key, index: index, value: value, message: message,
                fix: fix, edits: edits, runtime: runtime)
        }
        let isAppClip = target.claims.entitlements[AccessGroupList.Key.appClip]?.bool == true
        if isAppClip {
            for (index, group) in fact.strings(AccessGroupList.Key.keychainAccessGroups) {
                findings.append(
                    finding(
                        .kc013, .error, key: AccessGroupList.Key.keychainAccessGroups, index: index, value: group,
                        "is listed by an App Clip: an App Clip may use only its application identifier's group; keychain calls naming another fail with errSecRestrictedAPI (-34020).",
                        fix: "drop keychain-access-groups from the App Clip; share through its parent app's application identifier group.",
                        edits: fact.edit(key: AccessGroupList.Key.keychainAccessGroups, index: nil, .remove),
                        runtime: (-34020, "errSecRestrictedAPI")))
            }
        }
        switch fact.platform {
        case .macos:
            if !fact.validated {
                for (index, group) in appGroups {
                    findings.append(
                        finding(
                            .kc013, .warning, key: AccessGroupList.Key.applicationGroups, index: index, value: group,
                            "macOS without a provisioning profile: securityd ignores com.apple.security.application-groups for keychain access; naming this group fails with errSecMissingEntitlement (-34018) (Apple test testInvalidAppGroups).",
                            fix:
                                "sign with a provisioning profile (pass it with --provisioning NAME=PATH), or share through keychain-access-groups."
                        ))
                }
            }
            if !fact.groups.hasWritableGroup {
                let calls =
                    fact.groups.withholdsToken
                    ? "with its application identifier ignored Apple withholds even com.apple.token, so every call fails with errSecMissingEntitlement (-34018)"
                    : "it can read nothing but com.apple.token and write nowhere: reads return errSecItemNotFound (-25300), writes errSecMissingEntitlement (-34018)"
                findings.append(
                    finding(
                        .kc014, .error, key: nil,
                        "(macOS) no usable keychain-access-groups entry and no profile-validated application identifier: in the data-protection keychain \(calls).",
                        fix: "sign an app-like bundle with a provisioning profile that allows its keychain-access-groups (TN3125, TN3137).")
                )
            }
            if let executable = target.claims.executable, !executable.containsBytes(".app/"), !executable.containsBytes(".appex/"),
                target.claims.entitlements[AccessGroupList.Key.keychainAccessGroups] != nil
                    || target.claims.entitlements[AccessGroupList.Key.macApplicationIdentifier] != nil
            {
                findings.append(
                    finding(
                        .kc015, .error, key: nil, value: executable,
                        "(macOS) a standalone executable claims keychain-access-groups or an application identifier: only an app-like bundle can carry the provisioning profile that allows them, so macOS kills it at launch.",
                        fix:
                            "wrap the tool in an app-like bundle with an embedded provisioning profile (TN3125), or use the file-based keychain.",
                        runtime: nil))
            }
            for (index, group) in fact.strings(AccessGroupList.Key.keychainAccessGroups)
            where group.sameBytes(as: AccessGroupList.tokenGroup) {
                findings.append(
                    finding(
                        .kc017, .warning, key: AccessGroupList.Key.keychainAccessGroups, index: index, value: group,
                        "(macOS) com.apple.token is implicit and no macOS provisioning profile can allow it: listing it can stop the app from launching.",
                        fix: "remove it from keychain-access-groups (forums 655285).",
                        edits: fact.edit(key: AccessGroupList.Key.keychainAccessGroups, index: index, .remove), runtime: nil))
            }
        case .ios:
            for (index, group) in appGroups where !group.hasPrefix("group.") {
                findings.append(
                    finding(
                        .kc013, .warning, key: AccessGroupList.Key.applicationGroups, index: index, value: group,
                        "is not an iOS app group identifier: those start with \"group.\"; the profile cannot allow it.",
                        fix: "name it \"group.\(group)\" (the macOS-style TEAMID. form is for macOS only).",
                        edits: fact.edit(key: AccessGroupList.Key.applicationGroups, index: index, .replace("group.\(group)"))))
            }
        }
        return findings
    }
}
