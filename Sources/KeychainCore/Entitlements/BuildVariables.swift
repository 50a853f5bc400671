/// `$(AppIdentifierPrefix)` and `$(TeamIdentifierPrefix)` in an entitlements source file, resolved
/// the way Xcode does at signing time (docs/FIDELITY.md): the prefix with its trailing dot.
struct BuildVariables {
    static let appIdentifierPrefix = "$(AppIdentifierPrefix)"
    static let teamIdentifierPrefix = "$(TeamIdentifierPrefix)"

    let appPrefix: String?
    let teamPrefix: String?
    let teamIDWasGiven: Bool

    /// Sources, first that answers wins: the prefixes of the provisioning profile that signs the
    /// claims (`--provisioning`), the claims file's own when it is a provisioning profile, the
    /// resolved application identifier's prefix, then `--team-id`.
    init(document: ProfileDocument, signing: ProfileDocument? = nil, teamID: String?) {
        let appID =
            document.entitlements[AccessGroupList.Key.applicationIdentifier]?.string
            ?? document.entitlements[AccessGroupList.Key.macApplicationIdentifier]?.string
        var appIDPrefix: String?
        if let appID, !appID.containsBytes("$("), let dot = appID.firstIndex(of: ".") {
            appIDPrefix = String(appID[...dot])
        }
        let given = teamID.map { $0.hasSuffix(".") ? $0 : $0 + "." }
        let appPrefixes = (signing?.applicationIdentifierPrefixes ?? []) + document.applicationIdentifierPrefixes
        let teams = (signing?.teamIdentifiers ?? []) + document.teamIdentifiers
        appPrefix = appPrefixes.first.map { $0 + "." } ?? appIDPrefix ?? given
        teamPrefix = teams.first.map { $0 + "." } ?? appIDPrefix ?? given
        teamIDWasGiven = teamID != nil
    }

    /// The entitlements with every variable resolved in the ones that name access groups; an
    /// unresolvable one there is a ProfileError naming the entitlement and the entry. Other
    /// entitlements are left as written: Xcode's default `iCloud.$(CFBundleIdentifier)` plays no
    /// part in keychain access, so it must not make a real `.entitlements` file unusable.
    func resolve(_ entitlements: [String: PlistValue], path: String) throws(ProfileError) -> [String: PlistValue] {
        var resolved = entitlements
        for (key, value) in entitlements where AccessGroupList.groupSources.contains(key) {
            switch value {
            case .string(let text): resolved[key] = .string(try substitute(text, key: key, path: path))
            case .array(let elements):
                var out: [PlistValue] = []
                for element in elements {
                    if case .string(let text) = element {
                        out.append(.string(try substitute(text, key: key, path: path)))
                    } else {
                        out.append(element)
                    }
                }
                resolved[key] = .array(out)
            default: break
            }
        }
        return resolved
    }

    private func substitute(_ text: String, key: String, path: String) throws(ProfileError) -> String {
        guard text.containsBytes("$(") else { return text }
        var result = text
        for (variable, value) in [(Self.appIdentifierPrefix, appPrefix), (Self.teamIdentifierPrefix, teamPrefix)]
        where result.containsBytes(variable) {
            guard let value else {
                throw ProfileError(
                    "profile \(path): cannot resolve \(variable) in \(key) entry '\(text)'; "
                        + "the profile has no resolved application identifier or provisioning envelope, "
                        + "so pass --team-id TEAMID (or KEYCHAINCTL_TEAM_ID).")
            }
            result = result.replacingBytes(variable, with: value)
        }
        if let start = result.utf8.firstRange(ofBytes: "$(".utf8) {
            let name = result[start.lowerBound...].prefix { $0 != ")" } + ")"
            throw ProfileError(
                "profile \(path): cannot resolve \(name) in \(key) entry '\(text)'; keychainctl resolves "
                    + "only \(Self.appIdentifierPrefix) and \(Self.teamIdentifierPrefix): write the value itself.")
        }
        return result
    }
}
