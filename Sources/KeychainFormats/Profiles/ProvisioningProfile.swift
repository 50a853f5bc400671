import KeychainFoundation

/// What a provisioning profile allows: its `Entitlements` read as an allowlist, never as groups.
///
/// TN3125: an entry ending in `*` (`SKMME9E2Y8.*`) allows every claim with that literal prefix;
/// anywhere else `*` is an ordinary character. A claim the allowlist does not cover means the app
/// would not launch: iOS refuses to install it (0xe8008016) and macOS kills it at launch.
package struct ProvisioningProfile: Sendable {
    /// The file.
    package let path: String
    /// Its `Name`, when it has one.
    package let name: String?
    /// Its platform, when it names one keychainctl models.
    package let platform: Platform?
    /// Patterns per entitlement, the application identifier under one key whichever spelling the
    /// profile uses.
    package let allowlist: [String: [String]]
    /// `ApplicationIdentifierPrefix` and `TeamIdentifier`, for build variables.
    package let document: ProfileDocument

    /// The entitlements whose claims a profile must cover (a `TEAMID.`-style app group on macOS
    /// needs no profile, and `com.apple.token` on macOS is implicit; both are skipped).
    package static let restricted = [
        AccessGroupList.Key.keychainAccessGroups, AccessGroupList.Key.applicationIdentifier, AccessGroupList.Key.applicationGroups,
    ]

    /// What resolves build variables in the claims it signs: its App ID prefixes and Team IDs.
    package var signing: (appPrefixes: [String], teams: [String]) { (document.applicationIdentifierPrefixes, document.teamIdentifiers) }

    /// The provisioning profile at `path`: a profile file, or the one a built app embeds (a bundle,
    /// an `.ipa`, an `.xcarchive`), which is what signed it.
    package static func load(path: String) throws(ProfileError) -> ProvisioningProfile {
        let document = try ProfileDocument.load(path: path)
        guard let bundle = document.bundle else { return try ProvisioningProfile(document, path: path) }
        guard let embedded = bundle.provisioning else {
            throw ProfileError(
                "\(path) embeds no provisioning profile (no \(bundle.isMacOS ? "Contents/embedded.provisionprofile" : "embedded.mobileprovision"))."
            )
        }
        return try ProvisioningProfile(try ProfileDocument.load(path: embedded), path: embedded)
    }

    /// Reads `document` (from `path`) as an allowlist; a file that is not a provisioning profile
    /// is a ProfileError.
    package init(_ document: ProfileDocument, path: String) throws(ProfileError) {
        guard document.isProvisioningProfile else {
            throw ProfileError(
                "provisioning profile \(path) has no Entitlements dictionary: it is an entitlements file, which belongs in --profile.")
        }
        self.path = path
        name = document.name
        platform = document.platform
        self.document = document
        var allowlist: [String: [String]] = [:]
        for key in Self.restricted {
            var value = document.entitlements[key]
            if key == AccessGroupList.Key.applicationIdentifier, value == nil {
                value = document.entitlements[AccessGroupList.Key.macApplicationIdentifier]
            }
            switch value {
            case .string(let text): allowlist[key] = [text]
            case .array: allowlist[key] = value?.stringArray ?? []
            default: allowlist[key] = []
            }
        }
        self.allowlist = allowlist
    }

    /// How the profile is named in messages: its file, and its `Name` when it has one.
    package var label: String { name.map { "\(path) (\"\($0)\")" } ?? path }

    /// The pattern that allows `value` for entitlement `key`, or `nil`.
    package func pattern(allowing value: String, for key: String) -> String? {
        allowlist[Self.allowlistKey(key)]?.first { Self.matches($0, value) }
    }

    /// Whether allowlist entry `pattern` covers `value`: exactly, or by literal prefix when the
    /// entry ends in `*`.
    package static func matches(_ pattern: String, _ value: String) -> Bool {
        guard pattern.utf8.last == UInt8(ascii: "*") else { return value.sameBytes(as: pattern) }
        return value.utf8.starts(with: pattern.utf8.dropLast())
    }

    private static func allowlistKey(_ key: String) -> String {
        key == AccessGroupList.Key.macApplicationIdentifier ? AccessGroupList.Key.applicationIdentifier : key
    }

    /// A claim the profile does not cover.
    package struct Refusal: Sendable, Equatable {
        package let entitlement: String
        /// The position in an array entitlement; `nil` for a string one.
        package let index: Int?
        package let value: String

        /// `keychain-access-groups[1] "SKMME9E2Y8.com.example.shared"`.
        package var claim: String { "\(entitlement)\(index.map { "[\($0)]" } ?? "") \"\(value)\"" }
    }

    /// Every claim of `entitlements` (resolved) on `platform` that the profile does not allow.
    package func refusals(of entitlements: [String: PlistValue], platform: Platform) -> [Refusal] {
        var refusals: [Refusal] = []
        for key in Self.restricted + [AccessGroupList.Key.macApplicationIdentifier] {
            let claims: [(Int?, String)]
            switch entitlements[key] {
            case .string(let text): claims = [(nil, text)]
            case .array(let elements):
                claims = elements.enumerated().compactMap { index, element in element.string.map { (index, $0) } }
            default: continue
            }
            for (index, value) in claims where !exempt(value, key: key, platform: platform) {
                if pattern(allowing: value, for: key) == nil {
                    refusals.append(Refusal(entitlement: key, index: index, value: value))
                }
            }
        }
        return refusals
    }

    /// Claims no profile has to cover: the token group on macOS (implicit there, and no macOS
    /// profile can list it) and macOS-style `TEAMID.` app groups (Quinn, "App Groups: macOS vs iOS").
    private func exempt(_ value: String, key: String, platform: Platform) -> Bool {
        guard platform == .macos else { return false }
        switch key {
        case AccessGroupList.Key.keychainAccessGroups: return value.sameBytes(as: AccessGroupList.tokenGroup)
        case AccessGroupList.Key.applicationGroups: return !value.hasPrefix("group.")
        default: return false
        }
    }

    /// The exit-78 message for `refusals` of the claims in `claimsPath`.
    package func refusalError(_ refusals: [Refusal], claimsPath: String, platform: Platform) -> ProfileError {
        let first = refusals[0]
        let allowed = allowlist[Self.allowlistKey(first.entitlement)] ?? []
        let consequence =
            platform == .macos
            ? "macOS would kill the app at launch"
            : "iOS would refuse to install it (0xe8008016) and App Store Connect would reject it (ITMS-90164)"
        var message =
            "profile \(claimsPath): \(first.claim) is not allowed by provisioning profile \(label), "
            + "which allows \(allowed.isEmpty ? "nothing for that entitlement" : allowed.joined(separator: ", ")): \(consequence)."
        if refusals.count > 1 {
            message += " Also not allowed: \(refusals.dropFirst().map(\.claim).joined(separator: ", "))."
        }
        return ProfileError(message)
    }
}
