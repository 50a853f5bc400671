import KeychainCore

/// How a profile's provenance reads: where each group came from, whether a provisioning profile
/// allows it, and what a platform rule left out. Shared by `groups` and the debugging commands.
struct ProfileRenderer {
    let profile: Profile
    /// Where the profile came from, when the report says so (`groups`).
    var source: ProfileSource? = nil

    /// The claims file's last path component, for text lines.
    private var claimsFile: String { String(profile.path.split(separator: "/").last ?? Substring(profile.path)) }

    /// Where one group came from: `app.plist: keychain-access-groups[0]`.
    func origin(_ entry: AccessGroupList.Entry) -> String {
        if entry.isImplicit { return entry.source }
        return "\(claimsFile): \(entry.source)\(entry.index.map { "[\($0)]" } ?? "")"
    }

    /// One line saying what backs the claims.
    var claimsLine: String {
        if let provisioning = profile.provisioning {
            return "provisioning: \(provisioning.label) allows every claim"
        }
        if profile.claimsAreAllowlist {
            return
                "claims: allowlist used as claims (this is a provisioning profile; pass the app's entitlements as --profile and this file as --provisioning to check them)"
        }
        let rule =
            profile.platform == .macos
            ? "; on macOS unvalidated entitlements lose their application identifier and app groups"
            : ""
        return "claims: entitlements, not checked against a provisioning profile (--provisioning)\(rule)"
    }

    /// Why `ignored` entries were left out.
    static let ignoredReason =
        "macOS ignores the application identifier and app groups of a process no provisioning profile validates"

    /// The text block: claims, default, the numbered list, ignored claims.
    var text: String {
        let list = profile.accessGroups
        var out = "profile: \(profile.path) (\(profile.platform.rawValue))\(source.map { ", \($0.origin)" } ?? "")\n\(claimsLine)\n"
        out += "default: \(list.defaultGroup ?? "(none: this profile cannot write)")\n"
        if list.grantsEveryGroup { out += "grants every group (\"*\", --allow-any-group)\n" }
        for (index, entry) in list.entries.enumerated() {
            out += "\(index + 1). \(entry.group)  [\(origin(entry))]  \(entry.isWritable ? "read-write" : "read-only")"
            if let pattern = profile.allowingPattern(entry) { out += "  allowed by \(pattern)" }
            out += "\n"
        }
        for entry in list.ignored {
            out += "-  \(entry.group)  [\(origin(entry))]  ignored: \(Self.ignoredReason)\n"
        }
        for entry in list.patterns {
            out += "-  \(entry.group)  [\(origin(entry))]  a pattern the profile allows, not a group an app holds\n"
        }
        if list.entries.isEmpty {
            out +=
                list.withholdsToken
                ? "no access groups, not even the implicit com.apple.token: Apple withholds it when an application identifier was claimed but ignored, so every item command fails with errSecMissingEntitlement (-34018)\n"
                : "no access groups: every item command fails with errSecMissingEntitlement (-34018)\n"
        } else if !list.hasWritableGroup {
            out += "no writable group: writes fail with errSecMissingEntitlement (-34018); reads see only com.apple.token\n"
        }
        return out
    }

    /// The JSON object: `default` and `groups` (docs/REFERENCE.md) with each group's provenance.
    var json: [String: JSON.Value] {
        let list = profile.accessGroups
        func entryJSON(_ entry: AccessGroupList.Entry) -> [String: JSON.Value] {
            [
                "group": .string(entry.group), "source": .string(entry.source),
                "index": entry.index.map { .number(Int64($0)) } ?? .null,
                "file": entry.isImplicit ? .null : .string(profile.path),
            ]
        }
        let groups: [JSON.Value] = list.entries.map { entry in
            var object = entryJSON(entry)
            object["writable"] = .bool(entry.isWritable)
            if profile.provisioning != nil { object["allowedBy"] = profile.allowingPattern(entry).map { .string($0) } ?? .null }
            return .object(object)
        }
        let ignored: [JSON.Value] =
            list.ignored.map { entry in
                var object = entryJSON(entry)
                object["reason"] = .string(Explanation.Code.appGroupIgnoredPlatform.rawValue)
                return .object(object)
            }
            + list.patterns.map { entry in
                var object = entryJSON(entry)
                object["reason"] = .string("provisioning-pattern")
                return .object(object)
            }
        var provisioning: JSON.Value = .null
        if let profileFile = profile.provisioning {
            provisioning = .object([
                "file": .string(profileFile.path), "name": profileFile.name.map { .string($0) } ?? .null,
                "allows": .object(profileFile.allowlist.mapValues { .array($0.map { .string($0) }) }),
            ])
        }
        return [
            "default": list.defaultGroup.map { .string($0) } ?? .null, "groups": .array(groups), "ignored": .array(ignored),
            "platform": .string(profile.platform.rawValue), "validated": .bool(profile.isValidated),
            "claims": .object([
                "file": .string(profile.path),
                "form": .string(profile.claimsAreAllowlist ? "allowlist-as-claims" : "entitlements"),
            ]),
            "provisioning": provisioning,
            "source": source.map { .string($0.word) } ?? .null,
        ]
    }
}
