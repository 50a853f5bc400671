import KeychainFoundation

/// The calling app or extension as Apple builds it: what its signature claims (the entitlements
/// file), what its provisioning profile allows, the platform whose rules apply, and the access
/// groups that result.
package struct Profile: Sendable {
    /// The claims file (`--profile`).
    package let path: String
    /// The allowlist (`--provisioning`), when one was given.
    package let provisioning: ProvisioningProfile?
    /// Set when `--profile` is itself a provisioning profile and no `--provisioning` was given:
    /// its allowlist stands in for the claims (a wildcard there is then an ordinary group).
    package let claimsAreAllowlist: Bool
    /// Whose rules apply.
    package let platform: Platform
    /// The access groups, in Apple's order.
    package let accessGroups: AccessGroupList
    /// Things worth telling the user on stderr (ignored entitlements, the wildcard).
    package let warnings: [String]

    /// Whether a provisioning profile backs the claims (`SecTaskEntitlementsValidated` on macOS).
    package var isValidated: Bool { provisioning != nil || claimsAreAllowlist }

    /// The pattern of the provisioning profile that allows `entry`, when there is a profile.
    package func allowingPattern(_ entry: AccessGroupList.Entry) -> String? {
        provisioning?.pattern(allowing: entry.group, for: entry.source)
    }

    /// Loads the claims at `path` and, when given, the provisioning profile at `provisioningPath`.
    ///
    /// - Parameters:
    ///   - teamID: `--team-id`, used for build variables neither file can resolve.
    ///   - buildSettings: `--build-setting`, for the other variables of a source `.entitlements`.
    ///   - platform: `--platform`, overriding the profiles' own.
    ///   - allowWildcard: whether a `"*"` group is honoured.
    package static func load(
        path: String, provisioning provisioningPath: String? = nil, teamID: String?, buildSettings: [String: String] = [:],
        platform: Platform?, allowWildcard: Bool
    ) throws(ProfileError) -> Profile {
        let claims = try ProfileDocument.load(path: path)
        // A bundle brings its embedded provisioning profile, unless another is given.
        let provisioning = try (provisioningPath ?? claims.embeddedProvisioning).map { path throws(ProfileError) in
            try ProvisioningProfile.load(path: path)
        }
        return try make(
            from: claims, path: path, provisioning: provisioning, teamID: teamID, buildSettings: buildSettings, platform: platform,
            allowWildcard: allowWildcard)
    }

    /// A profile from its bytes: what the profile fuzzer drives.
    package static func decode(_ bytes: [UInt8], path: String, teamID: String?, platform: Platform?, allowWildcard: Bool)
        throws(ProfileError) -> Profile
    {
        try make(
            from: try ProfileDocument.decode(bytes, path: path), path: path, provisioning: nil, teamID: teamID,
            platform: platform, allowWildcard: allowWildcard)
    }

    private static func make(
        from document: ProfileDocument, path: String, provisioning: ProvisioningProfile?, teamID: String?,
        buildSettings: [String: String] = [:], platform: Platform?, allowWildcard: Bool
    ) throws(ProfileError) -> Profile {
        let variables = BuildVariables(
            document: document, signing: provisioning?.signing ?? ([], []), teamID: teamID, settings: buildSettings)
        let entitlements = try variables.resolve(document.entitlements, path: path)
        try AccessGroupList.checkStrings(entitlements, path: path)
        let resolvedPlatform = platform ?? provisioning?.platform ?? document.platform ?? .ios
        if let provisioning {
            let refusals = provisioning.refusals(of: entitlements, platform: resolvedPlatform)
            if !refusals.isEmpty { throw provisioning.refusalError(refusals, claimsPath: path, platform: resolvedPlatform) }
        }
        let claimsAreAllowlist = provisioning == nil && document.isProvisioningProfile
        var warnings: [String] = []
        let groups = AccessGroupList.from(
            entitlements: entitlements, platform: resolvedPlatform, validated: provisioning != nil || claimsAreAllowlist,
            allowWildcard: allowWildcard, allowlist: claimsAreAllowlist, warnings: &warnings)
        return Profile(
            path: path, provisioning: provisioning, claimsAreAllowlist: claimsAreAllowlist, platform: resolvedPlatform,
            accessGroups: groups, warnings: warnings)
    }
}
