import KeychainFormats
import KeychainFoundation

/// Provisioning-profile rules (KC009, KC019, KC020).
extension Linter {
    /// Thirty days, in milliseconds: an expiry this close is a warning.
    static let expiryWarning: Int64 = 30 * 86_400_000

    /// The claim a refused one was meant to be: the same group under the profile's team when the
    /// profile allows that (a group copied from another team's target), else the one value the
    /// profile allows and the target does not claim yet (a fork's own group for the upstream one).
    static func allowedInstead(
        _ refusal: ProvisioningProfile.Refusal, of fact: TargetFacts, by profile: ProvisioningProfile, allowed: [String]
    ) -> String? {
        if let prefix = GroupPrefix.of(refusal.value).valid, let team = profile.document.teamIdentifiers.first, prefix != team {
            let moved = team + refusal.value.dropFirst(prefix.count)
            return profile.pattern(allowing: moved, for: refusal.entitlement) == nil ? nil : moved
        }
        let claimed = fact.strings(refusal.entitlement).map(\.value)
        let unclaimed = allowed.filter { value in
            !value.containsBytes("*") && !value.sameBytes(as: AccessGroupList.tokenGroup) && !claimed.contains { $0.sameBytes(as: value) }
        }
        return unclaimed.count == 1 ? unclaimed[0] : nil
    }

    func profileFindings(_ fact: TargetFacts) -> [LintFinding] {
        guard let profile = fact.target.provisioning else { return [] }
        let target = fact.target
        var findings: [LintFinding] = []
        let consequence =
            fact.platform == .macos
            ? "macOS kills the app at launch"
            : "iOS refuses to install it (0xe8008016) and App Store Connect rejects it (ITMS-90164)"
        for refusal in profile.refusals(of: fact.entitlements, platform: fact.platform) {
            let allowed =
                profile.allowlist[
                    refusal.entitlement == AccessGroupList.Key.macApplicationIdentifier
                        ? AccessGroupList.Key.applicationIdentifier : refusal.entitlement] ?? []
            let instead = refusal.index == nil ? nil : Self.allowedInstead(refusal, of: fact, by: profile, allowed: allowed)
            findings.append(
                LintFinding(
                    rule: .kc009, severity: .error, file: target.claimsPath, target: target.name, key: refusal.entitlement,
                    index: refusal.index, value: refusal.value,
                    message:
                        "is not allowed by \(profile.name.map { "profile \"\($0)\"" } ?? profile.path) (allows: \(allowed.isEmpty ? "nothing" : allowed.joined(separator: ", "))): \(consequence).",
                    fix:
                        "claim only what the profile allows\(instead.map { " (\($0) instead)" } ?? ""), or regenerate the profile with this capability (\(profile.path)).",
                    edits: refusal.index == nil
                        ? [] : fact.edit(key: refusal.entitlement, index: refusal.index, instead.map { .replace($0) } ?? .remove)))
        }
        for key in AccessGroupList.groupSources {
            let values = profile.document.entitlements[key].map { $0.stringArray ?? ($0.string.map { [$0] } ?? []) } ?? []
            for value in values where value.containsBytes("$(") {
                findings.append(
                    LintFinding(
                        rule: .kc019, severity: .warning, file: profile.path, target: target.name, key: key, value: value,
                        message:
                            "a provisioning profile holding a build variable was not issued by Apple (real profiles hold TEAMID.* and resolved identifiers): its allowlist cannot be trusted.",
                        fix: "download the profile from the developer account, or decode the one embedded in the signed app."))
            }
        }
        if let expiration = profile.document.expiration {
            let date = ISO8601.format(expiration).replacingBytes(".000Z", with: "Z")
            if expiration <= now {
                findings.append(
                    LintFinding(
                        rule: .kc020, severity: .error, file: profile.path, target: target.name, key: "ExpirationDate", value: date,
                        message: "the profile expired on \(date): the app will not launch.",
                        fix: "renew the profile and re-sign the app."))
            } else if expiration - now < Self.expiryWarning {
                let days = (expiration - now) / 86_400_000
                findings.append(
                    LintFinding(
                        rule: .kc020, severity: .warning, file: profile.path, target: target.name, key: "ExpirationDate", value: date,
                        message:
                            "the profile expires on \(date) (in \(days) day\(days == 1 ? "" : "s")); after that the app will not launch.",
                        fix: "renew the profile before then."))
            }
        }
        if let profilePlatform = profile.platform, profilePlatform != fact.platform {
            findings.append(
                LintFinding(
                    rule: .kc020, severity: .error, file: profile.path, target: target.name, key: "Platform",
                    value: profile.document.platforms.joined(separator: ", "),
                    message:
                        "the profile is for \(profilePlatform.rawValue), the target runs on \(fact.platform.rawValue): it cannot sign this build.",
                    fix: "use a \(fact.platform.rawValue) profile, or pass the right --platform."))
        }
        // With no --platform the target takes the profile's: entitlements shaped for the other
        // platform (iOS's application-identifier, macOS's com.apple.application-identifier) say
        // which side is which.
        if let profilePlatform = profile.platform, profilePlatform == fact.platform,
            let shaped = Self.platformShape(of: target.claims.entitlements), shaped != profilePlatform
        {
            findings.append(
                LintFinding(
                    rule: .kc020, severity: .error, file: profile.path, target: target.name, key: "Platform",
                    value: profile.document.platforms.joined(separator: ", "),
                    message:
                        "the profile is for \(profilePlatform.displayName), and \(target.claimsPath)'s entitlements are \(shaped == .ios ? "an" : "a") \(shaped.displayName) target's (\(Self.identifierKey(shaped))): one of the two is not this target's.",
                    fix:
                        "give this target its \(shaped.displayName) profile, or check the \(profilePlatform.displayName) target's entitlements (\(Self.identifierKey(profilePlatform)))."
                ))
        }
        // A development profile lists its devices by nature (get-task-allow): only a distribution
        // build limited to devices is worth a warning.
        let development = profile.document.entitlements["get-task-allow"]?.bool == true
        if fact.platform == .macos, !development, let devices = profile.document.provisionedDevices, devices > 0 {
            findings.append(
                LintFinding(
                    rule: .kc020, severity: .warning, file: profile.path, target: target.name, key: "ProvisionedDevices",
                    message:
                        "the macOS profile lists \(devices) provisioned device\(devices == 1 ? "" : "s"): this build runs only on those Macs.",
                    fix: "distribute with a Developer ID or Mac App Store profile, which lists no devices."))
        }
        return findings
    }

    /// The platform a target's entitlements are shaped for, by the application identifier key it
    /// claims; `nil` when it claims neither or both.
    static func platformShape(of entitlements: [String: PlistValue]) -> Platform? {
        let ios = entitlements[AccessGroupList.Key.applicationIdentifier] != nil
        let macos = entitlements[AccessGroupList.Key.macApplicationIdentifier] != nil
        return ios == macos ? nil : (ios ? .ios : .macos)
    }

    /// The application identifier's key on `platform`.
    static func identifierKey(_ platform: Platform) -> String {
        platform == .ios ? AccessGroupList.Key.applicationIdentifier : AccessGroupList.Key.macApplicationIdentifier
    }
}
