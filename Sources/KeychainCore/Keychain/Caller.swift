import KeychainFormats
import KeychainFoundation

/// The process a request runs as: its profile's name and access groups.
package struct Caller: Sendable {
    /// How to name the caller in hints (the profile's path).
    package let name: String
    /// Its access groups.
    package let groups: AccessGroupList
    /// Whose SecItem front end it calls through: macOS's refuses some values iOS's stores.
    package let platform: Platform

    package init(name: String, groups: AccessGroupList, platform: Platform = .ios) {
        self.name = name
        self.groups = groups
        self.platform = platform
    }

    /// A caller from a loaded profile.
    package init(_ profile: Profile) { self.init(name: profile.path, groups: profile.accessGroups, platform: profile.platform) }

    /// An internet password's port that is not a number (such as ""): macOS's SecItem refuses it
    /// (errSecParam), iOS's stores it as given, as `copyNumber` keeps a string that is not exactly
    /// an integer (`SecDbItem.c`).
    func checkPort(_ values: [String: AttributeValue]) throws(KeychainError) {
        guard platform == .macos, let port = values[Schema.port], port.storageClass != .integer else { return }
        throw KeychainError(
            .param,
            hint: "port '\(port.displayText)' is not a number: macOS refuses it (iOS stores it as given); give a port number or none.")
    }
}

/// The errSecMissingEntitlement answers, each with a hint that explains this case.
extension Caller {
    /// Apple's App Clip restrictions, checked right after the access groups exist
    /// (`SecItemServer.c`, `appClipHasAcceptableAccessGroups` in add, copy-matching, update and
    /// delete): an App Clip may use its application identifier's group alone (and read the token
    /// group), and may not make an item synchronizable (`makingSynchronizable`: what an add or an
    /// update's changes write).
    func checkAppClip(makingSynchronizable: Bool = false) throws(KeychainError) {
        guard groups.isAppClip else { return }
        guard groups.appClipGroupsAcceptable else {
            throw KeychainError(
                .restrictedAPI,
                hint: "\(name) is an App Clip: its access groups may be its application identifier alone (and com.apple.token); "
                    + "it has \(groups.readable.joined(separator: ", ")).")
        }
        if makingSynchronizable {
            throw KeychainError(
                .restrictedAPI, hint: "\(name) is an App Clip, and an App Clip's items never sync: add them with --sync no.")
        }
    }

    /// The process has no group it may write (or, reading, read).
    func noGroups(writing: Bool) -> KeychainError {
        if groups.withholdsToken,
            let appID = groups.ignored.first(where: {
                $0.source == AccessGroupList.Key.applicationIdentifier || $0.source == AccessGroupList.Key.macApplicationIdentifier
            })
        {
            return KeychainError(
                .missingEntitlement,
                hint:
                    "profile \(name) (macOS) claims \(appID.source) \(appID.group), which is ignored because no provisioning profile validates it; with no other group Apple withholds even the implicit com.apple.token, so every call fails with -34018. Pass --provisioning PATH, or claim keychain-access-groups."
            )
        }
        if !groups.patterns.isEmpty {
            var unique: [String] = []
            for entry in groups.patterns where !unique.contains(entry.group) { unique.append(entry.group) }
            let patterns = unique.joined(separator: ", ")
            return KeychainError(
                .missingEntitlement,
                hint:
                    "profile \(name) is a provisioning profile used as the claims, and it allows only patterns (\(patterns)), which are no group an app holds: pass the app's entitlements as --profile (its bundle or executable will do) with this file as --provisioning."
            )
        }
        let what = writing ? "writable" : "readable"
        let has = groups.groups.isEmpty ? "no access groups at all" : "only \(groups.groups.joined(separator: ", "))"
        var hint =
            "profile \(name) has no \(what) access group (\(has)): it needs keychain-access-groups, an application-identifier or app groups."
        if let rule = ignoredRule {
            hint += " " + rule
        } else if groups.entries.contains(where: \.isImplicit) {
            hint +=
                " On macOS a keychain-access-groups entitlement needs a provisioning profile to validate it (TN3125): an unsigned, ad-hoc or command-line build has none, so it reads only com.apple.token (-25300) and cannot write (-34018)."
        }
        return KeychainError(.missingEntitlement, hint: hint)
    }

    /// What a platform rule left out, when it left anything: the reason a macOS process without a
    /// provisioning profile has fewer groups than it claims.
    var ignoredRule: String? {
        guard !groups.ignored.isEmpty else { return nil }
        let names = groups.ignored.map(\.group).joined(separator: ", ")
        return
            "On macOS the application identifier and app groups of a process that no provisioning profile validates are ignored (\(names)); pass --provisioning PATH."
    }

    /// errSecItemNotFound from a find, with the platform rule when one left the caller with less.
    func notFound(_ error: KeychainError) -> KeychainError {
        guard let rule = ignoredRule else { return error }
        return KeychainError(error.status, hint: error.hint + " " + rule, damaged: error.damaged)
    }

    /// `group` is not one the process may use.
    func refused(group: String, writing: Bool) -> KeychainError {
        let allowed = writing ? groups.writable : groups.readable
        if let ignored = groups.ignoredEntry(for: group) {
            return KeychainError(
                .missingEntitlement,
                hint:
                    "access group '\(group)' comes from \(ignored.source) of profile \(name), which macOS ignores because no provisioning profile validates these entitlements; pass --provisioning PATH, or claim the group in keychain-access-groups."
            )
        }
        var hint =
            group.isEmpty
            ? "the empty string is not an access group;"
            : "access group '\(group)' is not \(writing ? "writable" : "readable") by profile \(name);"
        hint +=
            allowed.isEmpty ? " it has none." : " its \(writing ? "writable" : "readable") groups are: \(allowed.joined(separator: ", "))."
        if group.sameBytes(as: AccessGroupList.tokenGroup) {
            hint +=
                " Only macOS grants com.apple.token without an entitlement; on iOS it must be listed in keychain-access-groups and allowed by the provisioning profile (forums 655285)."
        } else if group.containsBytes("$(") {
            hint +=
                " Build variables such as $(AppIdentifierPrefix) are resolved only inside profiles; write the resolved group (TEAMID.…)."
        } else if !group.isEmpty, let meant = groups.groups.first(where: { $0.hasSuffix("." + group) && $0.count > group.count + 1 }) {
            hint += " Did you mean '\(meant)'? Access groups carry the Team ID prefix."
        } else if let prefix = GroupPrefix.of(group).valid,
            let meant = groups.groups.first(where: { $0.sameBytes(as: String(group.dropFirst(prefix.count + 1))) })
        {
            // The prefix put before a group that has its own already, or before an app group.
            let why =
                GroupPrefix.of(meant).valid != nil
                ? "The App ID prefix is written twice."
                : meant.hasPrefix("group.") ? "App groups carry no Team ID prefix on iOS." : "It has no Team ID prefix."
            hint += " Did you mean '\(meant)'? \(why)"
        }
        return KeychainError(.missingEntitlement, hint: hint)
    }

    /// Whether the process may name `group` in a call that reads or (`writing`) writes.
    func mayUse(_ group: String, writing: Bool) -> Bool { writing ? groups.canWrite(group) : groups.canRead(group) }

    /// Checks an explicit group.
    func check(group: String, writing: Bool) throws(KeychainError) {
        if !mayUse(group, writing: writing) { throw refused(group: group, writing: writing) }
    }
}
