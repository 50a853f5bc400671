import CBuildInfo
import KeychainCore

/// `keychainctl --version`: the version, the commit it was built from, and the C libraries inside.
enum VersionReport {
    /// The release number, from Sources/CBuildInfo/VERSION (which the release scripts read too).
    static var number: String { String(cString: keychainctl_version()) }

    /// The commit `make release` built from, or "unknown".
    static var commit: String { String(cString: keychainctl_build_commit()) }

    static var text: String {
        "keychainctl \(number) (commit \(commit))\n"
            + LinkedLibraries.versions.map { "\(displayName($0.name)) \($0.version)" }.joined(separator: ", ") + "\n"
    }

    static var json: JSON.Value {
        var object: [String: JSON.Value] = ["version": .string(number), "commit": .string(commit)]
        for library in LinkedLibraries.versions { object[library.name] = .string(library.version) }
        return .object(object)
    }

    private static func displayName(_ name: String) -> String {
        switch name {
        case "sqlite": "SQLite"
        case "openssl": "OpenSSL"
        default: name
        }
    }
}
