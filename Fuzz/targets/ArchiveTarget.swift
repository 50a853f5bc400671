import Glibc
import KeychainCore
import KeychainTestSupport

/// Fuzz target: any bytes as an `.ipa`, read as `--app` and `--profile` read it: its app and
/// every target inside, each target's executable (the Mach-O reader) and provisioning profile.
/// minizip reads from a file, so each input is written to one first (in /dev/shm when it exists).
/// Every input must end in targets or a ProfileError: no crash, no hang, no runaway memory; the
/// targets have distinct paths, and each one's access groups keep `GroupListInvariants`.
func fuzzArchive(_ data: UnsafePointer<UInt8>, _ count: Int) throws(FuzzViolation) {
    let folder = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
    let path = "\(folder)/keychainctl-fuzz-\(getpid()).ipa"
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard fd >= 0 else { return }
    var written = 0
    while written < count {
        let got = write(fd, data + written, count - written)
        guard got > 0 else { break }
        written += got
    }
    close(fd)
    defer {
        ZipArchive.forgetOpened()
        unlink(path)
    }
    guard let targets = try? AppBundle.targets(in: path) else {
        _ = try? ProfileDocument.load(path: path)
        return
    }
    try require(Set(targets.map(\.path)).count == targets.count, "a target listed twice")
    for target in targets {
        if let profile = try? Profile.load(path: target.path, teamID: "FUZZTEAM", platform: nil, allowWildcard: false),
            let violation = GroupListInvariants.violation(profile.accessGroups)
        {
            throw FuzzViolation(violation)
        }
    }
    return
}
