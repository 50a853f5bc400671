/// The calling app or extension: its entitlements, platform and access groups.
package struct Profile: Sendable {
    /// The file it was loaded from.
    package let path: String
    /// Whose rules apply.
    package let platform: Platform
    /// The access groups, in Apple's order.
    package let accessGroups: AccessGroupList
    /// Things worth telling the user on stderr (ignored entitlements, the wildcard).
    package let warnings: [String]

    /// Loads the profile at `path`.
    ///
    /// - Parameters:
    ///   - teamID: `--team-id`, used for build variables the profile cannot resolve itself.
    ///   - platform: `--platform`, overriding the profile's own.
    ///   - allowWildcard: whether a `"*"` group is honoured.
    package static func load(path: String, teamID: String?, platform: Platform?, allowWildcard: Bool)
        throws(ProfileError) -> Profile
    {
        try make(from: try ProfileDocument.load(path: path), path: path, teamID: teamID, platform: platform, allowWildcard: allowWildcard)
    }

    /// A profile from its bytes: what the profile fuzzer drives.
    package static func decode(_ bytes: [UInt8], path: String, teamID: String?, platform: Platform?, allowWildcard: Bool)
        throws(ProfileError) -> Profile
    {
        try make(
            from: try ProfileDocument.decode(bytes, path: path), path: path, teamID: teamID, platform: platform,
            allowWildcard: allowWildcard)
    }

    private static func make(from document: ProfileDocument, path: String, teamID: String?, platform: Platform?, allowWildcard: Bool)
        throws(ProfileError) -> Profile
    {
        let variables = BuildVariables(document: document, teamID: teamID)
        let entitlements = try variables.resolve(document.entitlements, path: path)
        try AccessGroupList.checkStrings(entitlements, path: path)
        let resolvedPlatform =
            platform ?? (document.platforms.contains { $0 == "OSX" || $0 == "macOS" } ? .macos : .ios)
        var warnings: [String] = []
        let groups = AccessGroupList.from(
            entitlements: entitlements, platform: resolvedPlatform, allowWildcard: allowWildcard,
            warnings: &warnings)
        return Profile(path: path, platform: resolvedPlatform, accessGroups: groups, warnings: warnings)
    }
}
