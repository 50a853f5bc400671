import FuzzSupport
import Glibc
import KeychainCore
import KeychainTestSupport

/// libFuzzer target: any bytes as an `.ipa`, read as `--app` and `--profile` read it: its app and
/// every target inside, each target's executable (the Mach-O reader) and provisioning profile.
/// minizip reads from a file, so each input is written to one first (in /dev/shm when it exists).
/// Every input must end in targets or a ProfileError: no crash, no hang, no runaway memory; the
/// targets have distinct paths, and each one's access groups keep `GroupListInvariants`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzArchive(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let folder = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
    let path = "\(folder)/keychainctl-fuzz-\(getpid()).ipa"
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard fd >= 0 else { return 0 }
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
        return 0
    }
    precondition(Set(targets.map(\.path)).count == targets.count, "a target listed twice")
    for target in targets {
        if let profile = try? Profile.load(path: target.path, teamID: "FUZZTEAM", platform: nil, allowWildcard: false),
            let violation = GroupListInvariants.violation(profile.accessGroups)
        {
            preconditionFailure(violation)
        }
    }
    return 0
}

/// The entry point SwiftPM links for this executable.
@_cdecl("fuzz_archive_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runLibFuzzer(argc, argv, fuzzArchive)
}
