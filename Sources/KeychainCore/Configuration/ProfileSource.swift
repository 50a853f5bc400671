import Glibc
import KeychainFormats
import KeychainFoundation
import TextEscaping

/// Where the profile of an invocation comes from, first match wins: `--profile`, then
/// KEYCHAINCTL_PROFILE, then the user's default profile file when it exists, then the built-in
/// profile (`BuiltInProfile`).
package enum ProfileSource: Equatable {
    case option(String)
    case environment(String)
    case userDefault(String)
    case builtIn

    /// Refuses the user default profile at `path` unless it is the user's own: a regular file
    /// owned by this user or root, in a folder likewise owned, neither writable by group or others,
    /// reached through no link another user owns (as a key file). Anyone else who could write it
    /// would choose the groups every profile-less call reads and writes.
    package static func checkUserDefault(_ path: String) throws(ConfigurationError) {
        try FileSafety.checkLinks(path, what: "default profile")
        let folder = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        for (what, place) in [("file", path), ("folder", folder)] {
            var status = stat()
            guard stat(place, &status) == 0 else { continue }
            let mode = String(status.st_mode & 0o777, radix: 8)
            guard status.st_uid == geteuid() || status.st_uid == 0 else {
                throw ConfigurationError(
                    "the default profile's \(what) \(place) belongs to another user (uid \(status.st_uid)), who would choose your access groups; "
                        + "nothing was read. Remove it, or pass --profile.")
            }
            guard status.st_mode & 0o022 == 0 else {
                throw ConfigurationError(
                    "the default profile's \(what) \(place) is writable by group or others (mode \(mode)), who would choose your access groups; "
                        + "run 'chmod go-w \(place.shellQuoted)'. Nothing was read.")
            }
            guard what == "folder" || status.st_mode & S_IFMT == S_IFREG else {
                throw ConfigurationError("the default profile \(path) is not a regular file; nothing was read.")
            }
        }
    }

    /// The source in force: `option` (the command's `--profile`), else KEYCHAINCTL_PROFILE, else the
    /// user default profile when it exists, else the built-in profile.
    package static func resolve(option: String?) -> ProfileSource {
        if let path = option { return .option(path) }
        if let path = SettingVariable.profile.value { return .environment(path) }
        guard let user = ConfigFolder.defaultProfile, access(user, F_OK) == 0 else { return .builtIn }
        return .userDefault(user)
    }

    /// The profile this source gives: the built-in one for `platform`, with the access group
    /// `builtInGroup`, which checks no claims, so a `provisioning` profile beside it is refused
    /// (`refusal` says so in the caller's words); else the file, through `file`, a user default only
    /// when it is the user's own.
    package func load(
        provisioning: String?, refusal: String, platform: @autoclosure () throws -> Platform?,
        builtInGroup: @autoclosure () -> String = BuiltInProfile.group, file: (String) throws -> Profile
    ) throws -> Profile {
        guard let path else {
            if provisioning != nil { throw ConfigurationError(refusal) }
            return try BuiltInProfile.load(platform: try platform(), group: builtInGroup())
        }
        if case .userDefault = self { try Self.checkUserDefault(path) }
        return try file(path)
    }

    /// The file to load; `nil` for the built-in profile.
    package var path: String? {
        switch self {
        case .option(let path), .environment(let path), .userDefault(let path): path
        case .builtIn: nil
        }
    }

    /// How `groups` says where the profile came from.
    package var origin: String {
        switch self {
        case .option: "from --profile"
        case .environment: "from KEYCHAINCTL_PROFILE"
        case .userDefault: "the user default, used when no profile is given"
        case .builtIn: "keychainctl's own, used when no profile is given ('keychainctl profile show' prints it)"
        }
    }

    /// The word `groups --format json` gives it.
    package var word: String {
        switch self {
        case .option: "option"
        case .environment: "environment"
        case .userDefault: "user-default"
        case .builtIn: "built-in"
        }
    }
}
