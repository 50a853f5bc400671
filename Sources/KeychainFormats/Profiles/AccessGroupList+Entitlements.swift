import KeychainFoundation
import TextEscaping

/// Building the list from a profile's entitlements (docs/FIDELITY.md).
extension AccessGroupList {
    /// The entitlement keys that matter, in the order Apple reads them.
    package enum Key {
        package static let keychainAccessGroups = "keychain-access-groups"
        package static let associatedApplicationIdentifier = "com.apple.developer.associated-application-identifier"
        package static let applicationIdentifier = "application-identifier"
        package static let macApplicationIdentifier = "com.apple.application-identifier"
        package static let applicationGroups = "com.apple.security.application-groups"
        package static let appClip = "com.apple.developer.on-demand-install-capable"
    }

    /// The entitlements whose strings become access groups.
    package static let groupSources = [
        Key.keychainAccessGroups, Key.associatedApplicationIdentifier, Key.applicationIdentifier,
        Key.macApplicationIdentifier, Key.applicationGroups,
    ]

    /// Refuses a profile whose access-group, application-identifier or app-group string holds a
    /// control character (a NUL among them): no signing authority issues one, and a NUL would make
    /// the string mean one group to a C-string reader and another to everything else.
    package static func checkStrings(_ entitlements: [String: PlistValue], path: String) throws(ProfileError) {
        for key in groupSources {
            let elements: [PlistValue]
            switch entitlements[key] {
            case .string(let text): elements = [.string(text)]
            case .array(let array): elements = array
            default: continue
            }
            for (index, element) in elements.enumerated() {
                guard case .string(let text) = element, text.containsControlCharacters,
                    let bad = text.unicodeScalars.first(where: String.isControl)
                else { continue }
                let code = "U+" + String.hex(bad.value, digits: 4)
                let position = entitlements[key]?.string == nil ? " entry \(index)" : ""
                throw ProfileError(
                    "profile \(path): entitlement \(key)\(position) holds the control character \(code); no signing authority issues such an identifier, so the profile is refused."
                )
            }
        }
    }

    /// The entitlements that decide a keychain's groups, and the team's: a key one or two edits
    /// from one of them (or differing only in case) is a typo Apple does not read.
    package static let keychainKeys = [
        Key.keychainAccessGroups, Key.applicationGroups, Key.applicationIdentifier, Key.macApplicationIdentifier,
        Key.associatedApplicationIdentifier, "com.apple.developer.team-identifier",
    ]

    /// Each key of `entitlements` that is a misspelling of a keychain entitlement, with the key
    /// likely meant (sorted by key).
    package static func misspelledKeys(in entitlements: [String: PlistValue]) -> [(key: String, meant: String)] {
        entitlements.keys.sorted().compactMap { key in
            guard !keychainKeys.contains(key) else { return nil }
            if let sameLetters = keychainKeys.first(where: { $0.lowercased() == key.lowercased() }) { return (key, sameLetters) }
            return EditDistance.nearest(key, among: keychainKeys, within: 2).map { (key, $0) }
        }
    }

    /// The list for `entitlements` (build variables already resolved) on `platform`.
    ///
    /// An array entitlement holding any non-string element is ignored entirely. `"*"` grants every
    /// group only when `allowWildcard` is set; otherwise it is dropped and `warnings` says so. On
    /// macOS, entitlements no provisioning profile validated (`validated` false) keep only
    /// keychain-access-groups: AMFI would not have let the process run with them otherwise, while
    /// the application identifier and app groups are ignored (`SecTaskCopyAccessGroups`). The
    /// implicit token group is withheld when an application identifier was claimed and the list is
    /// otherwise empty.
    ///
    /// With `allowlist` (a provisioning profile standing in for the claims), a string ending in `*`
    /// is a signing pattern, not a group: it is kept apart (`patterns`), so that the default group
    /// is the application identifier when that is concrete, and nothing is stored in `TEAM.*`.
    package static func from(
        entitlements: [String: PlistValue], platform: Platform, validated: Bool = true, allowWildcard: Bool,
        allowlist: Bool = false, warnings: inout [String]
    ) -> AccessGroupList {
        for (key, meant) in misspelledKeys(in: entitlements) {
            warnings.append("entitlement \(key) is not one Apple reads: \(meant) was likely meant, and nothing under it counts.")
        }
        var entries: [Entry] = []
        var ignored: [Entry] = []
        var patterns: [Entry] = []
        let honoursAppIdentity = platform != .macos || validated
        func append(_ key: String, _ values: [String], indexed: Bool, honoured: Bool = true) {
            var new = values.enumerated().map { Entry(group: $1, source: key, index: indexed ? $0 : nil) }
            if allowlist {
                patterns += new.filter { $0.group.hasSuffix("*") }
                new.removeAll { $0.group.hasSuffix("*") }
            }
            if honoured { entries += new } else { ignored += new }
        }
        func appendArray(_ key: String, honoured: Bool = true) {
            guard let value = entitlements[key] else { return }
            if let strings = value.stringArray {
                append(key, strings, indexed: true, honoured: honoured)
            } else {
                warnings.append("entitlement \(key) is not an array of strings; ignored, as Apple ignores it.")
            }
        }
        appendArray(Key.keychainAccessGroups)
        appendArray(Key.associatedApplicationIdentifier)
        let appIDKey = entitlements[Key.applicationIdentifier]?.string != nil ? Key.applicationIdentifier : Key.macApplicationIdentifier
        let appID = entitlements[appIDKey]?.string
        if let appID { append(appIDKey, [appID], indexed: false, honoured: honoursAppIdentity) }
        if entitlements[Key.appClip]?.bool == true {
            if entitlements[Key.applicationGroups] != nil {
                warnings.append("App Clip profile: \(Key.applicationGroups) do not count as access groups.")
            }
        } else {
            appendArray(Key.applicationGroups, honoured: honoursAppIdentity)
        }
        var withholdsToken = false
        if platform == .macos, !entries.contains(where: { $0.group.sameBytes(as: tokenGroup) }) {
            withholdsToken = entries.isEmpty && appID != nil
            if !withholdsToken { entries.append(Entry(group: tokenGroup, source: implicitSource)) }
        }
        var grantsEveryGroup = false
        if entries.contains(where: { $0.group.sameBytes(as: wildcard) }) {
            if allowWildcard {
                grantsEveryGroup = true
                warnings.append("profile grants every access group (\"*\"), honoured because --allow-any-group was given.")
            } else {
                entries.removeAll { $0.group.sameBytes(as: wildcard) }
                warnings.append(
                    "profile lists \"*\" (every access group), which Apple grants only to its own tools; ignored without --allow-any-group."
                )
            }
        }
        return AccessGroupList(
            entries: entries, grantsEveryGroup: grantsEveryGroup, ignored: ignored, withholdsToken: withholdsToken,
            isAppClip: entitlements[Key.appClip]?.bool == true,
            applicationIdentifier: honoursAppIdentity && !(allowlist && appID?.hasSuffix("*") == true) ? appID : nil, patterns: patterns)
    }
}
