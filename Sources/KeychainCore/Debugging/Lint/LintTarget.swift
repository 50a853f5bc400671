import KeychainFormats
import KeychainFoundation

/// One target lint checks: what it claims, what signs it, and its source, with the facts the rules
/// share worked out once.
package struct LintTarget: Sendable {
    package let name: String
    /// The claimed entitlements (signed output, `.xcent`, or a source `.entitlements`).
    package let claimsPath: String
    package let claims: ProfileDocument
    package let provisioning: ProvisioningProfile?
    /// The source `.entitlements` file given beside signed claims (`--source`), for KC011.
    package let sourcePath: String?
    package let source: ProfileDocument?
    /// The build settings for a source file's variables: the built bundle's (when the claims were
    /// read from one), overridden by `--build-setting`.
    package let buildSettings: [String: String]

    package init(
        name: String, claimsPath: String, claims: ProfileDocument, provisioning: ProvisioningProfile? = nil, sourcePath: String? = nil,
        source: ProfileDocument? = nil, buildSettings: [String: String] = [:]
    ) {
        self.name = name
        self.claimsPath = claimsPath
        self.claims = claims
        self.provisioning = provisioning
        self.sourcePath = sourcePath
        self.source = source
        if let fromBundle = claims.bundle?.buildSettings, !fromBundle.isEmpty {
            self.buildSettings = fromBundle.merging(buildSettings) { _, given in given }
        } else {
            self.buildSettings = buildSettings
        }
    }

    /// Whether the claims file is a source `.entitlements`, where build variables belong.
    var claimsAreSource: Bool { claimsPath.hasSuffix(".entitlements") }
}

/// What every rule needs to know about a target, derived once.
struct TargetFacts {
    let target: LintTarget
    let platform: Platform
    /// The entitlements with the build variables that can be resolved, resolved.
    let entitlements: [String: PlistValue]
    /// The access groups Apple would build (nothing honoured that a platform rule ignores).
    let groups: AccessGroupList
    /// The App ID prefix of its application identifier, when it has one.
    let appIDPrefix: String?
    /// The Team ID: the provisioning profile's, else the App ID prefix, else `--team-id`.
    let team: String?
    /// Whether a provisioning profile backs the claims.
    let validated: Bool

    init(_ target: LintTarget, platform given: Platform?, teamID: String?) {
        self.target = target
        let document = target.claims
        platform = given ?? target.provisioning?.platform ?? document.platform ?? .ios
        let variables = BuildVariables(
            document: document, signing: target.provisioning?.signing ?? ([], []), teamID: teamID, settings: target.buildSettings)
        var resolved = document.entitlements
        for key in AccessGroupList.groupSources {
            guard let value = document.entitlements[key],
                let one = try? variables.resolve([key: value], path: target.claimsPath)[key]
            else { continue }
            resolved[key] = one
        }
        entitlements = resolved
        // A group whose variable stayed unresolved is reported (KC002), never modelled as a group.
        var modelled = resolved
        for key in AccessGroupList.groupSources {
            switch resolved[key] {
            case .string(let text) where text.containsBytes("$("): modelled[key] = nil
            case .array(let elements): modelled[key] = .array(elements.filter { !($0.string?.containsBytes("$(") ?? false) })
            default: break
            }
        }
        validated = target.provisioning != nil || document.isProvisioningProfile
        var warnings: [String] = []
        groups = AccessGroupList.from(
            entitlements: modelled, platform: platform, validated: validated, allowWildcard: false,
            allowlist: target.provisioning == nil && document.isProvisioningProfile, warnings: &warnings)
        let appID =
            resolved[AccessGroupList.Key.applicationIdentifier]?.string ?? resolved[AccessGroupList.Key.macApplicationIdentifier]?.string
        appIDPrefix = appID.flatMap { GroupPrefix.of($0).valid }
        team =
            target.provisioning?.document.teamIdentifiers.first ?? appIDPrefix
            ?? teamID.map { $0.hasSuffix(".") ? String($0.dropLast()) : $0 }
    }

    /// Its resolved application identifier (`TEAMID.bundle.id`), when it has one.
    var applicationIdentifier: String? {
        entitlements[AccessGroupList.Key.applicationIdentifier]?.string
            ?? entitlements[AccessGroupList.Key.macApplicationIdentifier]?.string
    }

    /// Whether lint can state fixes as edits of the claims file: a plist or `.entitlements` file,
    /// not a provisioning profile or a built bundle, which only signing changes.
    var claimsAreEditable: Bool {
        !target.claims.isProvisioningProfile && target.claims.bundle == nil && target.claims.executable == nil
    }

    /// `action` on the claims file's `key[index]`, or nothing when the file cannot be edited.
    func edit(key: String, index: Int?, _ action: LintEdit.Action) -> [LintEdit] {
        claimsAreEditable ? [LintEdit(file: target.claimsPath, key: key, index: index, action)] : []
    }

    /// The strings of array entitlement `key` with their indices (non-strings skipped).
    func strings(_ key: String) -> [(index: Int, value: String)] {
        guard case .array(let elements) = entitlements[key] else { return [] }
        return elements.enumerated().compactMap { index, element in element.string.map { (index, $0) } }
    }
}
