import KeychainCore
import KeychainTestSupport

/// Fuzz target: any bytes as a profile file (XML, binary or signed plist, or a Mach-O executable,
/// thin or universal, whose code signature or section carries them). Every input must
/// end in a profile or a ProfileError: no crash, no hang, no runaway memory; a profile's access
/// groups keep `GroupListInvariants`.
func fuzzProfile(_ data: UnsafePointer<UInt8>, _ count: Int) throws(FuzzViolation) {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    if let profile = try? Profile.decode(bytes, path: "fuzz.plist", teamID: "FUZZTEAM", platform: nil, allowWildcard: false),
        let violation = GroupListInvariants.violation(profile.accessGroups)
    {
        throw FuzzViolation(violation)
    }
    return
}
