/// Building the list from a profile's entitlements (SEMANTICS §2).
extension AccessGroupList {
    /// The entitlement keys that matter, in the order Apple reads them.
    package enum Key {
        static let keychainAccessGroups = "keychain-access-groups"
        static let associatedApplicationIdentifier = "com.apple.developer.associated-application-identifier"
        static let applicationIdentifier = "application-identifier"
        static let macApplicationIdentifier = "com.apple.application-identifier"
        static let applicationGroups = "com.apple.security.application-groups"
        static let appClip = "com.apple.developer.on-demand-install-capable"
    }

    /// The list for `entitlements` (build variables already resolved) on `platform`.
    ///
    /// An array entitlement holding any non-string element is ignored entirely. `"*"` grants every
    /// group only when `allowWildcard` is set; otherwise it is dropped and `warnings` says so.
    package static func from(
        entitlements: [String: PlistValue], platform: Platform, allowWildcard: Bool,
        warnings: inout [String]
    ) -> AccessGroupList {
        var entries: [Entry] = []
        func append(_ key: String, _ values: [String]) {
            entries += values.map { Entry(group: $0, source: key) }
        }
        func appendArray(_ key: String) {
            guard let value = entitlements[key] else { return }
            if let strings = value.stringArray {
                append(key, strings)
            } else {
                warnings.append("entitlement \(key) is not an array of strings; ignored, as Apple ignores it.")
            }
        }
        appendArray(Key.keychainAccessGroups)
        appendArray(Key.associatedApplicationIdentifier)
        if let appID = entitlements[Key.applicationIdentifier]?.string {
            append(Key.applicationIdentifier, [appID])
        } else if let appID = entitlements[Key.macApplicationIdentifier]?.string {
            append(Key.macApplicationIdentifier, [appID])
        }
        if entitlements[Key.appClip]?.bool == true {
            if entitlements[Key.applicationGroups] != nil {
                warnings.append("App Clip profile: \(Key.applicationGroups) do not count as access groups.")
            }
        } else {
            appendArray(Key.applicationGroups)
        }
        if platform == .macos, !entries.contains(where: { $0.group == tokenGroup }) {
            entries.append(Entry(group: tokenGroup, source: "implicit on macOS"))
        }
        var grantsEveryGroup = false
        if entries.contains(where: { $0.group == wildcard }) {
            if allowWildcard {
                grantsEveryGroup = true
                warnings.append("profile grants every access group (\"*\"), honoured because --allow-any-group was given.")
            } else {
                entries.removeAll { $0.group == wildcard }
                warnings.append(
                    "profile lists \"*\" (every access group), which Apple grants only to its own tools; ignored without --allow-any-group."
                )
            }
        }
        return AccessGroupList(entries: entries, grantsEveryGroup: grantsEveryGroup)
    }
}
