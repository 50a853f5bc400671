import Glibc

/// A cgroup of its own for exec's command, where the system delegates one (docs/GUIDE.md, `exec`):
/// a cgroup v2 folder made beneath this process's own cgroup, which the command joins before it
/// starts (`cspawn_options.cgroup_procs`), so that everything it runs is in it, `setsid`'d,
/// double-forked or re-parented; when the command ends, the kernel kills the whole cgroup at once
/// (`cgroup.kill`, Linux 5.14), as systemd ends a unit. Where there is none (cgroup v1 alone, a
/// cgroup this user may not write, no `cgroup.kill`), `make` returns nil and the child subreaper
/// (`Leftovers`) is the only route.
public final class CommandCgroup: Sendable {
    /// The cgroup's folder.
    public let path: String
    /// Its `cgroup.procs`, open for writing: the command writes its pid there.
    public let procs: Int32

    private init(path: String, procs: Int32) {
        self.path = path
        self.procs = procs
    }

    /// The prefix of the folders this makes, followed by the pid of the keychainctl that made it.
    static let prefix = "keychainctl-exec-"

    /// A new cgroup beneath this process's own, or nil where the system delegates none.
    public static func make() -> CommandCgroup? {
        guard let own = ownFolder() else { return nil }
        // The command moves from our cgroup to the new one: both must be ours to write.
        guard access(own + "/cgroup.procs", W_OK) == 0 else { return nil }
        removeAbandoned(in: own)
        let path = own + "/" + prefix + String(getpid())
        guard mkdir(path, 0o700) == 0 || errno == EEXIST else { return nil }
        let procs = open(path + "/cgroup.procs", O_WRONLY | O_CLOEXEC)
        guard procs >= 0, access(path + "/cgroup.kill", W_OK) == 0 else {
            if procs >= 0 { close(procs) }
            rmdir(path)
            return nil
        }
        return CommandCgroup(path: path, procs: procs)
    }

    /// Kills every process left in the cgroup at once, waits until it is empty (at most a second),
    /// and removes it: how many there were.
    public func end() -> Int {
        close(procs)
        let left = KernelFile.lines(of: path + "/cgroup.procs").count
        if left > 0 {
            _ = KernelFile.write("1", to: path + "/cgroup.kill")
            for _ in 0..<200 where Self.populated(path) {
                var pause = timespec(tv_sec: 0, tv_nsec: 5_000_000)
                nanosleep(&pause, nil)
            }
        }
        rmdir(path)
        return left
    }

    /// This process's cgroup v2 folder: where the unified hierarchy is mounted, joined with the
    /// path `/proc/self/cgroup` gives for it ("0::PATH").
    public static func ownFolder() -> String? {
        guard let line = KernelFile.lines(of: "/proc/self/cgroup").first(where: { $0.hasPrefix("0::") }) else { return nil }
        return folder(of: String(line.dropFirst(3)), mountinfo: KernelFile.bytes(of: "/proc/self/mountinfo"))
    }

    /// The folder of the cgroup `relative` (as /proc/self/cgroup gives it) in the cgroup2 mount
    /// that `mountinfo` (as /proc/self/mountinfo gives it) shows it beneath.
    package static func folder(of relative: String, mountinfo: [UInt8]) -> String? {
        // Read as bytes: splitting each line at a string separator cost a millisecond per exec.
        let separator = Array(" - ".utf8)
        let type = Array("cgroup2 ".utf8)
        for entry in mountinfo.split(separator: UInt8(ascii: "\n")) {
            // ID PARENT MAJOR:MINOR ROOT MOUNTPOINT OPTIONS… - TYPE SOURCE SUPER (spaces in a
            // field are escaped, so the first " - " is the separator)
            guard let dash = entry.firstRange(ofBytes: separator), entry[dash.upperBound...].starts(with: type) else { continue }
            let fields = entry[..<dash.lowerBound].split(separator: UInt8(ascii: " "))
            guard fields.count >= 5 else { continue }
            let root = String(decoding: fields[3], as: UTF8.self)
            let mountPoint = unescape(String(decoding: fields[4], as: UTF8.self))
            // A cgroup namespace's mount shows its root as "/"; elsewhere the path is beneath ROOT.
            guard root == "/" || relative == root || relative.hasPrefix(root + "/") else { continue }
            let below = root == "/" ? relative : String(relative.dropFirst(root.count))
            return below == "/" || below.isEmpty ? mountPoint : mountPoint + below
        }
        return nil
    }

    /// Removes the cgroups a keychainctl that is gone (killed) left in `folder`, when empty.
    static func removeAbandoned(in folder: String) {
        for name in KernelFile.names(in: folder) {
            guard name.hasPrefix(prefix), let pid = pid_t(name.dropFirst(prefix.count)) else { continue }
            if kill(pid, 0) != 0, errno == ESRCH { rmdir(folder + "/" + name) }
        }
    }

    static func populated(_ path: String) -> Bool { KernelFile.lines(of: path + "/cgroup.events").contains("populated 1") }

    /// mountinfo escapes space, tab, newline and backslash as octal.
    static func unescape(_ field: String) -> String {
        guard field.contains("\\") else { return field }
        var bytes: [UInt8] = []
        var utf8 = Array(field.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "\\"), utf8.count >= 3, let value = UInt8(String(decoding: utf8.prefix(3), as: UTF8.self), radix: 8) {
                bytes.append(value)
                utf8 = utf8.dropFirst(3)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
