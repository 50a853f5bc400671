import KeychainFoundation

/// The profile keychainctl acts as when none is given and the user has no default: a target of
/// its own with one access group, so that a script can store its first secret with no Apple
/// entitlements file written by hand. `keychainctl profile show` prints it as a plist to start
/// from; everything Apple-specific (Team IDs, other targets, provisioning) needs a real profile.
package enum BuiltInProfile {
    /// How reports name it where they name a profile's file.
    package static let name = "built-in"
    /// Its one access group, where its items live.
    package static let group = "keychainctl.default"

    /// The profile as an XML property list.
    package static let plist = """
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

    /// The profile, loaded as a file holding `plist` would be.
    package static func load(platform: Platform?) throws(ProfileError) -> Profile {
        try Profile.decode(Array(plist.utf8), path: name, teamID: nil, platform: platform, allowWildcard: false)
    }
}
