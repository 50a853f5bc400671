import KeychainCore
import KeychainPlatform

extension SpawnIsolation {
    /// Whether any process may ptrace (and read the memory of) any other of its user: no Yama,
    /// or `kernel.yama.ptrace_scope` 0.
    static var sameUserPtraceOpen: Bool {
        guard let scope = FileBytes.read(path: "/proc/sys/kernel/yama/ptrace_scope", limit: 16) else { return true }
        return scope.first == UInt8(ascii: "0")
    }

    /// The warning `exec` prints before running a command that could take the key `unlock`
    /// cached from the shell that cached it; `nil` where the kernel keeps it from doing so.
    static func exposedKeyWarning(keyCached: Bool) -> String? {
        guard keyCached, !landlock, sameUserPtraceOpen else { return nil }
        return "this kernel has no Landlock and does not restrict ptrace between one user's processes "
            + "(kernel.yama.ptrace_scope is 0 or absent): CMD cannot call ptrace, but it can rewrite the memory of the shell "
            + "that ran 'keychainctl unlock' through /proc/PID/mem and make it read the cached key. "
            + "Set kernel.yama.ptrace_scope=1, or run 'keychainctl lock' before running code you do not trust."
    }
}
