import Foundation
import KeychainTestSupport
import Testing

/// What a command leaves when another user shares its folder, or when it is killed midway: a new
/// key file only where no other user can swap or read it, and no temporary file once the next run
/// of the same command is done.
@Suite struct FailurePathTests {
    /// The turn-5 review's L3: `alice` owned a 0777 folder and swapped the temporary key file for
    /// her own while root ran `init --generate-key-file` there (she read the new key 6 runs in 30).
    /// A folder on the way that another user owns, or may write without the sticky bit, is refused
    /// now, before anything is written; a sticky one of root's (/tmp) and one's own are fine.
    @Test(.enabled(if: TestMachine.isRoot, "machine: root")) func aKeyFileIsNeverWrittenWhereAnotherUserCanSwapIt() throws {
        let sandbox = try Sandbox(initialize: false)
        let cases: [(folder: String, owner: UInt32, mode: mode_t, refused: String?)] = [
            ("alices", 65534, 0o777, "belongs to another user (uid 65534)"),
            ("alices-private", 65534, 0o700, "belongs to another user (uid 65534)"),
            ("shared", 0, 0o777, "other users can write"),
            ("group", 0, 0o770, "other users can write"),
            ("sticky", 0, 0o1777, nil),
            ("mine", 0, 0o700, nil),
        ]
        for (index, entry) in cases.enumerated() {
            let folder = sandbox.folder + "/" + entry.folder
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            #expect(chmod(folder, entry.mode) == 0 && chown(folder, entry.owner, entry.owner) == 0)
            let keyFile = folder + "/k.key"
            let keychain = sandbox.folder + "/k\(index).db"
            for command in [["init", "--keychain", keychain, "--generate-key-file", keyFile]] {
                let run = sandbox.run(command, profile: nil)
                if let refused = entry.refused {
                    #expect(run.status == 78 && run.stderr.contains(refused), "\(entry.folder): \(run.status) \(run.stderr)")
                    #expect(run.stderr.contains("refusing to write the key file"), "\(run.stderr)")
                    let left = try FileManager.default.contentsOfDirectory(atPath: folder)
                    #expect(left.isEmpty, "\(entry.folder): nothing written: \(left)")
                    #expect(!FileManager.default.fileExists(atPath: keychain), "no keychain without its key")
                } else {
                    #expect(run.status == 0, "\(entry.folder): \(run.stderr)")
                    #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["k.key"])
                }
            }
        }
        // unlock --to-key-file writes key files the same way.
        let mine = sandbox.folder + "/mine/k.key"
        let unlock = sandbox.run(
            ["unlock", "--keychain", sandbox.folder + "/k5.db", "--key-file", mine, "--to-key-file", sandbox.folder + "/shared/copy.key"],
            profile: nil)
        #expect(unlock.status == 78 && unlock.stderr.contains("other users can write"), "\(unlock.stderr)")
    }

    /// A backup killed by SIGKILL at any moment leaves its temporary file and SQLite's journal
    /// beside DEST; the next backup to DEST removes them (their process is gone) and leaves the
    /// folder holding DEST alone. A temporary file of a maker still running is left to it.
    @Test func aKilledBackupLeavesNothingOnceTheNextOneRuns() throws {
        let sandbox = try Sandbox()
        try sandbox.fill(count: 3000, group: "SKMME9E2Y8.com.example.app")
        let folder = sandbox.folder + "/backups"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let destination = folder + "/k.db"
        var landed = 0
        for _ in 0..<12 {
            try? FileManager.default.removeItem(atPath: destination)
            let killed = try sandbox.killMidway(["backup", destination], after: KillMidway.logUniform(2_000, 200_000))
            if killed { landed += 1 }
        }
        #expect(landed > 0, "no kill landed before the backup finished")
        // One left by a process that has ended (a pid that was just reaped), one by a live one (this test's).
        let ended = Process()
        ended.executableURL = URL(fileURLWithPath: "/bin/true")
        try ended.run()
        ended.waitUntilExit()
        let abandoned = destination + ".creating-\(ended.processIdentifier)-abandoned"
        let live = destination + ".creating-\(getpid())-live"
        for path in [abandoned, abandoned + "-journal", live] { _ = FileManager.default.createFile(atPath: path, contents: Data("x".utf8)) }
        try? FileManager.default.removeItem(atPath: destination)
        let backup = sandbox.run(["backup", destination])
        #expect(backup.status == 0, "\(backup.stderr)")
        let left = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(left == ["k.db", "k.db.creating-\(getpid())-live"], "\(left)")
        #expect(sandbox.run(["verify", "--keychain", destination]).status == 0)
    }
}
