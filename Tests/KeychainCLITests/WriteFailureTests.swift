import Foundation
import KeychainTestSupport
import Testing

/// Every command that writes a key file, a keychain, a backup or an export leaves the finished
/// file or nothing, whichever step fails: the failure injected at that step by `inject-fault`
/// (a seccomp rule failing or killing one system call, a file size limit as a full disk).
@Suite struct WriteFailureTests {
    /// One command that writes one file into `out/` (made by `prepare`, which may also put the file
    /// there already, for a command that replaces it).
    struct Writer: CustomTestStringConvertible, Sendable {
        let name: String
        let arguments: @Sendable (_ out: String) -> [String]
        /// The file it replaces, written before the run (with `--force`), else none.
        var replaces: String? = nil
        /// Whether what it writes is larger than the size limit that stands for a full disk (key
        /// files are 45 bytes, and SQLite needs its 32 KiB shared-memory file to open the keychain).
        var large = false
        var testDescription: String { name }
    }

    static let app = ["--profile", Sandbox.profiles + "/app.plist"]

    static let writers: [Writer] = [
        Writer(name: "init --generate-key-file") { ["init", "--keychain", $0 + "/k.db", "--generate-key-file", $0 + "/k.key"] },
        Writer(name: "backup", arguments: { ["backup", $0 + "/b.db"] }, large: true),
        Writer(name: "export --output", arguments: { ["export", "--with-secrets", "--output", $0 + "/e.json"] + app }, large: true),
        Writer(
            name: "export --output --force", arguments: { ["export", "--with-secrets", "--force", "--output", $0 + "/e.json"] + app },
            replaces: "e.json", large: true),
        Writer(name: "unlock --to-key-file") { ["unlock", "--to-key-file", $0 + "/c.key"] },
        Writer(name: "rekey --generate-key-file") { ["rekey", "--generate-key-file", $0 + "/n.key"] },
        Writer(
            name: "rekey --generate-key-file --force", arguments: { ["rekey", "--generate-key-file", $0 + "/n.key", "--force"] },
            replaces: "n.key"),
    ]

    /// The faults, each at the step where it hurts most. `O_TMPFILE | O_WRONLY | O_CLOEXEC` is the
    /// file being made (0x490001 on x86-64 and AArch64).
    static let faults: [(name: String, settings: [String], status: Int32?)] = [
        ("killed as it names the file", ["fail=linkat:KILL", "fail=link:KILL"], nil),
        ("the folder is read-only", ["fail=openat@2=0x490001:EROFS"], 74),
        ("the disk fails to flush it", ["fail=fsync:EIO"], 74),
        ("the disk is full", ["fsize=40000"], 74),
    ]

    /// What the folder holds: each name and its bytes.
    static func contents(_ folder: String) throws -> [String: Data] {
        var found: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
            found[name] = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))
        }
        return found
    }

    @Test(arguments: writers)
    func aFailedWriteLeavesNothing(writer: Writer) throws {
        let sandbox = try Sandbox()
        // Enough items that a backup or an export is past the size limit.
        try sandbox.fill(count: 400, group: "SKMME9E2Y8.com.example.app")
        let out = sandbox.folder + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        if let replaces = writer.replaces { try Data("the file as it was\n".utf8).write(to: URL(fileURLWithPath: out + "/" + replaces)) }
        let keyBefore = try Data(contentsOf: URL(fileURLWithPath: sandbox.keyFile))
        for fault in Self.faults where writer.large || !fault.settings[0].hasPrefix("fsize") {
            let before = try Self.contents(out)
            let run = sandbox.run(
                fault.settings + [Sandbox.binary] + writer.arguments(out), profile: nil, timeout: 60, executable: Sandbox.injectFault)
            if let status = fault.status {
                #expect(run.status == status && run.signal == nil, "\(writer.name), \(fault.name): \(run.status) \(run.stderr)")
            } else {
                #expect(run.signal == SIGSYS, "\(writer.name), \(fault.name): \(run.status) \(run.stderr)")
            }
            let after = try Self.contents(out)
            #expect(after == before, "\(writer.name), \(fault.name): \(after.keys.sorted())")
            // The keychain still opens with its key, which a rekey did not change.
            #expect(try Data(contentsOf: URL(fileURLWithPath: sandbox.keyFile)) == keyBefore)
            let found = sandbox.run(["find", "-s", "svc-7", "-w"])
            #expect(found.status == 0 && found.stdout == "secret-7", "\(writer.name), \(fault.name): \(found.stderr)")
        }
        // The control: without a fault, the same command writes its file.
        let run = sandbox.run(writer.arguments(out), profile: nil)
        #expect(run.status == 0, "\(writer.name): \(run.stderr)")
        let written = try Self.contents(out)
        #expect(written.count == (writer.name.hasPrefix("init") ? 2 : 1), "\(written.keys.sorted())")
        if let replaces = writer.replaces { #expect(written[replaces] != Data("the file as it was\n".utf8)) }
    }

    /// Where the file system cannot make a file without a name (some network file systems), the
    /// file is written under `NAME.creating-PID-…`: removed on an error, and, when a kill left it,
    /// by the next writer of NAME.
    @Test func withoutUnnamedFilesATemporaryNameIsCleanedUp() throws {
        let sandbox = try Sandbox()
        let out = sandbox.folder + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        let noUnnamed = "fail=openat@2=0x490001:EOPNOTSUPP"
        let failed = sandbox.run(
            [noUnnamed, "fail=fsync:EIO", Sandbox.binary, "backup", out + "/b.db"], timeout: 60, executable: Sandbox.injectFault)
        #expect(failed.status == 74 && failed.stderr.contains("cannot write"), "\(failed.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).isEmpty)
        let killed = sandbox.run(
            [noUnnamed, "fail=link:KILL", "fail=linkat:KILL", Sandbox.binary, "backup", out + "/b.db"], timeout: 60,
            executable: Sandbox.injectFault)
        #expect(killed.signal == SIGSYS, "\(killed.status) \(killed.stderr)")
        let left = try FileManager.default.contentsOfDirectory(atPath: out)
        #expect(left.count == 1 && left[0].hasPrefix("b.db.creating-"), "\(left)")
        let next = sandbox.run([noUnnamed, Sandbox.binary, "backup", out + "/b.db"], timeout: 60, executable: Sandbox.injectFault)
        #expect(next.status == 0, "\(next.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out) == ["b.db"])
    }

    /// A rekey killed after it changed the keychain but before its new key file took the old one's
    /// name: the new key is in NAME.new, and the next command that fails with the old key says so;
    /// the move it names, made as printed, opens the keychain again.
    @Test func aRekeyKilledBeforeItsRenameLeavesTheNewKeyAndSaysWhere() throws {
        let sandbox = try Sandbox()
        try sandbox.fill(count: 3, group: "SKMME9E2Y8.com.example.app")
        let killed = sandbox.run(
            [
                "fail=rename:KILL", "fail=renameat:KILL", "fail=renameat2:KILL", Sandbox.binary, "rekey", "--generate-key-file",
                sandbox.keyFile, "--force",
            ],
            timeout: 60, executable: Sandbox.injectFault)
        #expect(killed.signal == SIGSYS, "\(killed.status) \(killed.stderr)")
        let stale = sandbox.run(["find", "-s", "svc-1", "-w", "--key-file", sandbox.keyFile], environment: ["KEYCHAINCTL_KEY_FILE": ""])
        #expect(stale.status == 51, "\(stale.stderr)")
        #expect(stale.stderr.contains("\(sandbox.keyFile).new exists: a rekey was interrupted"), "\(stale.stderr)")
        #expect(stale.stderr.contains("move it over \(sandbox.keyFile)"), "\(stale.stderr)")
        #expect(rename(sandbox.keyFile + ".new", sandbox.keyFile) == 0)
        let found = sandbox.run(["find", "-s", "svc-1", "-w", "--key-file", sandbox.keyFile], environment: ["KEYCHAINCTL_KEY_FILE": ""])
        #expect(found.status == 0 && found.stdout == "secret-1", "\(found.stderr)")
    }

    /// A rekey whose new key file is written and named (TARGET.new) but whose keychain cannot be
    /// rewritten (SQLite's writes fail): the keychain keeps its key, and no key file is left.
    @Test(arguments: [["fail=pwrite64:EIO"], ["fail=pwrite64:KILL"]])
    func aRekeyThatCannotRewriteTheKeychainLeavesNoKeyFile(fault: [String]) throws {
        let sandbox = try Sandbox()
        try sandbox.fill(count: 3, group: "SKMME9E2Y8.com.example.app")
        let out = sandbox.folder + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        let run = sandbox.run(
            fault + [Sandbox.binary, "rekey", "--generate-key-file", out + "/n.key"], profile: nil, timeout: 60,
            executable: Sandbox.injectFault)
        if fault[0].hasSuffix("KILL") {
            #expect(run.signal == SIGSYS, "\(run.status) \(run.stderr)")
            // Killed, it cannot remove its TARGET.new; the keychain still opens with the old key.
            #expect(try FileManager.default.contentsOfDirectory(atPath: out).allSatisfy { $0 == "n.key.new" })
        } else {
            #expect(run.status == 74 && run.signal == nil, "\(run.status) \(run.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: out).isEmpty)
        }
        let found = sandbox.run(["find", "-s", "svc-1", "-w"])
        #expect(found.status == 0 && found.stdout == "secret-1", "\(found.stderr)")
    }

    /// `export --append-to` (a CI job's $GITHUB_ENV, a log) that fails partway is cut back to what
    /// the file held: no half-written entry for the next step to read.
    @Test func aFailedAppendIsCutBack() throws {
        let sandbox = try Sandbox()
        try sandbox.fill(count: 400, group: "SKMME9E2Y8.com.example.app")
        let target = sandbox.folder + "/github_env"
        let earlier = Data("EARLIER=kept\n".utf8)
        try earlier.write(to: URL(fileURLWithPath: target))
        let run = sandbox.run(
            ["fsize=40000", Sandbox.binary, "export", "--with-secrets", "--format", "jsonl", "--append-to", target]
                + Self.app, profile: nil, timeout: 60, executable: Sandbox.injectFault)
        #expect(run.status == 74 && run.stderr.contains("cut back to what it held before"), "\(run.status) \(run.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == earlier)
        let control = sandbox.run(["export", "--with-secrets", "--format", "jsonl", "--append-to", target] + Self.app, profile: nil)
        #expect(control.status == 0, "\(control.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: target)).count > 40000)
    }
}
