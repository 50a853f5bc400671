/// A profile file read into its entitlements and, for a provisioning profile, its envelope.
///
/// Forms (CLI.md, Profiles): an entitlements plist (XML or binary), a decoded provisioning profile,
/// or a signed `.mobileprovision` / `.provisionprofile` whose embedded XML plist is extracted.
package struct ProfileDocument: Sendable {
    /// The entitlements dictionary.
    package let entitlements: [String: PlistValue]
    /// `Platform` of a provisioning profile (`iOS`, `OSX`, …), else empty.
    package let platforms: [String]
    /// `ApplicationIdentifierPrefix` of a provisioning profile, else empty.
    package let applicationIdentifierPrefixes: [String]
    /// `TeamIdentifier` of a provisioning profile, else empty.
    package let teamIdentifiers: [String]

    /// Larger files are refused before parsing: no real profile comes near it.
    package static let maximumSize = InputLimits.profileBytes

    /// Reads and decodes the file at `path`.
    package static func load(path: String) throws(ProfileError) -> ProfileDocument {
        try decode(try readCapped(path), path: path)
    }

    /// Decodes a profile's bytes (`path` names it in errors): the whole of `load` but the read,
    /// and what the profile fuzzer drives.
    package static func decode(_ bytes: [UInt8], path: String) throws(ProfileError) -> ProfileDocument {
        guard bytes.count <= maximumSize else {
            throw ProfileError("profile \(path) is larger than \(maximumSize) bytes; refusing to parse it.")
        }
        guard !bytes.isEmpty else { throw ProfileError("profile \(path) is empty.") }
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
            return ProfileDocument(
                entitlements: top, platforms: [], applicationIdentifierPrefixes: [], teamIdentifiers: [])
        }
        guard let entitlements = envelope.dictionary else {
            throw ProfileError("profile \(path): its Entitlements entry is not a dictionary.")
        }
        return ProfileDocument(
            entitlements: entitlements, platforms: top["Platform"]?.stringArray ?? [],
            applicationIdentifierPrefixes: top["ApplicationIdentifierPrefix"]?.stringArray ?? [],
            teamIdentifiers: top["TeamIdentifier"]?.stringArray ?? [])
    }

    private static func readCapped(_ path: String) throws(ProfileError) -> [UInt8] {
        guard let file = FileBytes.read(path: path, limit: maximumSize + 1) else {
            throw ProfileError("cannot read profile \(path): \(FileBytes.lastErrorDescription()).")
        }
        return file
    }

    /// The plist inside the file: binary as is; XML checked for UTF-8; a signed (CMS, DER) profile
    /// has its embedded XML plist cut out.
    private static func plistBytes(of bytes: [UInt8], path: String) throws(ProfileError) -> ArraySlice<UInt8> {
        if bytes.starts(with: Array("bplist".utf8)) { return bytes[...] }
        var xml = bytes[...]
        if bytes.first == 0x30 {
            guard let start = bytes.firstRange(ofBytes: "<?xml".utf8)?.lowerBound,
                let end = bytes[start...].firstRange(ofBytes: "</plist>".utf8)?.upperBound
            else {
                throw ProfileError("profile \(path) looks signed (CMS) but holds no XML property list.")
            }
            xml = bytes[start..<end]
        }
        guard String(validating: xml, as: UTF8.self) != nil else {
            throw ProfileError("profile \(path) is not valid UTF-8 XML.")
        }
        return xml
    }
}
