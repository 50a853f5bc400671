import Glibc
import KeychainCore
import KeychainPlatform

/// What the machine running the tests offers, for the tests that need it: each such test is gated
/// on one of these with `.enabled(if:)`, so a machine without it skips the test by name.
package enum TestMachine {
    /// Whether this process can use the kernel keyring (a container's seccomp profile may block it).
    package static let hasKeyring: Bool = (try? KernelKeyring.hasOwnSessionKeyring()) != nil

    /// Whether the tests run as root (needed to give a file to another user, or to read a
    /// non-dumpable process's /proc files).
    package static var isRoot: Bool { getuid() == 0 }

    /// Whether `exec` can give its command a view of its own here: a mount namespace for this user
    /// and, when root, a user namespace for `nobody`, whom the attacks run as (`.ci/check-skips`'s
    /// `own-view` probes the same).
    package static let hasOwnView: Bool = {
        func succeeds(_ arguments: [String]) -> Bool {
            var pid: pid_t = 0
            let argv = arguments.map { strdup($0) } + [nil]
            defer { for word in argv { free(word) } }
            guard posix_spawn(&pid, arguments[0], nil, nil, argv, environ) == 0 else { return false }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
            return status == 0
        }
        let unshare = "/usr/bin/unshare"
        guard succeeds([unshare, isRoot ? "-m" : "-Urm", "/bin/true"]) else { return false }
        return !isRoot
            || succeeds(["/usr/bin/setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups", unshare, "-Urm", "/bin/true"])
    }()

    /// Whether `exec` can give its command a cgroup of its own here (a cgroup v2 hierarchy this
    /// user may make one beneath, with `cgroup.kill`; `.ci/check-skips`'s `cgroup` probes the same).
    package static let hasCgroup: Bool = {
        guard let cgroup = CommandCgroup.make() else { return false }
        _ = cgroup.end()
        return true
    }()
}
