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
}
