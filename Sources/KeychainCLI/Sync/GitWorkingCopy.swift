import Glibc
import KeychainCore
import TextEscaping

/// `sync --git`: the cloud store is a git working copy, and the remote is the cloud. Each attempt
/// starts from the remote's state (fetch, reset to the upstream branch), syncs, commits the record
/// changes and pushes before the keychain commits. A rejected push is CloudKit's
/// server-record-changed: the keychain's transaction rolls back and the sync runs again on the
/// new remote state, so nothing the remote refused is ever recorded here as uploaded.
struct GitWorkingCopy {
    let path: String
    /// Attempts before giving up when other devices keep pushing first.
    static let attempts = 5
    /// The longest one git command may take (a push over a slow network).
    static let timeoutSeconds = 300

    init(path: String) throws {
        self.path = path
        let inside = try git(["rev-parse", "--is-inside-work-tree"])
        guard inside.status == 0 else { throw StoreError("\(path) is not a git working copy (sync --git): \(inside.firstLine)") }
    }

    /// Runs `body` (a sync with a publish step) until a push is accepted, holding the store's
    /// lock throughout so that two syncs on this machine take turns.
    func sync(accountKey: SecretBytes, dryRun: Bool, _ body: (CloudStore, (Bool) throws -> Void) throws -> SyncReport) throws
        -> SyncReport
    {
        // A clone made before the store reached the remote has no store yet: the remote's state first.
        if access(path + "/" + CloudStore.marker, F_OK) != 0 { try pullFirst() }
        let cloud = try CloudStore(path: path, accountKey: accountKey, gitCheckout: true)
        return try cloud.withLock {
            var lastRejection = ""
            for _ in 0..<Self.attempts {
                let upstream = try git(["rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{u}"]).status == 0
                if upstream {
                    try run(["fetch", "--quiet"], what: "fetch the remote")
                    try run(["reset", "--quiet", "--hard", "@{u}"], what: "reset to the remote's state")
                }
                do {
                    return try body(cloud) { changed in try publish(changed: changed, upstream: upstream) }
                } catch let rejected as Rejected {
                    lastRejection = rejected.output
                }
            }
            throw StoreError(
                "the remote of \(path) changed under each of \(Self.attempts) attempts (other devices pushing first); "
                    + "nothing was changed here: \(lastRejection)")
        }
    }

    /// Brings in the remote's branch of the same name, for a clone that has no store yet: fetched,
    /// fast-forwarded (an unborn branch, as a clone of an empty remote has, takes it whole), and
    /// made the upstream when none is set. Nothing local is ever discarded: a branch that has
    /// moved apart from the remote's is left as it is, and opening the store then says what is missing.
    private func pullFirst() throws {
        guard try git(["remote", "get-url", "origin"]).status == 0 else { return }
        try run(["fetch", "--quiet", "origin"], what: "fetch the remote")
        let upstream = try git(["rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{u}"])
        let branch = try git(["symbolic-ref", "--quiet", "--short", "HEAD"]).firstLine
        let target = upstream.status == 0 ? upstream.firstLine : "origin/" + branch
        guard !branch.isEmpty, try git(["rev-parse", "--verify", "--quiet", target]).status == 0 else { return }
        guard try git(["merge", "--quiet", "--ff-only", target]).status == 0 else { return }
        if upstream.status != 0 { try run(["branch", "--quiet", "--set-upstream-to", target], what: "track the remote's branch") }
    }

    /// Commits the store's own files' changes and pushes them; `Rejected` when the remote moved
    /// on. Only the store's paths are staged, and a sync refuses to commit anything else already
    /// staged: a key file or a `.env` kept in the folder must never reach the remote's history.
    private func publish(changed: Bool, upstream: Bool) throws {
        // A version-1 store has no head: git refuses a path that matches nothing.
        let paths = CloudStore.ownPaths.filter { access(path + "/" + $0, F_OK) == 0 }
        try run(["add", "-A", "--"] + paths, what: "stage the records")
        let staged = try git(["diff", "--cached", "--name-only", "-z"])
        let foreign = staged.output.split(separator: "\0").map(String.init).filter { name in
            !CloudStore.ownPaths.contains { name == $0 || name.hasPrefix($0 + "/") }
        }
        if let first = foreign.first {
            throw ConfigurationError(
                "\(path)/\(first.terminalSafe) is staged in the store's git working copy but is not a store file; "
                    + "a sync commits only the store's own files. Unstage it ('git -C \(path) reset -- \(first.terminalSafe)'); nothing was pushed."
            )
        }
        guard try git(["diff", "--cached", "--quiet"]).status != 0 else { return }
        var identity: [String] = []
        if try git(["config", "user.email"]).status != 0 {
            identity = ["-c", "user.name=keychainctl", "-c", "user.email=keychainctl@localhost"]
        }
        try run(identity + ["commit", "--quiet", "-m", "keychainctl sync"], what: "commit the records")
        let push = try git(upstream ? ["push", "--quiet"] : ["push", "--quiet", "-u", "origin", "HEAD"])
        guard push.status != 0 else { return }
        if push.output.contains("rejected") || push.output.contains("fetch first") || push.output.contains("non-fast-forward") {
            throw Rejected(output: push.firstLine)
        }
        throw StoreError("git push from \(path) failed: \(push.firstLine)")
    }

    private struct Rejected: Error { let output: String }

    private func run(_ arguments: [String], what: String) throws {
        let result = try git(arguments)
        guard result.status == 0 else { throw StoreError("cannot \(what) in \(path) (git \(arguments[0])): \(result.firstLine)") }
    }

    /// Runs git in the working copy with no terminal and no prompt, stdin from /dev/null, stdout
    /// and stderr collected, killed after `timeoutSeconds`.
    private func git(_ arguments: [String]) throws -> (status: Int32, output: String, firstLine: String) {
        guard case .found(let executable) = ChildProcess.resolve("git", path: Environment.value("PATH")) else {
            throw ConfigurationError("sync --git needs git on PATH.")
        }
        var environment: [(name: String, value: SecretBytes)] = [("GIT_TERMINAL_PROMPT", SecretBytes(copying: Array("0".utf8)))]
        for name in ["PATH", "HOME", "SSH_AUTH_SOCK", "GIT_SSH_COMMAND", "XDG_CONFIG_HOME", "LANG"] {
            if let value = Environment.value(name) { environment.append((name, SecretBytes(copying: Array(value.utf8)))) }
        }
        environment.append(("LC_ALL", SecretBytes(copying: Array("C".utf8))))
        // git and its hooks get what exec's command gets: no keyring, no descriptor of keychainctl's.
        // core.symlinks=false: a symbolic link committed by whoever can push is checked out as a
        // plain file, never followed by this sync.
        let (exited, output) = try ChildProcess.capture(
            executable, arguments: ["git", "-c", "core.symlinks=false", "-C", path] + arguments,
            environment: EnvironmentBlock(environment), isolation: ChildProcess.Isolation(), timeoutSeconds: Self.timeoutSeconds)
        let text = String(decoding: output, as: UTF8.self)
        let first = text.split(separator: "\n").first { !$0.isEmpty }.map(String.init) ?? "exit \(exited)"
        return (exited, text, first.terminalSafe)
    }
}
