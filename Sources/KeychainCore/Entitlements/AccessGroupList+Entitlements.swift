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

    /// The entitlements whose strings become access groups.
    static let groupSources = [
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
                let hex = String(bad.value, radix: 16, uppercase: true)
                let code = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
                let position = entitlements[key]?.string == nil ? " entry \(index)" : ""
                throw ProfileError(
                    "profile \(path): entitlement \(key)\(position) holds the control character \(code); no signing authority issues such an identifier, so the profile is refused."
                )
            }
        }
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
        if platform == .macos, !entries.contains(where: { $0.group.sameBytes(as: tokenGroup) }) {
            entries.append(Entry(group: tokenGroup, source: "implicit on macOS"))
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
        return AccessGroupList(entries: entries, grantsEveryGroup: grantsEveryGroup)
    }
}
