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

    /// A backup killed at each of its steps (writing the copy, syncing it, naming it DEST, syncing
    /// the folder) leaves no DEST up to the step that names it, and a whole one that verifies
    /// after it; the copy is a file with no name until then, so nothing else is left.
    @Test(.enabled(if: CrashCheck.canWatch, "machine: root"))
    func aKilledBackupLeavesNothingButAWholeDestination() throws {
        let sandbox = try Sandbox()
        try sandbox.fill(count: 300, group: "SKMME9E2Y8.com.example.app")
        let folder = sandbox.folder + "/backups"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let destination = folder + "/k.db"
        let (whole, trace) = sandbox.watched(["backup", destination], profile: nil)
        #expect(whole.status == 0, "\(whole.stderr)")
        let named = try #require(trace.events.first { $0.call == "linkat" && $0.target.hasSuffix(" -> \(destination)") }, "\(trace)")
        #expect(trace.unsyncedEffects.isEmpty)
        let steps = trace.events.filter { $0.target.contains(folder) }.map(\.index)
        #expect(steps.count >= 4, "write, sync, name, sync the folder:\n\(trace)")
        /// Empties the folder (what verify's open adds beside DEST included).
        func empty() throws {
            for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
                try FileManager.default.removeItem(atPath: folder + "/" + name)
            }
        }
        for moment in Set(steps + steps.map { $0 + 1 }).sorted() where moment <= trace.events.count {
            try empty()
            let event = trace.events[moment - 1]
            sandbox.runKilled(["backup", destination], at: event)
            let left = try FileManager.default.contentsOfDirectory(atPath: folder)
            if moment <= named.index {
                #expect(left.isEmpty, "killed at \(event): \(left)")
            } else {
                #expect(left == ["k.db"], "killed at \(event): \(left)")
                #expect(sandbox.run(["verify", "--keychain", destination], profile: nil).status == 0, "killed at \(event)")
            }
        }
    }

    /// A temporary file that an older maker left beside DEST (`.creating-PID-…`) is removed by the
    /// next backup once its process is gone, and left to a maker still running.
    @Test func theNextBackupRemovesWhatAnEndedMakerLeft() throws {
        let sandbox = try Sandbox()
        let folder = sandbox.folder + "/backups"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let destination = folder + "/k.db"
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

    /// `init --generate-key-file` killed at each step (writing and syncing the key, then the
    /// keychain, naming each, syncing their folders): the key is named before the keychain, so a
    /// kill leaves nothing, the key alone, or both whole, never a keychain without its key. Run
    /// again, the same command creates the keychain or, over a key left alone, names the command
    /// that creates it with that key, which the test runs as printed.
    @Test(.enabled(if: CrashCheck.canWatch, "machine: root"))
    func aKilledInitLeavesNothingOrTheKeyWithTheCommandThatFinishes() throws {
        let sandbox = try Sandbox(initialize: false)
        let arguments = ["init", "--generate-key-file", sandbox.keyFile]
        let (whole, trace) = sandbox.watched(arguments, profile: nil)
        #expect(whole.status == 0, "\(whole.stderr)")
        #expect(trace.unsyncedEffects.isEmpty)
        let keyNamed = try #require(trace.events.first { $0.call == "linkat" && $0.target.hasSuffix(" -> \(sandbox.keyFile)") }, "\(trace)")
        let keychainNamed = try #require(
            trace.events.first { $0.call == "linkat" && $0.target.hasSuffix(" -> \(sandbox.keychain)") }, "\(trace)")
        #expect(keyNamed.index < keychainNamed.index, "the key is named first")
        for moment in 1...trace.events.count {
            try? FileManager.default.removeItem(atPath: sandbox.folder + "/data")
            unlink(sandbox.keyFile)
            let event = trace.events[moment - 1]
            sandbox.runKilled(arguments, at: event)
            let hasKey = FileManager.default.fileExists(atPath: sandbox.keyFile)
            let hasKeychain = FileManager.default.fileExists(atPath: sandbox.keychain)
            #expect(hasKey == (moment > keyNamed.index) && hasKeychain == (moment > keychainNamed.index), "killed at \(event)")
            if hasKeychain {
                #expect(sandbox.run(["verify"], profile: nil).status == 0, "killed at \(event)")
                continue
            }
            let again = sandbox.run(arguments, profile: nil)
            if hasKey {
                #expect(again.status == 78, "killed at \(event): \(again.stderr)")
                let hint = try #require(again.stderr.firstMatch(of: /run '(keychainctl init [^']*)'/)?.1, "\(again.stderr)")
                let words = hint.split(separator: " ").dropFirst().map(String.init)
                #expect(words == ["init", "--key-file", sandbox.keyFile], "\(hint)")
                #expect(sandbox.run(words, profile: nil).status == 0, "the hint, followed")
            } else {
                #expect(again.status == 0, "killed at \(event): \(again.stderr)")
            }
            #expect(sandbox.add(["-s", "after"], secret: "SECRET-after").status == 0)
            #expect(sandbox.run(["find", "-s", "after", "-w"]).stdout == "SECRET-after", "killed at \(event)")
        }
    }
}
