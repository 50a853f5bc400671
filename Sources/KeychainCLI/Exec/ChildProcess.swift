import Glibc
import KeychainCore
import KeychainPlatform

/// Running `exec`'s command (docs/GUIDE.md, `exec`).
///
/// The command gets nothing of keychainctl's process but what it was given, and cannot act as any
/// other process of the user: it starts in a new, empty session keyring (a key `unlock` cached
/// there is not its to read) and in a Landlock domain of its own where the kernel has Landlock
/// (ptrace and /proc/PID/mem of processes outside the domain are refused, and their environ and fd
/// to a user other than root); a
/// seccomp filter denies it ptrace, process_vm_readv/writev and pidfd_getfd always, and the kernel
/// keyring calls unless `--allow-keyring`; every descriptor from 3 up is closed unless kept with
/// `--keep-fd`.
///
/// keychainctl spawns the command in its own process group's place (job control and the terminal
/// stay the command's) as its child subreaper, pumps the streams it masks, forwards HUP, INT,
/// QUIT, TERM, USR1, USR2 and WINCH when they were sent to keychainctl by a process (not when the
/// terminal already sent them to the whole group), ends every process the command left running
/// (`Leftovers`), cleans up, and ends as the command did: its exit status, or its signal re-raised.
enum ChildProcess {
    /// What a command name resolved to.
    enum Resolution {
        case found(String)
        /// 127: nothing of that name on PATH.
        case notFound
        /// 126: found, but not an executable file.
        case notExecutable(String)
    }

    /// `name` as `execvp` would find it, searching `path` (the command's PATH).
    static func resolve(_ name: String, path: String?) -> Resolution {
        if name.utf8.contains(UInt8(ascii: "/")) {
            if access(name, F_OK) != 0 { return .notFound }
            return executable(name) ? .found(name) : .notExecutable(name)
        }
        guard !name.isEmpty else { return .notFound }
        var denied: String?
        for folder in (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":", omittingEmptySubsequences: false) {
            let candidate = (folder.isEmpty ? "." : String(folder)) + "/" + name
            guard access(candidate, F_OK) == 0 else { continue }
            if executable(candidate) { return .found(candidate) }
            denied = denied ?? candidate
        }
        return denied.map(Resolution.notExecutable) ?? .notFound
    }

    private static func executable(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG && access(path, X_OK) == 0
    }

    /// The signals forwarded to the command when a process sent them to keychainctl (ALRM too:
    /// `timeout -s ALRM` must not end keychainctl before it removes `--file` secrets).
    static let forwarded: [Int32] = [SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGWINCH, SIGALRM]

    /// What a started program may reach of keychainctl's process besides what it was given.
    typealias Isolation = SpawnIsolation

    /// The forwarded signals and SIGCHLD, blocked and read from a signalfd from its creation on:
    /// made before any `--file` secret is written, so that a signal arriving in between is
    /// forwarded (and the files removed) rather than ending keychainctl with them on disk.
    final class SignalWatch {
        let fd: Int32
        let previous: sigset_t

        init() throws {
            var blocked = sigset_t()
            sigemptyset(&blocked)
            for signal in forwarded + [SIGCHLD] { sigaddset(&blocked, signal) }
            var previous = sigset_t()
            sigprocmask(SIG_BLOCK, &blocked, &previous)
            self.previous = previous
            fd = ProcessGuard.signalDescriptor(&blocked)
            guard fd >= 0 else {
                sigprocmask(SIG_SETMASK, &previous, nil)
                throw InputError("cannot watch signals: \(SystemError.text(errno)).")
            }
        }

        deinit {
            close(fd)
            var previous = previous
            sigprocmask(SIG_SETMASK, &previous, nil)
        }
    }

    /// Spawns `executable` with `environment`, isolated as `isolation` says, its stdout and stderr
    /// through `maskers` when given (on `terminal`'s pty, relayed and masked by its masker, when
    /// given), forwards the signals `watch` reads, waits, and runs `cleanup` before returning how it
    /// ended.
    static func run(
        _ executable: String, arguments: [String], environment: EnvironmentBlock, isolation: Isolation, watch: SignalWatch,
        stdoutMasker: SecretMasker?, stderrMasker: SecretMasker?, terminal: (relay: TerminalRelay, masker: SecretMasker?)? = nil,
        cleanup: () -> Void, started: (Isolation.View) -> Void = { _ in }
    ) throws -> Outcome {
        let relay = terminal?.relay
        defer { relay?.close() }
        // A reader gone from our stdout is the command's business: writes fail with EPIPE here.
        signal(SIGPIPE, SIG_IGN)
        // Every process the command starts is ours once orphaned, and in a cgroup of its own where the
        // system delegates one, so that none outlives it.
        let subreaper = Leftovers.adopt()
        var isolation = isolation
        isolation.cgroup = CommandCgroup.make()
        let cgroup = isolation.cgroup
        var streams: [Stream] = []
        for (target, masker) in [(Int32(1), stdoutMasker), (Int32(2), stderrMasker)] {
            guard let masker else { continue }
            guard let ends = Spawn.pipe() else {
                let error = errno
                for stream in streams {
                    close(stream.read)
                    close(stream.write)
                }
                cleanup()
                throw InputError("cannot make a pipe: \(SystemError.text(error)).")
            }
            streams.append(Stream(read: ends.read, write: ends.write, target: target, masker: masker))
        }
        // SIGPIPE, which keychainctl ignores while it pumps, is the command's default again; the
        // forwarded signals start unblocked (as `replace` does), the rest as keychainctl had them.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        var childMask = watch.previous
        for signal in forwarded + [SIGCHLD] { sigdelset(&childMask, signal) }
        // On a terminal of its own the command gets job control's signals unblocked, whatever mask
        // keychainctl inherited (a runner's thread may block them all), and SIGCONT, which the relay
        // blocks for itself.
        if relay != nil { for signal in [SIGCONT, SIGTSTP, SIGTTIN, SIGTTOU] { sigdelset(&childMask, signal) } }
        let (child, spawnError, view) = start(
            executable, arguments: arguments, environment: environment, isolation: isolation,
            dups: streams.map { ($0.write, $0.target) } + (relay?.dups ?? []), terminal: relay?.terminal, mask: childMask,
            defaults: defaults)
        for stream in streams { close(stream.write) }
        guard child > 0 else {
            for stream in streams { close(stream.read) }
            if let relay { close(relay.master) }
            _ = cgroup?.end()
            cleanup()
            return Outcome(ending: .failedToStart(spawnError), writeError: nil, leftovers: 0, route: .none)
        }
        started(view)
        // The command's terminal output is one more stream; its write errors (a terminal gone) are not the command's.
        let piped = streams.count
        if let relay {
            streams.append(Stream(read: relay.master, write: -1, target: relay.output, masker: terminal?.masker))
            relay.started()
        }
        let signals = watch.fd
        var ending: Ending?
        var exitedAt: Int64?
        while true {
            if ending != nil, streams.allSatisfy({ $0.closed }) { break }
            // After the command exits, a background process still holding a pipe gets a short grace.
            if let exitedAt, monotonicMilliseconds() - exitedAt > exitGraceMilliseconds { break }
            var fds = [pollfd(fd: signals, events: Int16(POLLIN), revents: 0)]
            for stream in streams where !stream.closed { fds.append(pollfd(fd: stream.read, events: Int16(POLLIN), revents: 0)) }
            let relayAt = fds.count
            if let relay { fds += relay.pollEntries(commandRunning: ending == nil) }
            let holding = streams.contains { !$0.closed && $0.masker?.holding == true }
            let timeout: Int32 = ending != nil ? 50 : holding ? 50 : -1
            let ready = poll(&fds, nfds_t(fds.count), timeout)
            if ready < 0 {
                if errno == EINTR { continue }
                break
            }
            if ready == 0 {
                // Quiet for 50 ms: what is held back goes out.
                for index in streams.indices where !streams[index].closed { streams[index].flush() }
                continue
            }
            if fds[0].revents & Int16(POLLIN) != 0 {
                while let received = ProcessGuard.nextSignal(from: signals) {
                    let number = received.signal
                    if number == SIGCHLD {
                        var status: Int32 = 0
                        guard waitpid(child, &status, WNOHANG | (relay != nil ? WUNTRACED : 0)) == child else { continue }
                        if status & 0xFF == 0x7F, let relay {
                            // Stopped on its terminal (^Z): keychainctl stops too, and continues it when continued.
                            relay.suspend()
                            kill(child, SIGCONT)
                            continue
                        }
                        ending = Ending(waitStatus: status)
                        exitedAt = monotonicMilliseconds()
                    } else if number == SIGWINCH, let relay {
                        relay.resize()
                    } else if received.sender != 0 {
                        kill(child, number)
                    } else if let relay, !relay.signalForeground(number) {
                        // The caller's terminal signalled keychainctl alone: the command is a session of its own.
                        kill(child, number)
                    }
                    // A hang-up or termination reaches a stopped command only once it runs again, as a shell's
                    // jobs get SIGCONT after SIGHUP.
                    if let relay, number == SIGHUP || number == SIGTERM { relay.continueForeground() }
                }
            }
            var next = 1
            for index in streams.indices where !streams[index].closed {
                if fds[next].revents != 0 { streams[index].pump() }
                next += 1
            }
            relay?.service(fds[relayAt...])
        }
        if ending == nil {
            var status: Int32 = 0
            while waitpid(child, &status, 0) < 0, errno == EINTR {}
            ending = Ending(waitStatus: status)
        }
        // What the command left running (a setsid'd or double-forked process) ends with it: its cgroup
        // killed whole, then whatever the subreaper still has.
        var leftovers = 0
        if let cgroup {
            leftovers += cgroup.end()
            if view.cgroup {
                var status: Int32 = 0
                while waitpid(-1, &status, WNOHANG) > 0 {}
            }
        }
        if subreaper { leftovers += Leftovers.end() }
        // What the command's terminal still holds is shown before the caller's terminal is given back.
        if relay != nil, let last = streams.indices.last { while !streams[last].closed, streams[last].pump() {} }
        for index in streams.indices where !streams[index].closed {
            streams[index].flush()
            close(streams[index].read)
        }
        cleanup()
        return Outcome(
            ending: ending ?? .exited(1), writeError: streams.prefix(piped).compactMap(\.writeError).first { $0.errno != EPIPE },
            leftovers: leftovers, route: view.cgroup ? .cgroup : subreaper ? .subreaper : .none)
    }

    /// Starts `executable` isolated as `isolation` says, with `dups` applied (stdin from /dev/null
    /// with `nullStdin`, the signal `mask` and `defaults` when given): its pid, or 0 or less with the
    /// errno of the failure. Every program keychainctl starts (exec's command, git, the clipboard
    /// tools) starts here.
    static func start(
        _ executable: String, arguments: [String], environment: EnvironmentBlock, isolation: Isolation,
        dups: [(from: Int32, to: Int32)] = [], nullStdin: Bool = false, terminal: Int32? = nil, mask: sigset_t? = nil,
        defaults: sigset_t? = nil
    ) -> (pid: pid_t, error: Int32, view: Isolation.View) {
        withCStrings(arguments) { argv in
            environment.withPointers { envp in
                Spawn.start(
                    executable, argv: argv, envp: envp, isolation: isolation, dups: dups, nullStdin: nullStdin, terminal: terminal,
                    mask: mask, defaults: defaults)
            }
        }
    }

    /// Runs `executable` with stdin from /dev/null and its stdout and stderr collected together
    /// (the first `limit` bytes), killed after `timeoutSeconds`; once it has exited, a background
    /// process still holding its output gets `exitGraceMilliseconds`. Its exit status (128 + the
    /// signal for a signal) and output. What git runs through.
    static func capture(
        _ executable: String, arguments: [String], environment: EnvironmentBlock, isolation: Isolation, timeoutSeconds: Int,
        limit: Int = 65536
    ) throws -> (status: Int32, output: [UInt8]) {
        // Close-on-exec: the only write ends the program and its children hold are their stdout and stderr.
        guard let pipe = Spawn.pipe() else { throw InputError("cannot make a pipe: \(SystemError.text(errno)).") }
        let ends = [pipe.read, pipe.write]
        let (child, spawnError, _) = start(
            executable, arguments: arguments, environment: environment, isolation: isolation, dups: [(ends[1], 1), (ends[1], 2)],
            nullStdin: true)
        close(ends[1])
        defer { close(ends[0]) }
        guard child > 0 else { throw ConfigurationError("cannot run \(arguments[0]): \(SystemError.text(spawnError)).") }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = time(nil) + timeoutSeconds
        var status: Int32 = 0
        var exitedAt: Int64?
        while true {
            var fd = pollfd(fd: ends[0], events: Int16(POLLIN), revents: 0)
            let ready = poll(&fd, 1, 200)
            if ready < 0, errno == EINTR { continue }
            if time(nil) > deadline {
                kill(child, SIGKILL)
                break
            }
            if ready == 0 {
                if let exitedAt {
                    if monotonicMilliseconds() - exitedAt > exitGraceMilliseconds { break }
                } else if waitpid(child, &status, WNOHANG) == child {
                    exitedAt = monotonicMilliseconds()
                }
                continue
            }
            let count = read(ends[0], &buffer, buffer.count)
            if count <= 0 { break }
            if output.count < limit { output += buffer.prefix(count) }
        }
        if exitedAt == nil { while waitpid(child, &status, 0) < 0, errno == EINTR {} }
        return (status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F), output)
    }

    /// How the command ended, and the first error writing its masked output (other than EPIPE:
    /// a reader gone is the command's business, as it would be without masking).
    struct Outcome {
        let ending: Ending
        let writeError: (target: Int32, errno: Int32)?
        /// How many processes the command left running were ended with it.
        let leftovers: Int
        /// How they were ended.
        let route: LeftoverRoute
    }

    /// How what the command left running is ended.
    enum LeftoverRoute {
        /// Its cgroup of its own, killed whole (the subreaper behind it).
        case cgroup
        /// keychainctl is their child subreaper, and kills them one by one.
        case subreaper
        /// Neither: the kernel refused both, and what the command left was beyond reach.
        case none
    }

    /// How the command ended.
    enum Ending {
        case exited(Int32)
        case signalled(Int32)
        /// posix_spawn failed with this errno.
        case failedToStart(Int32)

        init(waitStatus status: Int32) {
            let signal = status & 0x7F
            self = signal == 0 ? .exited((status >> 8) & 0xFF) : .signalled(signal)
        }
    }

    /// Ends this process as the command ended: its status, or its signal re-raised with the
    /// default action (so the caller sees 128+N), 128+N if that does not end it.
    static func end(as ending: Ending) -> Never {
        switch ending {
        case .exited(let status): exit(status)
        case .signalled(let number):
            signal(number, SIG_DFL)
            var only = sigset_t()
            sigemptyset(&only)
            sigaddset(&only, number)
            sigprocmask(SIG_UNBLOCK, &only, nil)
            raise(number)
            exit(128 + number)
        case .failedToStart: exit(126)
        }
    }

    /// One masked stream: the pipe from the command, and where its masked bytes go.
    private struct Stream {
        let read: Int32
        let write: Int32
        let target: Int32
        /// nil: the bytes go out as they are.
        let masker: SecretMasker?
        var closed = false
        /// The first failed write to `target`, with its errno.
        var writeError: (target: Int32, errno: Int32)?

        /// Reads once; whether anything was read. EOF, or EIO from a terminal no process holds any
        /// more, closes the stream.
        @discardableResult
        mutating func pump() -> Bool {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            let got = buffer.withUnsafeMutableBytes { Glibc.read(read, $0.baseAddress, $0.count) }
            if got < 0, errno == EINTR || errno == EAGAIN { return false }
            guard got > 0 else {
                flush()
                close(read)
                closed = true
                return false
            }
            buffer.withUnsafeBytes { bytes in
                let chunk = UnsafeRawBufferPointer(rebasing: bytes[0..<got])
                if let masker { masker.process(chunk) { self.send($0) } } else { send(chunk) }
            }
            return true
        }

        mutating func flush() { masker?.flush { self.send($0) } }

        /// A target that stopped taking output (EPIPE, a full disk) is written no more: the
        /// command's output is still read, so it never blocks on a full pipe.
        mutating func send(_ bytes: UnsafeRawBufferPointer) {
            guard writeError == nil else { return }
            if !FileBytes.writeAll(target, bytes) { writeError = (target, errno) }
        }
    }

    /// How long a started program's output is still read once it has exited: a background job it
    /// left holding the pipe (a hook's, a daemon's) must not hold keychainctl.
    static let exitGraceMilliseconds: Int64 = 200

    static func monotonicMilliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }

    /// Calls `body` with a NULL-terminated array of C strings for `strings`.
    static func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
        let pointers = strings.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        return body(pointers)
    }
}

/// A command's environment as `NAME=VALUE\0` strings in guarded memory (its values may be secrets).
struct EnvironmentBlock {
    private let arena: SecretBytes
    private let offsets: [Int]

    /// The block holding `entries` in order.
    init(_ entries: [(name: String, value: SecretBytes)]) {
        let arena = SecretBytes(count: 0)
        var offsets: [Int] = []
        for (name, value) in entries {
            offsets.append(arena.count)
            Array(name.utf8 + [UInt8(ascii: "=")]).withUnsafeBytes { arena.append($0) }
            value.withUnsafeBytes { arena.append($0) }
            withUnsafeBytes(of: UInt8(0)) { arena.append($0) }
        }
        self.arena = arena
        self.offsets = offsets
    }

    /// Calls `body` with a NULL-terminated `envp` pointing into the block.
    func withPointers<R>(_ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
        arena.withUnsafeMutableBytes { bytes in
            guard let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self) else { return body([nil]) }
            return body(offsets.map { base + $0 } + [nil])
        }
    }
}
