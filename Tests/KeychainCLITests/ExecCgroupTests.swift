import Foundation
import KeychainPlatform
import KeychainTestSupport
import Testing

/// What `exec`'s command leaves running ends through a cgroup of its own where the system
/// delegates one (here: root): everything the command starts is in it, and it is killed whole.
/// Where none is delegated the child subreaper alone ends them
/// (`ExecWayOutTests.whatTheCommandLeavesRunningEndsWithIt`, as `nobody`).
@Suite struct ExecCgroupTests {
    @Test(.enabled(if: TestMachine.hasCgroup, "machine: cgroup"))
    func whatTheCommandLeavesIsKilledWithItsCgroup() throws {
        let sandbox = try Sandbox()
        #expect(sandbox.add(["-s", "other", "-a", "ci"], secret: "OTHER-SECRET").status == 0)
        let own = try #require(CommandCgroup.ownFolder())
        // A cgroup a killed keychainctl left (its pid gone) is removed by the next exec.
        let abandoned = own + "/keychainctl-exec-999999999"
        #expect(mkdir(abandoned, 0o700) == 0 || errno == EEXIST)
        let leave = "cat /proc/self/cgroup; setsid sh -c 'sleep 1; touch \(sandbox.folder)/marker' & exit 0"
        let run = sandbox.run(
            [
                "exec", "--verbose", "--env", "T=service=other,account=ci", "--profile", Sandbox.profiles + "/app.plist", "--", "sh", "-c",
                leave,
            ],
            profile: nil)
        #expect(run.status == 0, "\(run.stderr)")
        // Its cgroup namespace is rooted at the cgroup made for it.
        #expect(run.stdout.split(separator: "\n").contains("0::/"), "\(run.stdout)")
        #expect(run.stderr.contains("exec: ended 2 process(es) the command left running (its own cgroup, killed whole)"), "\(run.stderr)")
        usleep(1_500_000)
        #expect(!FileManager.default.fileExists(atPath: sandbox.folder + "/marker"), "the setsid'd process was killed")
        // The abandoned one is gone (other tests' execs, running or killed, may have theirs now).
        #expect(!FileManager.default.fileExists(atPath: abandoned), "the cgroup a killed keychainctl left was removed")
    }

    /// The cgroup's folder from /proc/self/mountinfo's lines: the cgroup2 mount (its point's
    /// escapes undone), the path beneath its root, and nothing from a line of another type.
    @Test func theFolderIsFoundInMountinfo() {
        let mountinfo = Array(
            """
            22 27 0:21 / /proc rw,relatime - proc proc rw
            30 27 0:26 / /odd\\040name rw - tmpfs cgroup2 rw
            31 27 0:27 /user.slice /sys/fs/my\\040cgroup rw,nosuid shared:9 - cgroup2 cgroup2 rw,nsdelegate
            """.utf8)
        #expect(CommandCgroup.folder(of: "/user.slice/job", mountinfo: mountinfo) == "/sys/fs/my cgroup/job")
        #expect(CommandCgroup.folder(of: "/user.slice", mountinfo: mountinfo) == "/sys/fs/my cgroup")
        #expect(CommandCgroup.folder(of: "/system.slice/x", mountinfo: mountinfo) == nil)
        let namespaced = Array("40 1 0:30 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n".utf8)
        #expect(CommandCgroup.folder(of: "/", mountinfo: namespaced) == "/sys/fs/cgroup")
        #expect(CommandCgroup.folder(of: "/a/b", mountinfo: namespaced) == "/sys/fs/cgroup/a/b")
    }
}
