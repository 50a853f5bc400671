import Glibc
import KeychainFoundation
import KeychainPlatform

/// A profile file read into its entitlements and, for a provisioning profile, its envelope.
///
/// Forms (docs/REFERENCE.md): an entitlements plist (XML or binary, an `.xcent`, a source
/// `.entitlements`), `codesign -d --entitlements` output (XML, with or without its `Executable=`
/// line, or the older form headed by the entitlements blob's magic and length), a decoded
/// provisioning profile, a signed `.mobileprovision` / `.provisionprofile` (CMS), a signed Mach-O
/// executable (`MachOEntitlements`), or an app or extension bundle (`AppBundle`), whose executable's
/// entitlements are its claims and whose embedded provisioning profile comes with them.
package struct ProfileDocument: Sendable {
    /// The entitlements dictionary.
    package let entitlements: [String: PlistValue]
    /// Whether the file is a provisioning profile (its entitlements sit in an `Entitlements`
    /// envelope): an allowlist, not what an app claims.
    package let isProvisioningProfile: Bool
    /// `Name` of a provisioning profile.
    package let name: String?
    /// `Platform` of a provisioning profile (`iOS`, `OSX`, …), else empty.
    package let platforms: [String]
    /// `ApplicationIdentifierPrefix` of a provisioning profile, else empty.
    package let applicationIdentifierPrefixes: [String]
    /// `TeamIdentifier` of a provisioning profile, else empty.
    package let teamIdentifiers: [String]
    /// `ExpirationDate` of a provisioning profile, in milliseconds since 1970 UTC.
    package var expiration: Int64? = nil
    /// How many devices `ProvisionedDevices` lists (`nil`: none, as a distribution profile).
    package var provisionedDevices: Int? = nil
    /// The executable codesign printed the entitlements of (its `Executable=` line), if it did.
    package var executable: String? = nil
    /// The provisioning profile embedded in the bundle the entitlements were read from, if any.
    package var embeddedProvisioning: String? = nil
    /// The bundle the entitlements were read from, if they were.
    package var bundle: AppBundle? = nil

    /// The platform a provisioning profile names, if it names one keychainctl models.
    package var platform: Platform? {
        if bundle?.isMacOS == true { return .macos }
        if platforms.contains(where: { $0 == "OSX" || $0 == "macOS" }) { return .macos }
        if platforms.contains(where: { $0 == "iOS" || $0 == "xrOS" || $0 == "tvOS" || $0 == "watchOS" }) { return .ios }
        return nil
    }

    /// Larger files are refused before parsing: no real profile comes near it.
    package static let maximumSize = InputLimits.profileBytes

    /// Reads and decodes the file at `path`: a bundle's executable, a Mach-O's signature, an
    /// `.ipa`'s app, a file inside an `.ipa`, else the file.
    package static func load(path: String) throws(ProfileError) -> ProfileDocument {
        // A folder is known by its read failing (no stat on the common path: every call loads a profile).
        guard let bytes = FileBytes.read(path: path, limit: maximumSize + 1) else {
            let failure = errno
            if failure == EISDIR { return try bundleDocument(try AppBundle.open(path)) }
            // A path that runs through a file: a member of an archive, if that file is one.
            if failure == ENOTDIR, case .archive(let archive) = try BundleFiles.containing(path) {
                return try loadMember(path, of: archive)
            }
            errno = failure
            throw ProfileError("cannot read profile \(path): \(SystemError.text(errno)).")
        }
        if ZipArchive.isZip(bytes) { return try bundleDocument(try AppBundle.open(path)) }
        if BundleFiles.isIPA(path) { throw BundleFiles.notAZip(path) }
        if MachOEntitlements.isMachO(bytes) { return try decode(try MachOEntitlements.read(path: path), path: path, inMachO: true) }
        return try decode(bytes, path: path)
    }

    /// The claims of a bundle: its executable's entitlements, with its embedded provisioning profile.
    private static func bundleDocument(_ bundle: AppBundle) throws(ProfileError) -> ProfileDocument {
        var document = try decode(try bundle.files.machOEntitlements(bundle.executable), path: bundle.executable, inMachO: true)
        document.embeddedProvisioning = bundle.provisioning
        document.bundle = bundle
        return document
    }

    /// A bundle, an executable or a profile inside an archive.
    private static func loadMember(_ path: String, of archive: ZipArchive) throws(ProfileError) -> ProfileDocument {
        let files = BundleFiles.archive(archive)
        if files.isFolder(path) { return try bundleDocument(try AppBundle.open(path)) }
        guard files.isFile(path) else { throw ProfileError("cannot read profile \(path): it is not in \(archive.path).") }
        let head = try files.head(path)
        if MachOEntitlements.isMachO(head) { return try decode(try files.machOEntitlements(path), path: path, inMachO: true) }
        guard let bytes = try files.read(path, limit: maximumSize) else { throw ProfileError("cannot read profile \(path).") }
        return try decode(bytes, path: path)
    }

    /// Decodes a profile's bytes (`path` names it in errors): the whole of `load` but the read,
    /// and what the profile fuzzer drives.
    /// `inMachO`: the bytes are the entitlements a Mach-O carried, which are never a Mach-O again.
    package static func decode(_ bytes: [UInt8], path: String, inMachO: Bool = false) throws(ProfileError) -> ProfileDocument {
        guard bytes.count <= maximumSize else {
            throw ProfileError("profile \(path) is larger than \(maximumSize) bytes; refusing to parse it.")
        }
        guard !bytes.isEmpty else { throw ProfileError("profile \(path) is empty.") }
        if MachOEntitlements.isMachO(bytes) {
            guard !inMachO else { throw ProfileError("\(path): the entitlements a Mach-O carries are another Mach-O; refused.") }
            return try decode(try MachOEntitlements.read(.bytes(bytes), path: path), path: path, inMachO: true)
        }
        let plist = try plistBytes(of: bytes, path: path)
        let top: [String: PlistValue]
        do throws(PlistProblem) {
            switch try PlistValue.read(plist) {
            case .dictionary(let dictionary): top = dictionary
            case .array: throw .malformed("its top level is an array")
            default: throw .malformed("its top level is a single value")
            }
        } catch {
            throw ProfileError(
                error.hostile
                    ? "profile \(path) is refused: \(error.text)."
                    : "profile \(path) is not a valid property list dictionary (\(error.text)).")
        }
        guard let envelope = top["Entitlements"] else {
            var document = ProfileDocument(
                entitlements: top, isProvisioningProfile: false, name: nil, platforms: [],
                applicationIdentifierPrefixes: [], teamIdentifiers: [])
            document.executable = executableLine(of: bytes)
            return document
        }
        guard let entitlements = envelope.dictionary else {
            throw ProfileError("profile \(path): its Entitlements entry is not a dictionary.")
        }
        var document = ProfileDocument(
            entitlements: entitlements, isProvisioningProfile: true, name: top["Name"]?.string,
            platforms: top["Platform"]?.stringArray ?? [],
            applicationIdentifierPrefixes: top["ApplicationIdentifierPrefix"]?.stringArray ?? [],
            teamIdentifiers: top["TeamIdentifier"]?.stringArray ?? [])
        if case .date(let milliseconds) = top["ExpirationDate"] { document.expiration = milliseconds }
        if case .array(let devices) = top["ProvisionedDevices"] { document.provisionedDevices = devices.count }
        return document
    }

    /// The path on codesign's `Executable=` line, when the file starts with one.
    private static func executableLine(of bytes: [UInt8]) -> String? {
        let prefix = Array("Executable=".utf8)
        guard bytes.starts(with: prefix) else { return nil }
        let line = bytes.dropFirst(prefix.count).prefix { $0 != UInt8(ascii: "\n") && $0 != UInt8(ascii: "\r") }
        return String(validating: line, as: UTF8.self)
    }

    /// The plist inside the file: binary as is; a signed (CMS) profile's encapsulated content
    /// (binary, or XML); codesign's blob header or `Executable=` lines dropped; XML checked for UTF-8.
    private static func plistBytes(of bytes: [UInt8], path: String) throws(ProfileError) -> ArraySlice<UInt8> {
        if bytes.starts(with: BinaryPlistReader.magic) || DEREntitlementsReader.looksLikeDER(bytes) { return bytes[...] }
        // `codesign -d --entitlements - --der`: the DER blob with its magic and length.
        if bytes.starts(with: derEntitlementsBlobMagic) { return try blobContent(bytes, path: path) }
        var xml = bytes[...]
        let signed = SignedProfile.looksSigned(bytes)
        if signed {
            xml = try SignedProfile.content(of: bytes, path: path)
            if xml.starts(with: BinaryPlistReader.magic) { return xml }
        } else if bytes.starts(with: entitlementsBlobMagic) {
            xml = try blobContent(bytes, path: path)
        } else if bytes.starts(with: Array("Executable=".utf8)) {
            // `codesign -d --entitlements - --xml App.app 2>&1`: the path line precedes the plist.
            guard let start = bytes.firstRange(ofBytes: "<?xml".utf8)?.lowerBound else {
                throw ProfileError("profile \(path) is codesign output without an XML property list; run codesign with --xml.")
            }
            xml = bytes[start...]
        }
        guard String(validating: xml, as: UTF8.self) != nil else {
            throw ProfileError(
                signed ? "profile \(path) is signed (CMS) but its content is not UTF-8 XML." : "profile \(path) is not valid UTF-8 XML.")
        }
        return xml
    }

    /// `CSMAGIC_EMBEDDED_ENTITLEMENTS`: the blob `codesign --entitlements :-` printed before
    /// `--xml` existed starts with it and its big-endian length, header included.
    package static let entitlementsBlobMagic: [UInt8] = [0xFA, 0xDE, 0x71, 0x71]
    /// `CSMAGIC_EMBEDDED_DER_ENTITLEMENTS`: the same for the DER form.
    package static let derEntitlementsBlobMagic: [UInt8] = [0xFA, 0xDE, 0x71, 0x72]

    private static func blobContent(_ bytes: [UInt8], path: String) throws(ProfileError) -> ArraySlice<UInt8> {
        guard bytes.count >= 8 else { throw ProfileError("profile \(path) is a truncated entitlements blob.") }
        let length = Int(ByteOrder.bigEndian(bytes[4..<8]))
        guard length >= 8, length <= bytes.count else {
            throw ProfileError(
                "profile \(path) is an entitlements blob whose header says \(length) bytes but the file holds \(bytes.count).")
        }
        return bytes[8..<length]
    }
}
