import KeychainFoundation
import TextEscaping

/// The build variables in an entitlements source file (`$(AppIdentifierPrefix)`, `$(CFBundleIdentifier)`,
/// `${PRODUCT_BUNDLE_IDENTIFIER}`, `$(PRODUCT_NAME:rfc1034identifier)`, …), resolved the way Xcode
/// resolves them when it signs (docs/FIDELITY.md). The two prefixes carry their trailing dot.
package struct BuildVariables {
    package static let appIdentifierPrefix = "AppIdentifierPrefix"
    /// How the command is given the Team ID a profile's prefixes need; the testing API, which takes
    /// it another way, says its own in this advice's place.
    package static let teamIDAdvice = "pass --team-id TEAMID (or KEYCHAINCTL_TEAM_ID)"
    package static let teamIdentifierPrefix = "TeamIdentifierPrefix"
    /// No resolved entry comes near it: a value repeated many times is refused, not built.
    package static let maximumResolvedBytes = 4096

    package let appPrefix: String?
    package let teamPrefix: String?
    /// Build settings by name: those of the built bundle's Info.plist, overridden by `--build-setting`.
    package let settings: [String: String]
    package let teamIDWasGiven: Bool

    /// Sources, first that answers wins: the prefixes of the provisioning profile that signs the
    /// claims (`--provisioning`), the claims file's own when it is a provisioning profile, the
    /// resolved application identifier's prefix, then `--team-id`; other variables from `settings`.
    /// `signing` gives only its prefixes and Team IDs: a copy of an optional document costs a
    /// run-time type lookup to destroy (+0.3% of a find, measured with callgrind).
    package init(
        document: ProfileDocument, signing: (appPrefixes: [String], teams: [String]) = ([], []), teamID: String?,
        settings: [String: String] = [:]
    ) {
        let appID =
            document.entitlements[AccessGroupList.Key.applicationIdentifier]?.string
            ?? document.entitlements[AccessGroupList.Key.macApplicationIdentifier]?.string
        var appIDPrefix: String?
        if let appID, !appID.containsBytes("$("), let dot = appID.firstIndex(of: ".") {
            appIDPrefix = String(appID[...dot])
        }
        let given = teamID.map { $0.hasSuffix(".") ? $0 : $0 + "." }
        let appPrefixes = signing.appPrefixes + document.applicationIdentifierPrefixes
        let teams = signing.teams + document.teamIdentifiers
        appPrefix = appPrefixes.first.map { $0 + "." } ?? appIDPrefix ?? given
        teamPrefix = teams.first.map { $0 + "." } ?? appIDPrefix ?? given
        // Merged only when both give some: a profile from a plain file pays for nothing here.
        if let fromBundle = document.bundle?.buildSettings, !fromBundle.isEmpty {
            self.settings = settings.isEmpty ? fromBundle : fromBundle.merging(settings) { _, given in given }
        } else {
            self.settings = settings
        }
        teamIDWasGiven = teamID != nil
    }

    /// The entitlements with every variable resolved in the ones that name access groups; an
    /// unresolvable one there is a ProfileError naming the entitlement and the entry. Other
    /// entitlements are left as written: Xcode's default `iCloud.$(CFBundleIdentifier)` plays no
    /// part in keychain access, so it must not make a real `.entitlements` file unusable.
    package func resolve(_ entitlements: [String: PlistValue], path: String) throws(ProfileError) -> [String: PlistValue] {
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

    /// The value of variable `name` (without `$(` and `)`), `nil` when nothing gives it.
    package func value(of name: String) -> String? {
        switch name {
        case Self.appIdentifierPrefix: return appPrefix
        case Self.teamIdentifierPrefix: return teamPrefix
        case "DEVELOPMENT_TEAM": return settings[name] ?? teamPrefix.map { String($0.dropLast()) }
        // Xcode writes `CFBundleIdentifier = $(PRODUCT_BUNDLE_IDENTIFIER)` into Info.plist: one value.
        case "CFBundleIdentifier", "PRODUCT_BUNDLE_IDENTIFIER":
            return settings[name] ?? settings["PRODUCT_BUNDLE_IDENTIFIER"] ?? settings["CFBundleIdentifier"]
        default: return settings[name]
        }
    }

    /// `text` with each `$(NAME)` or `${NAME}` (optionally `:rfc1034identifier`, `:lower`,
    /// `:upper`) replaced once; a value is never expanded again, so no variable refers to itself.
    private func substitute(_ text: String, key: String, path: String) throws(ProfileError) -> String {
        guard text.utf8.contains(UInt8(ascii: "$")) else { return text }
        var result: [UInt8] = []
        let bytes = Array(text.utf8)
        var at = 0
        while at < bytes.count {
            guard bytes[at] == UInt8(ascii: "$"), at + 1 < bytes.count,
                bytes[at + 1] == UInt8(ascii: "(") || bytes[at + 1] == UInt8(ascii: "{")
            else {
                result.append(bytes[at])
                at += 1
                continue
            }
            let close = bytes[at + 1] == UInt8(ascii: "(") ? UInt8(ascii: ")") : UInt8(ascii: "}")
            guard let end = bytes[(at + 2)...].firstIndex(of: close) else {
                throw ProfileError("profile \(path): \(key) entry '\(text.terminalSafe)' opens a build variable it never closes.")
            }
            let written = String(decoding: bytes[at..<end + 1], as: UTF8.self)
            let inner = String(decoding: bytes[(at + 2)..<end], as: UTF8.self)
            let parts = inner.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard let value = value(of: parts[0]) else { throw unresolved(written, name: parts[0], key: key, text: text, path: path) }
            // An empty setting would make "" (or a bare prefix) an access group, and the default one.
            guard !value.isEmpty else {
                throw ProfileError(
                    "profile \(path): \(key) entry '\(text.terminalSafe)' uses \(written.terminalSafe), whose build setting is empty; "
                        + "give it a value (--build-setting \(parts[0].terminalSafe)=VALUE).")
            }
            var modified = value
            for modifier in parts.dropFirst() {
                switch modifier {
                case "rfc1034identifier":
                    modified = String(
                        modified.unicodeScalars.map { scalar in
                            scalar.isASCII
                                && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "-" || scalar == ".")
                                ? Character(scalar) : "-"
                        })
                case "lower": modified = modified.lowercased()
                case "upper": modified = modified.uppercased()
                default:
                    throw ProfileError(
                        "profile \(path): \(key) entry '\(text.terminalSafe)' uses the modifier :\(modifier.terminalSafe), which keychainctl does not apply; write the value itself."
                    )
                }
            }
            result += modified.utf8
            guard result.count <= Self.maximumResolvedBytes else {
                throw ProfileError(
                    "profile \(path): \(key) entry '\(text.terminalSafe)' resolves to more than \(Self.maximumResolvedBytes) bytes; refused."
                )
            }
            at = end + 1
        }
        return String(decoding: result, as: UTF8.self)
    }

    private func unresolved(_ written: String, name: String, key: String, text: String, path: String) -> ProfileError {
        if name == Self.appIdentifierPrefix || name == Self.teamIdentifierPrefix {
            return ProfileError(
                "profile \(path): cannot resolve \(written.terminalSafe) in \(key) entry '\(text.terminalSafe)'; "
                    + "the profile has no resolved application identifier or provisioning envelope, "
                    + "so \(Self.teamIDAdvice).")
        }
        return ProfileError(
            "profile \(path): cannot resolve \(written.terminalSafe) in \(key) entry '\(text.terminalSafe)'; "
                + "pass --build-setting \(name.terminalSafe)=VALUE, or give the built app (its Info.plist names the bundle identifier).")
    }
}
