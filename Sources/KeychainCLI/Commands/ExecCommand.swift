import CommandLineKit
import Glibc
import KeychainCore
import KeychainPlatform
import TextEscaping

/// `keychainctl exec … -- CMD`: runs a command with secrets in its environment or in files,
/// every reference resolved before it starts, the keychain's own credentials never passed on, and
/// its output masked (docs/CI.md).
struct ExecCommand: Subcommand {
    static let name = "exec"

    static let spec = CommandSpec(
        name: name,
        abstract: "Run a command with secrets in its environment or in files, resolved all or nothing first.",
        discussion: """
            QUERY is comma-separated name=value pairs: attribute option names (service, account, group, \
            label, server, …) or four-character codes, class=, or ref=PERSISTENT-REF; \\, \\= \\\\ escape; \
            a bare NAME is service=NAME, the item 'set NAME' stored, found as 'get NAME' finds it. \
            It must match exactly one item (none: exit 44; several: exit 206 naming them). Every reference \
            (--env, --env-from, --file, and keychain:QUERY values in --env-file files and in the inherited \
            environment) is resolved before CMD starts; any failure is keychainctl's exit status and CMD \
            does not run. KEYCHAINCTL_KEY and KEYCHAINCTL_PASSPHRASE never reach CMD, nor KEYCHAINCTL_KEY_FILE \
            and KEYCHAINCTL_ACCOUNT_KEY_FILE unless kept with --keep. CMD starts in a new, empty session \
            keyring and, where the kernel has Landlock, in a domain of its own that cannot ptrace or read \
            /proc/PID/mem of any other process of the user; ptrace, process_vm_readv/writev, pidfd_getfd, \
            typing into the terminal (ioctl TIOCSTI, TIOCLINUX) and (unless --allow-keyring) the kernel \
            keyring calls are denied to it; every descriptor from 3 up is closed (unless --keep-fd). So it \
            cannot take the key 'unlock' cached from the keyring or from another process (without Landlock, \
            only where kernel.yama.ptrace_scope is 1 or more: exec warns otherwise). CMD sees the files \
            through a mount namespace of its own (in a user namespace of its own unless root), where every \
            key file this call could read is empty and every unix socket a service of the user listens on \
            refuses connections unless --allow-socket names it; where the system makes no namespace, \
            --verbose says so and exec warns if CMD can read the key file. It can still write \
            what the user's later processes run (the rest of the step's script, shell start-up files, \
            $GITHUB_ENV): with --lock the key is gone before CMD starts, so what it plants finds the \
            keychain locked, and with --writable DIR it can change nothing outside DIR, modes, owners and \
            times included. A --file secret is \
            a sealed file in memory named /dev/fd/N, which no other exec's command can open (a process of \
            the user outside exec can, through /proc/PID/fd/N, where Yama lets it trace CMD). Nothing of \
            CMD outlives exec: CMD runs in a cgroup of its own where the system delegates one, killed whole \
            when CMD ends, and keychainctl is the child subreaper of what it starts, so every process CMD \
            left running (setsid'd, double-forked) is killed when CMD ends (--verbose counts them). Where \
            exec's streams are a terminal, CMD runs on a terminal of its own that keychainctl relays (keys, \
            window size, ^C, ^Z and fg), never on the caller's, whose device is covered in its view. CMD's \
            exit status (or signal) is passed through; 127: CMD not found, 126: not executable.
            """,
        sections: [
            ("secrets", ExecPlan.secretSpecs),
            ("the command's environment", ExecPlan.environmentSpecs),
            ("what CMD can reach", [Self.lock.spec, Self.writable.spec, Self.allowSocket.spec, Self.keepFD.spec, Self.allowKeyring.spec]),
            ("output", [Self.mask.spec, Self.ciMask.spec, Self.dryRun.spec, Self.verbose.spec]),
            GlobalOptions.section,
        ],
        queryOptions: ["env", "file"], trailingCommand: ("CMD [ARG…]", "The command to run, after --."),
        examples: [
            Example(
                "keychainctl exec --env NPM_TOKEN=service=ci,account=NPM_TOKEN -- sh -c 'echo \"token: $NPM_TOKEN\"'",
                "Run a command with one secret in its environment, masked in what it prints."
            )
        ])

    static let keepFD = Option.text(
        "keep-fd", nil, "N", repeatable: true, "Leave descriptor N (3 or more) open in CMD; every other one is closed.")
    static let writable = Option.path(
        "writable", valueName: "DIR", repeatable: true,
        "Let CMD change files only beneath DIR (and /dev/null): writing, creating, removing anything else is refused (needs Landlock).")
    static let allowSocket = Option.path(
        "allow-socket", valueName: "PATH", repeatable: true,
        "Let CMD connect to the unix socket at PATH (docker.sock, an ssh agent's); every other socket a service listens on is covered in CMD's view."
    )
    static let allowKeyring = Flag(
        "allow-keyring",
        "Let CMD use the kernel keyring (add_key, keyctl, request_key); it still starts in a new, empty session keyring, and still cannot ptrace."
    )
    static let mask = Option.choice(
        "mask", nil, "auto|always|never", "Replace secrets in CMD's output (auto: streams that are not a terminal).",
        MaskMode.init(rawValue:))
    static let ciMask = Flag("ci-mask", "In GitHub Actions, also print ::add-mask:: for every line of every secret first.")
    static let lock = Flag(
        "lock",
        "Remove this keychain's cached key (as 'keychainctl lock' does) once every secret is resolved, before CMD starts: nothing CMD runs, plants or leaves behind finds it cached afterwards."
    )
    static let dryRun = Flag("dry-run", "Resolve everything and print what CMD would get (never values); do not run CMD.")
    static let verbose = Flag(
        "verbose", "Say on stderr what CMD's view of the files is, and, after CMD, how many processes it left running were ended, and how.")

    /// How `--mask` decides.
    enum MaskMode: String { case auto, always, never }

    let context: CommandContext

    func validate() throws(UsageError) {
        _ = try ExecPlan(context.arguments)
        _ = try isolation()
        guard let first = command.first, !first.isEmpty else {
            throw UsageError("exec runs a command: give it after '--' (keychainctl exec --env NAME=QUERY -- CMD ARG…).")
        }
    }

    /// The command and its arguments, after `--`.
    var command: [String] { context.arguments.trailing ?? [] }

    /// What the command may keep: the descriptors `--keep-fd` names (each open now, checked before
    /// keychainctl opens descriptors of its own that could take the number), the keyring.
    private func isolation() throws(UsageError) -> ChildProcess.Isolation {
        var isolation = ChildProcess.Isolation()
        isolation.allowKeyring = context[Self.allowKeyring]
        // A same-user service on an abstract socket (a bus, an agent) is not the command's to ask.
        isolation.scopeAbstractSockets = true
        for word in context.all(Self.keepFD) {
            guard let fd = Int32(word), fd >= 3 else { throw UsageError("--keep-fd takes a descriptor number of 3 or more.") }
            guard fcntl(fd, F_GETFD) >= 0 else { throw UsageError("--keep-fd \(fd): no such open descriptor.") }
            isolation.keep.append(fd)
        }
        for folder in context.all(Self.writable) {
            var status = stat()
            guard stat(folder, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
                throw UsageError("--writable \(folder.terminalSafe): no such folder.")
            }
            isolation.writable.append(folder)
        }
        // CMD sees the file system through a mount namespace of its own: the key files covered,
        // and the sockets of the user's services, but those --allow-socket names.
        isolation.ownView = true
        for path in context.all(Self.allowSocket) {
            var status = stat()
            guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFSOCK else {
                throw UsageError("--allow-socket \(path.terminalSafe): no unix socket there.")
            }
            isolation.allowedSockets.append(.init(device: UInt(status.st_dev), inode: UInt(status.st_ino)))
        }
        return isolation
    }

    func run() throws {
        let plan = try ExecPlan(context.arguments)
        var isolation = try isolation()
        if !isolation.writable.isEmpty, !ChildProcess.Isolation.landlock {
            throw ConfigurationError(
                "--writable needs Landlock (Linux 5.13 or later, with the LSM enabled), which this kernel does not offer; nothing was run.")
        }
        let mask = context[Self.mask] ?? .auto
        let caller = try context.caller()
        let resolved: ExecPlan.Resolved
        var keyFile: String?
        var keyCached = false
        do {
            let keychain = try context.openKeychain()
            resolved = try plan.resolve(keychain: keychain, caller: caller)
            keyFile = context[Self.dryRun] ? nil : readableKeyFile(holding: keychain)
            if context[Self.lock] {
                // Everything is resolved: nothing CMD runs or leaves behind may find the key cached after it.
                // A dry run changes nothing.
                if !context[Self.dryRun], let removed = lockBeforeStarting(keychain, keyFile: keyFile), removed == keyFile {
                    keyFile = nil
                }
            } else {
                for warning in Self.cachedKeyWarnings(keychain, isolation: isolation) { StandardStreams.warn(warning) }
            }
            keyCached = keychain.usedCachedKey && !context[Self.lock]
        }
        // Every key file this call could have read is covered in CMD's view, whichever opened it.
        isolation.hide = keyFileCandidates.filter { access($0, F_OK) == 0 }
        for warning in resolved.warnings { StandardStreams.warn(warning) }
        if context[Self.dryRun] {
            return StandardStreams.out(ExecReport.dryRun(resolved, command: command, format: context.resolvedFormat))
        }

        let executable: String
        switch ChildProcess.resolve(command[0], path: resolved.path) {
        case .found(let path): executable = path
        case .notFound: throw SilentExitWithMessage(code: 127, message: "\(command[0].terminalSafe): command not found; nothing was run.")
        case .notExecutable(let path):
            throw SilentExitWithMessage(code: 126, message: "\(path.terminalSafe): not an executable file; nothing was run.")
        }
        if context[Self.ciMask] {
            if Environment.value("GITHUB_ACTIONS") == "true" {
                ExecReport.addMaskLines(resolved.secrets)
            } else {
                StandardStreams.warn(
                    "--ci-mask does nothing outside GitHub Actions (GITHUB_ACTIONS is not true): no other CI reads ::add-mask:: lines. "
                        + "exec's own masking of the command's output (--mask) still applies.")
            }
        }
        // Where keychainctl's streams are a terminal, CMD gets one of its own in their place, and the
        // caller's terminal device is covered in its view.
        let terminal = try TerminalRelay.forStandardStreams()
        if let device = terminal?.callerDevice { isolation.hide.append(device) }
        let onTerminal = { (fd: Int32) in terminal?.carried.contains(fd) ?? false }
        let maskStdout = !onTerminal(1) && (mask == .always || (mask == .auto && !StandardStreams.isTerminal(1)))
        let maskStderr = !onTerminal(2) && (mask == .always || (mask == .auto && !StandardStreams.isTerminal(2)))
        let maskTerminal = terminal != nil && mask == .always
        // One masker per stream: each holds back its own stream's undecided bytes.
        let masked = !resolved.secrets.isEmpty
        let stdoutMasker = masked && maskStdout ? SecretMasker(resolved.secrets) : nil
        let stderrMasker = masked && maskStderr ? SecretMasker(resolved.secrets) : nil
        let terminalMasker = masked && maskTerminal ? SecretMasker(resolved.secrets) : nil
        if let unmasked = (stdoutMasker ?? stderrMasker ?? terminalMasker)?.unmasked, !unmasked.isEmpty {
            StandardStreams.warn("not masked (shorter than \(SecretMasker.minimumBytes) bytes): \(unmasked.joined(separator: ", ")).")
        }
        let files = try ExecFiles(resolved.files)
        isolation.keep += Array(files.descriptors.values)
        let environment = EnvironmentBlock(resolved.environment(filePaths: files.paths))
        let watch = try ChildProcess.SignalWatch()
        let outcome = try ChildProcess.run(
            executable, arguments: command, environment: environment, isolation: isolation, watch: watch, stdoutMasker: stdoutMasker,
            stderrMasker: stderrMasker, terminal: terminal.map { ($0, terminalMasker) }, cleanup: files.close
        ) { view in
            // A user namespace of its own keeps CMD from the shell's memory with or without Landlock.
            if keyCached, !view.userNamespace, let exposed = ChildProcess.Isolation.exposedKeyWarning(keyCached: true) {
                StandardStreams.warn(exposed)
            }
            if let keyFile, let warning = Self.keyFileWarning(keyFile, view: view) { StandardStreams.warn(warning) }
            if context[Self.verbose] {
                StandardStreams.err(Self.describe(view))
                if let terminal {
                    let streams = terminal.carried.map { ["stdin", "stdout", "stderr"][Int($0)] }.joined(separator: ", ")
                    StandardStreams.err("exec: CMD runs on a terminal of its own (\(streams)), relayed by keychainctl\n")
                }
            }
        }
        if case .failedToStart(let error) = outcome.ending { throw cannotRun(error) }
        if context[Self.verbose] {
            let ended = "exec: ended \(outcome.leftovers) process(es) the command left running"
            switch outcome.route {
            case .cgroup: StandardStreams.err("\(ended) (its own cgroup, killed whole)\n")
            case .subreaper: StandardStreams.err("\(ended) (keychainctl was their child subreaper)\n")
            case .none:
                StandardStreams.err("exec: the kernel refused a child subreaper: processes the command left running were not ended\n")
            }
        }
        _ = StandardStreams.finish(0)
        // The command succeeded but its output was not all written (a full disk, /dev/full): 74.
        if let failed = outcome.writeError, case .exited(0) = outcome.ending {
            let stream = failed.target == 1 ? "standard output" : "standard error"
            throw SilentExitWithMessage(
                code: ExitStatusTable.ioFailure,
                message: "cannot write the command's \(stream): \(SystemError.text(failed.errno)); its output is incomplete.")
        }
        ChildProcess.end(as: outcome.ending)
    }
}

extension ExecCommand {
    /// What `exec` warns of when the key it used stays cached for others to find while CMD runs.
    fileprivate static func cachedKeyWarnings(_ keychain: Keychain, isolation: ChildProcess.Isolation) -> [String] {
        var warnings: [String] = []
        // A CI step cannot keep a session keyring of its own: there the advice is the job's lock
        // step, which the Action's post step and the template's after_script are (they say so).
        let inCI = Environment.value("GITHUB_ACTIONS") == "true" || Environment.value("GITLAB_CI") == "true"
        let lockedAtJobEnd = inCI && Environment.value("KEYCHAINCTL_LOCKED_AT_JOB_END") == "1"
        if keychain.cachedKeyRing == .user, !lockedAtJobEnd {
            warnings.append(
                "the keychain's key is cached in the user keyring, which every process of this user can link and read"
                    + (isolation.allowKeyring ? ", CMD included (--allow-keyring)" : " (CMD cannot: its keyring calls are denied)")
                    + (inCI
                        ? "; end the job with 'keychainctl lock' (the Action and the GitLab template do), so no later job of this runner's user finds it."
                        : "; run 'keychainctl unlock' inside a session keyring ('keyctl session - …') to keep it to one session."))
        }
        return warnings
    }

    /// The key file, among those this call could have taken the key from (--key-file,
    /// KEYCHAINCTL_KEY_FILE, the default key file), that holds the key `keychain` was opened with
    /// and that the command, running as this user, could read too; `nil` for a key from the cache,
    /// the environment or a passphrase, and for a descriptor's file (/dev/fd/N), which exec closes.
    fileprivate func readableKeyFile(holding keychain: Keychain) -> String? {
        guard !keychain.usedCachedKey else { return nil }
        return keyFileCandidates.first { path in
            guard access(path, R_OK) == 0,
                case .key(let key)? = try? SecretFiles.key(fromFile: path)
            else { return false }
            return key.equals(keychain.keychainKey)
        }
    }

    /// The warning `exec` prints once CMD started when CMD can read `keyFile`, which holds the
    /// key the keychain was opened with: where its view could not cover it, or where, without
    /// Landlock, another process's /proc/PID/root leads around the cover. `nil` when it cannot.
    fileprivate static func keyFileWarning(_ keyFile: String, view: ChildProcess.Isolation.View) -> String? {
        let why: String
        if !view.own {
            why =
                "this system refused CMD a mount namespace of its own to hide it in (\(SystemError.text(view.refused)): "
                + "user namespaces are off, or a container's seccomp profile refuses them)"
        } else if !view.userNamespace, !ChildProcess.Isolation.landlock {
            why = "without Landlock, a root CMD can read it through /proc/PID/root of any process outside exec"
        } else {
            return nil
        }
        return "CMD can read the key file \(keyFile.terminalSafe) and open every item with it: \(why). "
            + "Run code you do not trust where user namespaces are allowed (sysctl user.max_user_namespaces), "
            + "or as a user who cannot read the key file."
    }

    /// What `--verbose` says of CMD's view of the file system.
    fileprivate static func describe(_ view: ChildProcess.Isolation.View) -> String {
        view.own
            ? "exec: CMD runs in a mount namespace of its own: key files hidden, \(view.socketsCovered) socket(s) of services covered\n"
            : "exec: no mount namespace for CMD (\(SystemError.text(view.refused))): key files and sockets of services stay in its reach\n"
    }

    /// `--lock`: removes the key `unlock` cached for `keychain`, or the key file `unlock
    /// --to-key-file` wrote; says which, or that the key came from somewhere --lock does not remove
    /// (`keyFile`, the readable key file holding the key, or the environment). The key file it
    /// removed, if any.
    fileprivate func lockBeforeStarting(_ keychain: Keychain, keyFile: String?) -> String? {
        let name = context.keychainPath.terminalSafe
        if keychain.usedCachedKey {
            if let id = keychain.identity,
                KeyCache.invalidate(KeyCache.Slot(id: id, path: context.keychainPath), by: "keychainctl exec --lock")
            {
                StandardStreams.err("locked \(name) before starting the command (--lock)\n")
            }
        } else if let file = LockCommand.removeUnlockedKeyFile(context) {
            StandardStreams.err(
                "locked \(name) before starting the command (--lock): removed the key file \(file.terminalSafe) 'unlock --to-key-file' wrote\n"
            )
            return file
        } else {
            let source = keyFile.map { "the key file \($0.terminalSafe)" } ?? "the environment or a passphrase"
            StandardStreams.warn(
                "--lock removed nothing: the key came from \(source), not from 'keychainctl unlock', and stays for what runs after CMD. "
                    + "'keychainctl unlock' (or 'unlock --to-key-file' where there is no keyring) gives a key that --lock removes.")
        }
        return nil
    }

    /// The key files this call could take a key from, each once: --key-file, KEYCHAINCTL_KEY_FILE,
    /// the default key file, and the sync account's key file; not a descriptor's file (/dev/fd/N,
    /// /proc/…), which exec closes.
    fileprivate var keyFileCandidates: [String] {
        var seen: Set<String> = []
        return [
            context.given(GlobalOptions.keyFile), SettingVariable.keyFile.value, context.defaultKeyFile,
            Environment.value("KEYCHAINCTL_ACCOUNT_KEY_FILE"),
        ]
        .compactMap { $0 }.filter { !$0.hasPrefix("/dev/fd/") && !$0.hasPrefix("/proc/") && seen.insert($0).inserted }
    }

    /// The command could not be started (errno `error`): 127 when it is not there, else 126.
    fileprivate func cannotRun(_ error: Int32) -> SilentExitWithMessage {
        SilentExitWithMessage(
            code: error == ENOENT ? 127 : 126, message: "cannot run \(command[0].terminalSafe): \(SystemError.text(error)).")
    }
}
