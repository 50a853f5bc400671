import CSpawn
import Glibc

/// What a command leaves behind when it ends (`exec`, docs/GUIDE.md): keychainctl becomes a child
/// subreaper before it starts the command, so every process the command starts, `setsid`'d or
/// double-forked, is keychainctl's child once orphaned; when the command ends, each is killed
/// and reaped, until none is left.
public enum Leftovers {
    /// Makes this process a child subreaper; whether the kernel agreed.
    public static func adopt() -> Bool { cspawn_become_subreaper() == 0 }

    /// Kills every child of this process, and the children they leave (which become this
    /// process's), until none is left; how many were killed.
    public static func end() -> Int {
        var killed = 0
        // Bounded: each round kills every child there is; a process killed cannot fork again,
        // so the rounds end once the ones it started in time are reaped.
        for _ in 0..<10_000 {
            let children = Self.children()
            guard !children.isEmpty else { break }
            for pid in children where kill(pid, SIGKILL) == 0 { killed += 1 }
            var status: Int32 = 0
            for _ in children { while waitpid(-1, &status, 0) < 0, errno == EINTR {} }
        }
        var status: Int32 = 0
        while waitpid(-1, &status, WNOHANG) > 0 {}
        return killed
    }

    /// This process's children: every thread's `/proc/self/task/TID/children`.
    static func children() -> [pid_t] {
        var found: [pid_t] = []
        for name in KernelFile.names(in: "/proc/self/task") {
            guard let first = name.utf8.first, (48...57).contains(first) else { continue }
            let bytes = KernelFile.bytes(of: "/proc/self/task/\(name)/children")
            // Decimal pids, each followed by a space.
            for word in bytes.split(whereSeparator: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\n") }) {
                if let pid = pid_t(String(decoding: word, as: UTF8.self)), pid > 0 { found.append(pid) }
            }
        }
        return found
    }
}
