import Foundation
import KeychainTestSupport
import Testing

/// `sync --git`: devices on different machines sharing a keychain through a git remote (two clones
/// of a bare repository here). A push the remote rejects is CloudKit's server-record-changed.
@Suite struct SyncGitTests {
    /// Runs git with `arguments` in `folder`, killed after two minutes.
    @discardableResult
    static func git(_ arguments: [String], in folder: String, sandbox: Sandbox) -> Sandbox.Run {
        sandbox.run(
            ["-s", "KILL", "120", "git", "-C", folder] + arguments, profile: nil,
            environment: ["GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"],
            executable: "/usr/bin/timeout")
    }

    /// A bare remote, device 0's clone holding a new store (pushed by its first sync) and device 1's
    /// clone of it.
    func setUp() throws -> (account: SyncAccount, clones: [String], remote: String) {
        let account = try SyncAccount(devices: 2)
        let home = account.home
        let remote = home.folder + "/remote.git"
        #expect(Self.git(["init", "--quiet", "--bare", remote], in: home.folder, sandbox: home).status == 0)
        let clones = [home.folder + "/clone0", home.folder + "/clone1"]
        #expect(Self.git(["clone", "--quiet", remote, clones[0]], in: home.folder, sandbox: home).status == 0)
        #expect(home.run(["cloud", "init", clones[0], "--account-key-file", account.accountKey], profile: nil).status == 0)
        account.add(0, service: "ci", secret: "token-0")
        let first = account.sync(0, ["--git"], cloud: clones[0])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(Self.git(["clone", "--quiet", remote, clones[1]], in: home.folder, sandbox: home).status == 0)
        return (account, clones, remote)
    }

    @Test func twoClonesOfOneRemoteSyncAndTheRemoteSeesNoSecret() throws {
        let (account, clones, remote) = try setUp()
        let pulled = account.sync(1, ["--git"], cloud: clones[1])
        #expect(pulled.status == 0, "\(pulled.stderr)")
        #expect(account.secret(1, service: "ci") == "token-0")
        account.devices[1].run(["update", "-s", "ci", "-a", "alice", "--sync", "yes", "--set-password", "token-1"])
        #expect(SyncAccount.items(account.sync(1, ["--git"], cloud: clones[1]), "pushed").count == 1)
        #expect(SyncAccount.items(account.sync(0, ["--git"], cloud: clones[0]), "updated").count == 1)
        #expect(account.secret(0, service: "ci") == "token-1")
        let history = Self.git(["log", "--all", "-p", "--text"], in: remote, sandbox: account.home)
        #expect(history.status == 0 && !history.stdout.isEmpty)
        for plain in ["token-0", "token-1", "alice", "SKMME9E2Y8"] {
            #expect(!history.stdout.contains(plain), "\(plain) reached the remote")
        }
    }

    /// A mistaken `git push --force` of an older commit: the device that saw the newer store
    /// refuses the remote's history (its head does not pass through the last one seen) and keeps
    /// its secret. Accepted on purpose (`--expect-head`, as the message says), the store is taken
    /// as it is, the older record in it is reported, and the newer secret goes back to the remote.
    @Test func aForcePushOfAnOlderCommitIsRefusedByADeviceThatSawTheNewer() throws {
        let (account, clones, _) = try setUp()
        #expect(account.sync(1, ["--git"], cloud: clones[1]).status == 0)
        let older = Self.git(["rev-parse", "HEAD"], in: clones[0], sandbox: account.home).stdout.trimmingCharacters(
            in: .whitespacesAndNewlines)
        account.devices[0].run(["update", "-s", "ci", "-a", "alice", "--sync", "yes", "--set-password", "rotated"])
        #expect(account.sync(0, ["--git"], cloud: clones[0]).status == 0)
        #expect(account.sync(1, ["--git"], cloud: clones[1]).status == 0)
        #expect(account.secret(1, service: "ci") == "rotated")
        // Someone force-pushes the older commit.
        let branch = Self.git(["symbolic-ref", "--short", "HEAD"], in: clones[0], sandbox: account.home).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(
            Self.git(["push", "--quiet", "--force", "origin", "\(older):refs/heads/\(branch)"], in: clones[0], sandbox: account.home).status
                == 0)
        let refused = account.sync(1, ["--git"], cloud: clones[1])
        #expect(refused.status == 93 && refused.stderr.contains("rewound"), "\(refused.stderr)")
        #expect(account.secret(1, service: "ci") == "rotated")
        let hint = try #require(refused.stderr.range(of: #"--expect-head [0-9]+:[0-9a-f]+"#, options: .regularExpression))
        let accepted = account.sync(1, ["--git"] + refused.stderr[hint].split(separator: " ").map(String.init), cloud: clones[1])
        #expect(accepted.status == 93, "the old record in it is reported and replaced: \(accepted.stdout)")
        #expect(account.secret(1, service: "ci") == "rotated")
        #expect(
            account.sync(0, ["--git", "--expect-head", try #require(account.head(of: clones[1])["head"] as? String)], cloud: clones[0])
                .status == 0)
        #expect(account.secret(0, service: "ci") == "rotated", "the newer secret went back to the remote")
    }

    @Test func aRejectedPushRollsBackAndSyncsAgainOnTheNewRemoteState() throws {
        let (account, clones, _) = try setUp()
        account.sync(1, ["--git"], cloud: clones[1])
        // Device 1's first push finds that device 0 pushed first: its pre-push hook syncs device 0.
        account.add(0, service: "zero", secret: "z")
        account.add(1, service: "one", secret: "o")
        let device0 = account.devices[0]
        let mark = account.home.folder + "/hook-ran"
        let hook = """
            #!/bin/sh
            [ -e '\(mark)' ] && exit 0
            touch '\(mark)'
            KEYCHAINCTL_KEYCHAIN='\(device0.keychain)' KEYCHAINCTL_KEY_FILE='\(device0.keyFile)' \\
              '\(Sandbox.binary)' sync --git --cloud '\(clones[0])' --account-key-file '\(account.accountKey)' >/dev/null || exit 1
            """
        let hookPath = clones[1] + "/.git/hooks/pre-push"
        try Data(hook.utf8).write(to: URL(fileURLWithPath: hookPath))
        chmod(hookPath, 0o755)
        let raced = account.sync(1, ["--git"], cloud: clones[1])
        #expect(raced.status == 0, "\(raced.stderr)")
        #expect(FileManager.default.fileExists(atPath: mark))
        #expect(SyncAccount.items(raced, "pulled").count == 1, "the second attempt pulled device 0's item")
        #expect(SyncAccount.items(raced, "pushed").count == 1)
        account.sync(0, ["--git"], cloud: clones[0])
        #expect(account.contents(0) == account.contents(1))
        #expect(account.contents(0).count == 3)
    }

    @Test func aFolderThatIsNotAWorkingCopyIsRefused() throws {
        let account = try SyncAccount(devices: 1)
        let run = account.sync(0, ["--git"])
        #expect(run.status == 74 && run.stderr.contains("not a git working copy"), "\(run.stderr)")
    }

    /// Only the store's own files are committed: a key or `.env` kept in the working copy stays
    /// out of the remote's history, even one staged by hand (the sync starts from the remote's state).
    @Test func onlyTheStoresOwnFilesArePushed() throws {
        let (account, clones, remote) = try setUp()
        try Data("NPM_TOKEN=leaked-if-pushed\n".utf8).write(to: URL(fileURLWithPath: clones[0] + "/.env"))
        try Data("notes".utf8).write(to: URL(fileURLWithPath: clones[0] + "/notes.txt"))
        account.add(0, service: "second", secret: "token-2")
        let synced = account.sync(0, ["--git"], cloud: clones[0])
        #expect(synced.status == 0, "\(synced.stderr)")
        let files = Self.git(["ls-tree", "-r", "--name-only", "HEAD"], in: remote, sandbox: account.home)
        #expect(!files.stdout.contains(".env") && !files.stdout.contains("notes.txt"), "\(files.stdout)")
        #expect(Self.git(["add", "-f", "notes.txt"], in: clones[0], sandbox: account.home).status == 0)
        account.add(0, service: "third", secret: "token-3")
        let staged = account.sync(0, ["--git"], cloud: clones[0])
        #expect(staged.status == 0, "\(staged.stderr)")
        let after = Self.git(["log", "--all", "--name-only", "--format="], in: remote, sandbox: account.home)
        #expect(!after.stdout.contains("notes.txt") && !after.stdout.contains(".env"), "\(after.stdout)")
    }

    /// Whoever can push commits `.lock` as a symbolic link: it is checked out as a plain file
    /// (core.symlinks=false), and no device creates the link's target.
    @Test func aSymbolicLinkCommittedToTheRemoteIsNeverFollowed() throws {
        let (account, clones, _) = try setUp()
        let target = account.home.folder + "/created-by-git-lock"
        let attacker = clones[1]
        #expect(Self.git(["config", "core.symlinks", "true"], in: attacker, sandbox: account.home).status == 0)
        try FileManager.default.createSymbolicLink(atPath: attacker + "/.lock", withDestinationPath: target)
        #expect(Self.git(["add", "-f", ".lock"], in: attacker, sandbox: account.home).status == 0)
        #expect(Self.git(["commit", "-q", "-m", "evil"], in: attacker, sandbox: account.home).status == 0)
        #expect(Self.git(["push", "-q"], in: attacker, sandbox: account.home).status == 0)
        for _ in 0..<2 { account.sync(0, ["--git"], cloud: clones[0]) }
        #expect(!FileManager.default.fileExists(atPath: target))
        var status = stat()
        #expect(lstat(clones[0] + "/.lock", &status) != 0 || status.st_mode & S_IFMT != S_IFLNK, "checked out as a link")
    }

    /// A hook that leaves a background job running does not hold the sync: git's output pipe is
    /// close-on-exec, and git's own exit ends the read.
    @Test func aBackgroundJobInAHookDoesNotStallTheSync() throws {
        let (account, clones, _) = try setUp()
        let hook = clones[0] + "/.git/hooks/post-commit"
        // The job marks its start and its end: the sync must return between the two, whatever the
        // machine's speed (the job's own 20 s are the margin, not a bound on the sync).
        let marks = clones[0] + "/../job"
        try Data("#!/bin/sh\n(echo started >> '\(marks)'; sleep 20; echo ended >> '\(marks)') &\n".utf8).write(
            to: URL(fileURLWithPath: hook))
        #expect(chmod(hook, 0o755) == 0)
        account.add(0, service: "hooked", secret: "token-h")
        let synced = account.sync(0, ["--git"], cloud: clones[0])
        #expect(synced.status == 0, "\(synced.stderr)")
        let read = { (try? String(contentsOfFile: marks, encoding: .utf8)) ?? "" }
        #expect(!read().contains("ended"), "the sync waited for the hook's job to end")
        #expect(Deadline.waitUntil(10) { read().contains("started") }, "the hook ran its job")
    }
}

extension SyncGitTests {
    /// git keeps no empty folder, so a fresh clone of a store that holds no record yet has no
    /// `records/`: the first sync there makes it and goes on, instead of calling the folder "not a
    /// cloud store".
    @Test func aFreshCloneOfAStoreWithNoRecordsSyncs() throws {
        let account = try SyncAccount(devices: 2)
        let home = account.home
        let remote = home.folder + "/remote.git"
        let seed = home.folder + "/seed"
        let fresh = home.folder + "/fresh"
        #expect(Self.git(["init", "--quiet", "--bare", remote], in: home.folder, sandbox: home).status == 0)
        #expect(Self.git(["clone", "--quiet", remote, seed], in: home.folder, sandbox: home).status == 0)
        #expect(home.run(["cloud", "init", seed, "--account-key-file", account.accountKey], profile: nil).status == 0)
        #expect(Self.git(["add", "-A"], in: seed, sandbox: home).status == 0)
        #expect(Self.git(["commit", "--quiet", "-m", "store"], in: seed, sandbox: home).status == 0)
        #expect(Self.git(["push", "--quiet", "origin", "HEAD"], in: seed, sandbox: home).status == 0)
        #expect(Self.git(["clone", "--quiet", remote, fresh], in: home.folder, sandbox: home).status == 0)
        #expect(!FileManager.default.fileExists(atPath: fresh + "/records"))
        account.add(1, service: "ci", secret: "token-1")
        let synced = account.sync(1, ["--git"], cloud: fresh)
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(SyncAccount.items(synced, "pushed").count == 1)
    }

    /// A clone made before the store reached the remote (of an empty remote, and of one holding
    /// other files) pulls the store in first, instead of saying the folder is not a cloud store.
    @Test(arguments: [false, true]) func aCloneMadeBeforeTheStoreExistedPullsFirst(remoteHadFiles: Bool) throws {
        let account = try SyncAccount(devices: 2)
        let home = account.home
        let remote = home.folder + "/remote.git"
        let (seed, early) = (home.folder + "/seed", home.folder + "/early")
        #expect(Self.git(["init", "--quiet", "--bare", remote], in: home.folder, sandbox: home).status == 0)
        #expect(Self.git(["clone", "--quiet", remote, seed], in: home.folder, sandbox: home).status == 0)
        if remoteHadFiles {
            try Data("team notes\n".utf8).write(to: URL(fileURLWithPath: seed + "/README"))
            #expect(Self.git(["add", "README"], in: seed, sandbox: home).status == 0)
            #expect(Self.git(["commit", "--quiet", "-m", "readme"], in: seed, sandbox: home).status == 0)
            #expect(Self.git(["push", "--quiet", "origin", "HEAD"], in: seed, sandbox: home).status == 0)
        }
        // The early clone: made now, before any store exists anywhere.
        #expect(Self.git(["clone", "--quiet", remote, early], in: home.folder, sandbox: home).status == 0)
        #expect(home.run(["cloud", "init", seed, "--account-key-file", account.accountKey], profile: nil).status == 0)
        account.add(0, service: "ci", secret: "token-0")
        #expect(account.sync(0, ["--git"], cloud: seed).status == 0)
        #expect(!FileManager.default.fileExists(atPath: early + "/keychainctl-cloud"))
        let pulled = account.sync(1, ["--git"], cloud: early)
        #expect(pulled.status == 0, "\(pulled.stderr)")
        #expect(account.secret(1, service: "ci") == "token-0")
        // And it pushes from then on: device 0 sees device 1's item.
        account.add(1, service: "one", secret: "token-1")
        #expect(account.sync(1, ["--git"], cloud: early).status == 0)
        #expect(account.sync(0, ["--git"], cloud: seed).status == 0)
        #expect(account.secret(0, service: "one") == "token-1")
    }
}
