import CSpawn
import Glibc

/// What a started program may reach of this process besides what it was given. Whatever this
/// says, it starts in a new, empty session keyring, in a Landlock domain of its own where the
/// kernel has Landlock, with ptrace, process_vm_readv/writev and pidfd_getfd denied by seccomp.
public struct SpawnIsolation: Sendable {
    /// Descriptors of 3 and up left open; every other one is closed on exec.
    public var keep: [Int32] = []
    /// Whether the kernel keyring calls are allowed (they are denied otherwise).
    public var allowKeyring = false
    /// Folders beneath which the program may change the file system; empty: anywhere its user may.
    /// Given any, it may change nothing else but /dev/null (Landlock; without it, starting fails
    /// with ENOSYS).
    public var writable: [String] = []
    /// Whether the program may not connect to an abstract unix socket a process outside its
    /// Landlock domain listens on (Landlock ABI 6): exec's command, not the tools keychainctl runs
    /// for itself (a clipboard tool must reach the display).
    public var scopeAbstractSockets = false
    /// Whether the program gets a view of the file system of its own (`cspawn_options.own_view`):
    /// `hide` covered, every unix socket a service of the user listens on covered but
    /// `allowedSockets`, and with `writable` folders every other mount read-only. exec's command.
    public var ownView = false
    /// Files the program's own view covers (key files).
    public var hide: [String] = []
    /// Sockets the program's own view leaves uncovered (`--allow-socket`), by device and inode.
    public var allowedSockets: [FileID] = []
    /// A cgroup made for the program (`CommandCgroup`), which it joins before anything else.
    public var cgroup: CommandCgroup?

    /// A file by device and inode, as it was when named.
    public struct FileID: Sendable, Equatable {
        public let device: UInt
        public let inode: UInt
        public init(device: UInt, inode: UInt) {
            self.device = device
            self.inode = inode
        }
    }

    /// What the program's view of the file system came to.
    public struct View: Sendable, Equatable {
        /// Whether it runs in a mount namespace of its own, as `ownView` asks.
        public let own: Bool
        /// Without one, the errno of the namespace call the system refused (0: none was asked).
        public let refused: Int32
        /// How many sockets of services were covered.
        public let socketsCovered: Int
        /// Whether the program joined `cgroup`.
        public var cgroup = false
        /// Whether that namespace sits in a user namespace of its own (a user other than root),
        /// which also keeps the program from ptrace and /proc/PID/{mem,environ,root} of every
        /// process outside it, with or without Landlock.
        public var userNamespace: Bool { own && geteuid() != 0 }
    }

    public init() {}

    /// Whether the kernel confines a started program to its own Landlock domain.
    public static var landlock: Bool { cspawn_landlock_abi() > 0 }

    /// Whether that domain is also scoped (Landlock ABI 6, Linux 6.12): no signal to, and no
    /// connection to an abstract unix socket of, a process outside it.
    public static var landlockScopes: Bool { cspawn_landlock_abi() >= 6 }

    /// Calls `body` with the C options: a new session keyring always, the keyring calls denied
    /// unless allowed, `dups` applied first, `mask` and `defaults` when given, on `terminal` (a pty
    /// slave) in a session of its own under a monitor when given.
    func withOptions<R>(
        dups: [(from: Int32, to: Int32)] = [], nullStdin: Bool = false, terminal: Int32? = nil, mask: sigset_t? = nil,
        defaults: sigset_t? = nil, _ body: (UnsafePointer<cspawn_options>) -> R
    ) -> R {
        let from = dups.map(\.from)
        let to = dups.map(\.to)
        let hasMask = mask != nil
        let hasDefaults = defaults != nil
        var mask = mask ?? sigset_t()
        var defaults = defaults ?? sigset_t()
        // C copies of the folders, alive for the call (the child reads them between fork and exec).
        let folders = writable.map { UnsafePointer(strdup($0)) }
        let hidden = hide.map { UnsafePointer(strdup($0)) }
        defer { for copy in folders + hidden { free(UnsafeMutablePointer(mutating: copy)) } }
        let sockets = allowedSockets.map { cspawn_file_id(device: dev_t($0.device), inode: ino_t($0.inode)) }
        return from.withUnsafeBufferPointer { fromBuffer in
            to.withUnsafeBufferPointer { toBuffer in
                keep.withUnsafeBufferPointer { keepBuffer in
                    folders.withUnsafeBufferPointer { foldersBuffer in
                        hidden.withUnsafeBufferPointer { hiddenBuffer in
                            sockets.withUnsafeBufferPointer { socketsBuffer in
                                withUnsafePointer(to: &mask) { maskPointer in
                                    withUnsafePointer(to: &defaults) { defaultsPointer in
                                        var options = cspawn_options(
                                            dup_from: fromBuffer.baseAddress, dup_to: toBuffer.baseAddress, dup_count: dups.count,
                                            keep: keepBuffer.baseAddress, keep_count: keep.count, null_stdin: nullStdin ? 1 : 0,
                                            new_session_keyring: 1, deny_keyring: allowKeyring ? 0 : 1,
                                            writable: foldersBuffer.baseAddress, writable_count: folders.count,
                                            scope_abstract_sockets: scopeAbstractSockets ? 1 : 0, own_view: ownView ? 1 : 0,
                                            hide: hiddenBuffer.baseAddress, hide_count: hidden.count,
                                            sockets_allowed: socketsBuffer.baseAddress, sockets_allowed_count: sockets.count,
                                            cgroup_procs: cgroup?.procs ?? -1, terminal: terminal ?? -1, mask: hasMask ? maskPointer : nil,
                                            defaults: hasDefaults ? defaultsPointer : nil)
                                        return body(&options)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Starting a program isolated (`SpawnIsolation`): in C, because between fork and execve the child
/// may call only async-signal-safe functions, and posix_spawn can neither join a keyring, enter a
/// Landlock domain nor install a filter.
public enum Spawn {
    /// Forks and starts `path` with the NULL-terminated `argv` and `envp`, isolated as `isolation`
    /// says, with `dups` applied (stdin from /dev/null with `nullStdin`, the signal `mask` and
    /// `defaults` when given; on `terminal`, a pty slave, under a monitor when given,
    /// `cspawn_options.terminal`): its pid (the monitor's), or 0 or less with the errno of the
    /// failure, and what its view of the file system came to.
    public static func start(
        _ path: String, argv: [UnsafeMutablePointer<CChar>?], envp: [UnsafeMutablePointer<CChar>?], isolation: SpawnIsolation,
        dups: [(from: Int32, to: Int32)] = [], nullStdin: Bool = false, terminal: Int32? = nil, mask: sigset_t? = nil,
        defaults: sigset_t? = nil
    ) -> (pid: pid_t, error: Int32, view: SpawnIsolation.View) {
        var view = cspawn_view()
        let child = isolation.withOptions(dups: dups, nullStdin: nullStdin, terminal: terminal, mask: mask, defaults: defaults) {
            cspawn_start(path, argv, envp, $0, &view)
        }
        let error = errno
        return (
            child, error,
            SpawnIsolation.View(
                own: view.own != 0, refused: view.refused, socketsCovered: Int(view.sockets_covered), cgroup: view.cgroup != 0)
        )
    }

    /// A sealed, read-only file in memory holding `bytes` (`cspawn_sealed_file`): its close-on-exec
    /// descriptor, or `nil` with errno set.
    public static func sealedFile(named name: String, _ bytes: UnsafeRawBufferPointer) -> Int32? {
        let fd = cspawn_sealed_file(name, bytes.baseAddress, bytes.count)
        return fd >= 0 ? fd : nil
    }

    /// When this process is the fresh image `start` runs for a user other than root to give the
    /// program a view of its own (`cspawn_view_main`), it becomes the program; otherwise returns.
    public static func becomeViewIfAsked() {
        _ = cspawn_view_main(CommandLine.argc, CommandLine.unsafeArgv, environ)
    }

    /// A close-on-exec pipe; `nil` with errno set when none could be made.
    public static func pipe() -> (read: Int32, write: Int32)? {
        var ends: [Int32] = [0, 0]
        guard cspawn_pipe(&ends) == 0 else { return nil }
        return (ends[0], ends[1])
    }
}
