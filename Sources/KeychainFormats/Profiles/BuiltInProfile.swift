import KeychainFoundation

/// The profile keychainctl acts as when none is given and the user has no default: a target of
/// its own with one access group, so that a script can store its first secret with no Apple
/// entitlements file written by hand. `keychainctl profile show` prints it as a plist to start
/// from; everything Apple-specific (Team IDs, other targets, provisioning) needs a real profile.
///
/// A program using the `Security` library with no profile is an app of its own, as every app is
/// on Apple platforms: the same profile with its own group (`programGroup`), so that it neither
/// reads a script's secrets nor deletes them, and two programs do not share theirs.
package enum BuiltInProfile {
    /// How reports name it where they name a profile's file.
    package static let name = "built-in"
    /// The command's one access group, where its items live.
    package static let group = "keychainctl.default"

    /// What a program's group starts with.
    static let programPrefix = "keychainctl.program."

    /// The group of a program named `executable` (its file name): `keychainctl.program.` and the
    /// name, each character other than a letter, a digit, `.`, `-` or `_` written `_`.
    package static func programGroup(executable: String?) -> String {
        let safe = (executable ?? "").unicodeScalars.map { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || ".-_".unicodeScalars.contains(scalar))
                ? Character(scalar) : "_"
        }
        return programPrefix + (safe.isEmpty ? "unnamed" : String(safe.prefix(200)))
    }

    /// The program whose group `group` is, as `profile show --program` takes it; `nil` for any
    /// other group, including one under the prefix that no executable's name makes.
    package static func program(ofGroup group: String) -> String? {
        guard group.hasPrefix(programPrefix) else { return nil }
        let name = String(group.dropFirst(programPrefix.count))
        return !name.isEmpty && programGroup(executable: name) == group ? name : nil
    }

    /// The profile as an XML property list.
    package static let plist = plist(group: group)

    /// A profile of the built-in form with the one access group `group`.
    package static func plist(group: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        	<key>keychain-access-groups</key>
        	<array>
        		<string>\(group)</string>
        	</array>
        </dict>
        </plist>

        """
    }

    /// The profile with `group`, loaded as a file holding its plist would be.
    package static func load(platform: Platform?, group: String = group) throws(ProfileError) -> Profile {
        try Profile.decode(Array(plist(group: group).utf8), path: name, teamID: nil, platform: platform, allowWildcard: false)
    }
}
