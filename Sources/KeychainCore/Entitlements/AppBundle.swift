import Glibc

/// A built app or extension bundle, read where Apple's loader reads it: an iOS bundle
/// (`Example.app/Info.plist`, the executable beside it, `embedded.mobileprovision`) or a macOS one
/// (`Example.app/Contents/Info.plist`, `Contents/MacOS/…`, `Contents/embedded.provisionprofile`).
/// Its entitlements are those signed into its executable (`MachOEntitlements`); its provisioning
/// profile, when it has one, is what allowed them.
package struct AppBundle: Sendable {
    /// The bundle's folder.
    package let path: String
    /// Its executable (`CFBundleExecutable`).
    package let executable: String
    /// Its embedded provisioning profile, when there is one.
    package let provisioning: String?
    /// Its `CFBundleIdentifier`.
    package let identifier: String?
    /// Whether it is laid out as a macOS bundle.
    package let isMacOS: Bool

    /// The bundle at `path`, which must be a folder holding an `Info.plist` (or `Contents/Info.plist`)
    /// that names its executable by a plain file name.
    package static func open(_ path: String) throws(ProfileError) -> AppBundle {
        let macOS = isFile(path + "/Contents/Info.plist")
        let contents = macOS ? path + "/Contents" : path
        guard macOS || isFile(path + "/Info.plist") else {
            throw ProfileError("\(path) is a folder but not an app or extension bundle (no Info.plist, nor Contents/Info.plist).")
        }
        let infoPath = contents + "/Info.plist"
        guard let bytes = FileBytes.read(path: infoPath, limit: InputLimits.profileBytes + 1) else {
            throw ProfileError("cannot read \(infoPath): \(FileBytes.lastErrorDescription()).")
        }
        guard bytes.count <= InputLimits.profileBytes else { throw ProfileError("\(infoPath) is larger than a profile may be.") }
        let info: [String: PlistValue]
        do throws(PlistProblem) {
            guard case .dictionary(let dictionary) = try PlistValue.read(bytes[...]) else {
                throw .malformed("its top level is not a dictionary")
            }
            info = dictionary
        } catch {
            throw ProfileError("\(infoPath) is not a property list keychainctl can read (\(error.text)).")
        }
        guard let name = info["CFBundleExecutable"]?.string else {
            throw ProfileError("\(infoPath) names no executable (CFBundleExecutable).")
        }
        // A name, not a path: an Info.plist does not send keychainctl elsewhere on the disk.
        guard !name.isEmpty, name != ".", name != "..", !name.contains("/"), !name.containsControlCharacters else {
            throw ProfileError("\(infoPath): CFBundleExecutable is not a file name (\(name.terminalSafe)).")
        }
        let executable = (macOS ? contents + "/MacOS/" : contents + "/") + name
        let embedded = contents + (macOS ? "/embedded.provisionprofile" : "/embedded.mobileprovision")
        return AppBundle(
            path: path, executable: executable, provisioning: isFile(embedded) ? embedded : nil,
            identifier: info["CFBundleIdentifier"]?.string, isMacOS: macOS)
    }

    private static func isFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }
}
