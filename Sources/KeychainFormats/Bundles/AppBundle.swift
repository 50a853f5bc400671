import Glibc
import KeychainFoundation
import KeychainPlatform
import TextEscaping

/// A built app or extension bundle, read where Apple's loader reads it: an iOS bundle
/// (`Example.app/Info.plist`, the executable beside it, `embedded.mobileprovision`) or a macOS one
/// (`Example.app/Contents/Info.plist`, `Contents/MacOS/…`, `Contents/embedded.provisionprofile`),
/// in folders or inside an `.ipa` (`BundleFiles`). Its entitlements are those signed into its
/// executable (`MachOEntitlements`); its provisioning profile, when it has one, is what allowed them.
///
/// A class, not a struct: every profile document carries an optional one, and a reference costs a
/// profile read from a plain file nothing where a struct of this size made its copies and
/// destruction generic work at run time (+1% of a find, measured with callgrind).
package final class AppBundle: Sendable {
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
    /// Where its files are: folders, or an archive.
    package let files: BundleFiles
    /// The build settings its Info.plist gives, for the variables of an entitlements source file:
    /// the bundle identifier, the product and executable names.
    package let buildSettings: [String: String]

    private init(
        path: String, executable: String, provisioning: String?, identifier: String?, isMacOS: Bool, files: BundleFiles,
        buildSettings: [String: String]
    ) {
        self.path = path
        self.executable = executable
        self.provisioning = provisioning
        self.identifier = identifier
        self.isMacOS = isMacOS
        self.files = files
        self.buildSettings = buildSettings
    }

    /// The bundle at `path`, which must be a folder holding an `Info.plist` (or `Contents/Info.plist`)
    /// that names its executable by a plain file name; or an Xcode archive (`.xcarchive`) or an
    /// `.ipa`, whose one app (in `Products/Applications`, in `Payload`) it stands for. `path` may
    /// also be a bundle inside an `.ipa` (`App.ipa/Payload/Example.app/PlugIns/Share.appex`).
    package static func open(_ path: String) throws(ProfileError) -> AppBundle {
        let files = try BundleFiles.containing(path)
        if let app = try containedApp(path, files) { return try open(app, files) }
        return try open(path, files)
    }

    private static func open(_ path: String, _ files: BundleFiles) throws(ProfileError) -> AppBundle {
        // A file reached through a link that leaves the bundle is not the bundle's: not read.
        let macOS = files.isFile(path + "/Contents/Info.plist", within: path)
        let contents = macOS ? path + "/Contents" : path
        guard macOS || files.isFile(path + "/Info.plist", within: path) else {
            throw ProfileError("\(path) is a folder but not an app or extension bundle (no Info.plist, nor Contents/Info.plist).")
        }
        let infoPath = contents + "/Info.plist"
        guard let bytes = try files.read(infoPath, limit: InputLimits.profileBytes + 1) else {
            throw ProfileError("cannot read \(infoPath): \(SystemError.text(errno)).")
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
        guard files.isFile(executable, within: path) else {
            throw ProfileError(
                "cannot read \(executable), the executable Info.plist names: it is missing, not a regular file, or a link out of the bundle (never followed)."
            )
        }
        let embedded = contents + (macOS ? "/embedded.provisionprofile" : "/embedded.mobileprovision")
        let identifier = info["CFBundleIdentifier"]?.string
        var settings = ["EXECUTABLE_NAME": name, "PRODUCT_NAME": info["CFBundleName"]?.string ?? name]
        if let identifier { settings["PRODUCT_BUNDLE_IDENTIFIER"] = identifier }
        return AppBundle(
            path: path, executable: executable, provisioning: files.isFile(embedded, within: path) ? embedded : nil, identifier: identifier,
            isMacOS: macOS, files: files, buildSettings: settings)
    }

    /// The app an Xcode archive (`Products/Applications/NAME.app`) or an `.ipa` (`Payload/NAME.app`)
    /// holds; `nil` for a path that is neither, an error for one with no app or several.
    package static func containedApp(_ path: String, _ files: BundleFiles) throws(ProfileError) -> String? {
        let folder: String
        if case .archive(let archive) = files, archive.path == path {
            folder = path + "/Payload"
        } else if files.isFolder(path + "/Products/Applications") {
            folder = path + "/Products/Applications"
        } else {
            return nil
        }
        let apps = files.folders(in: folder).filter { $0.hasSuffix(".app") }
        guard apps.count == 1 else {
            let kind = folder.hasSuffix("/Payload") ? "an .ipa" : "an Xcode archive"
            throw ProfileError("\(path) is \(kind) with \(apps.count) apps in \(folder.dropFirst(path.count + 1)); give the one meant.")
        }
        return folder + "/" + apps[0]
    }

    /// The folders inside a bundle where Apple puts the targets it embeds, for iOS and (under
    /// `Contents/`) macOS: extensions, a watch app, App Clips.
    package static let embeddedFolders = ["PlugIns", "Extensions", "Watch", "AppClips", "Library/LoginItems"]
    /// How deep targets nest (an app's watch app's extension is two levels down), and how many a
    /// bundle may hold: a hostile folder tree ends the walk with an error, never a hang.
    package static let maximumDepth = 4
    package static let maximumTargets = 64

    /// The bundle at `path` and every target embedded in it, in the order they are found (the app
    /// first, then each folder's `.appex` and `.app` in name order, depth first).
    package static func targets(in path: String) throws(ProfileError) -> [AppBundle] {
        let files = try BundleFiles.containing(path)
        var found: [AppBundle] = []
        try collect(try containedApp(path, files) ?? path, files, depth: 0, into: &found)
        return found
    }

    private static func collect(_ path: String, _ files: BundleFiles, depth: Int, into found: inout [AppBundle]) throws(ProfileError) {
        let bundle = try open(path, files)
        guard found.count < maximumTargets else { throw ProfileError("\(path): more than \(maximumTargets) targets; refused.") }
        found.append(bundle)
        guard depth < maximumDepth else { return }
        let contents = bundle.isMacOS ? path + "/Contents" : path
        for folder in embeddedFolders {
            for name in files.folders(in: contents + "/" + folder) where name.hasSuffix(".appex") || name.hasSuffix(".app") {
                try collect(contents + "/" + folder + "/" + name, files, depth: depth + 1, into: &found)
            }
        }
    }
}
