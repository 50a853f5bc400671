import Foundation
import KeychainCore
import KeychainTestSupport
import Testing

/// Runs the real `keychainctl` binary in a throwaway folder, as a user's shell would.
final class Sandbox {
    /// What one run of the binary did.
    struct Run {
        /// The exit status, or the number of the signal that ended it (then `signal` is that too).
        let status: Int32
        let stdoutData: Data
        let stderr: String
        /// The signal that killed it (SIGSYS: a seccomp rule of `inject-fault` fired); `nil` when it exited.
        var signal: Int32? = nil
        var stdout: String { String(decoding: stdoutData, as: UTF8.self) }
        /// stdout parsed as JSON.
        func json() throws -> Any { try JSONSerialization.jsonObject(with: stdoutData, options: [.fragmentsAllowed]) }
        /// stderr's JSON error object.
        func jsonError() throws -> [String: Any] {
            let object = try JSONSerialization.jsonObject(with: Data(stderr.utf8)) as? [String: Any]
            return object?["error"] as? [String: Any] ?? [:]
        }
    }

    /// The built binary: beside the test bundle, or KEYCHAINCTL_BIN.
    static let binary: String = {
        if let path = ProcessInfo.processInfo.environment["KEYCHAINCTL_BIN"] { return path }
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("keychainctl").path
        if FileManager.default.isExecutableFile(atPath: beside) { return beside }
        return PackagePaths.root + "/.build/debug/keychainctl"
    }()

    /// The `inject-fault` test helper, built beside the binary: runs a command in a session keyring
    /// of its own (`SESSION`) or with the keyring calls denied.
    static var injectFault: String {
        URL(fileURLWithPath: binary).deletingLastPathComponent().appendingPathComponent("inject-fault").path
    }

    /// Set once: writes to a closed pipe fail with EPIPE rather than raise SIGPIPE.
    static let ignoreBrokenPipe: Void = { signal(SIGPIPE, SIG_IGN) }()

    /// Fills the keychain with `count` items in `group` through KeychainCore.
    func fill(count: Int, group: String, accessibility: String? = nil, accessControl: String? = nil, profile: String? = "app.plist") throws
    {
        let text = try String(contentsOfFile: keyFile, encoding: .utf8)
        guard case .key(let key) = try KeychainCredential.key(base64: SecretBytes(copying: Array(text.utf8)), source: "test") else {
            return
        }
        let opened = try Keychain(path: self.keychain, credential: .key(key))
        let caller = Caller(
            try profile.map { try Profile.load(path: Sandbox.profiles + "/" + $0, teamID: nil, platform: nil, allowWildcard: false) }
                ?? BuiltInProfile.load(platform: nil))
        try opened.addAll(
            (0..<count).map { i in
                var request = ItemRequest(
                    words: [(Schema.service, "svc-\(i)"), (Schema.account, "acct-\(i)"), (Schema.accessGroup, group)]
                        + (accessibility.map { [(Schema.protection, $0)] } ?? []))
                request.accessControl = accessControl.map { AccessControlRequest(flags: $0) }
                return (request, SecretBytes(copying: Array("secret-\(i)".utf8)))
            }, caller: caller)
    }

    /// The package's folder.
    static let packageRoot = PackagePaths.root

    /// `Fixtures/Profiles`.
    static let profiles = packageRoot + "/Fixtures/Profiles"

    let folder: String
    var keychain: String { folder + "/data/keychain.db" }
    var keyFile: String { folder + "/key" }

    /// A folder, and unless `initialize` is false a keychain made with `init --generate-key-file`.
    init(initialize: Bool = true) throws {
        folder = NSTemporaryDirectory() + "keychainctl-e2e-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        if initialize {
            let made = run(["init", "--generate-key-file", keyFile], profile: nil)
            #expect(made.status == 0, "init failed: \(made.stderr)")
        }
    }

    deinit { try? FileManager.default.removeItem(atPath: folder) }

    /// The environment every run gets: this sandbox's keychain and key, nothing from the caller's.
    var baseEnvironment: [String: String] {
        ["KEYCHAINCTL_KEYCHAIN": keychain, "KEYCHAINCTL_KEY_FILE": keyFile, "HOME": folder, "PATH": "/usr/bin:/bin"]
    }

    /// Runs `keychainctl arguments` as `profile` (a fixture name), feeding `stdin` (else /dev/null).
    /// `beforeInput`, when given, is called with the live child's pid before `stdin` is written;
    /// `stdoutPath` sends stdout to that file (such as /dev/full) instead of a pipe; `stdinPath`
    /// reads stdin from that file (such as /dev/zero); `memoryLimitKB` caps the child's address
    /// space (`ulimit -v`), so a run that grows without bound fails instead of exhausting the machine;
    /// `executable` runs that program (a shell) with `arguments` instead of keychainctl; `inFolder`
    /// runs it in the sandbox's folder, so relative paths it is given land there, not in the package.
    @discardableResult
    func run(
        _ arguments: [String], profile: String? = "app.plist", stdin: Data? = nil, environment: [String: String] = [:],
        timeout: Double = 120, stdoutPath: String? = nil, stdinPath: String? = nil, memoryLimitKB: Int? = nil,
        executable: String? = nil, inFolder: Bool = false, beforeInput: ((Int32) -> Void)? = nil
    ) -> Run {
        let process = Process()
        if inFolder { process.currentDirectoryURL = URL(fileURLWithPath: folder) }
        let fullArguments = arguments + (profile.map { ["--profile", "\(Self.profiles)/\($0)"] } ?? [])
        if let executable {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = fullArguments
        } else if let memoryLimitKB {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "ulimit -v \(memoryLimitKB) && exec \"$0\" \"$@\"", Self.binary] + fullArguments
        } else {
            process.executableURL = URL(fileURLWithPath: Self.binary)
            process.arguments = fullArguments
        }
        process.environment = baseEnvironment.merging(environment) { $1 }
        let out = Pipe()
        let err = Pipe()
        let stdoutFile = stdoutPath.flatMap { FileHandle(forWritingAtPath: $0) }
        process.standardOutput = stdoutFile ?? out
        process.standardError = err
        let input = Pipe()
        process.standardInput = stdinPath.flatMap { FileHandle(forReadingAtPath: $0) } ?? (stdin == nil ? FileHandle.nullDevice : input)
        do { try process.run() } catch {
            Issue.record("cannot run \(Self.binary): \(error)")
            return Run(status: -1, stdoutData: Data(), stderr: "")
        }
        // No child may wait for ever: killed after `timeout` seconds, and the test fails for it,
        // whatever it then asserts (a refusal that never ends is not a refusal).
        let pid = process.processIdentifier
        let watchdogFired = NSLock()
        nonisolated(unsafe) var fired = false
        let watchdog = DispatchWorkItem {
            watchdogFired.withLock { fired = true }
            kill(pid, SIGKILL)
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        defer { watchdog.cancel() }
        beforeInput?(pid)
        if let stdin {
            // A child that exits without reading its input (a refused profile) must not take the
            // test process down with SIGPIPE: the write fails with EPIPE instead, and is ignored.
            _ = Self.ignoreBrokenPipe
            try? input.fileHandleForWriting.write(contentsOf: stdin)
            try? input.fileHandleForWriting.close()
        }
        // stderr is drained beside stdout, so a child filling one pipe never blocks on the other.
        nonisolated(unsafe) var errData = Data()
        let drained = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            errData = err.fileHandleForReading.readDataToEndOfFile()
            drained.signal()
        }
        if stdoutFile != nil { try? out.fileHandleForWriting.close() }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        drained.wait()
        process.waitUntilExit()
        watchdog.cancel()
        if watchdogFired.withLock({ fired }) {
            Issue.record(
                "\((executable ?? Self.binary).split(separator: "/").last ?? "") \(arguments.prefix(3)) was killed after \(timeout) s")
        }
        return Run(
            status: process.terminationStatus, stdoutData: outData, stderr: String(decoding: errData, as: UTF8.self),
            signal: process.terminationReason == .uncaughtSignal ? process.terminationStatus : nil)
    }

    /// Runs `script` in `/bin/sh` once per environment, all at once, each with $W (its worker
    /// number) and $KC (the binary) added; each is killed after five minutes. Their exit statuses.
    static func parallelShells(_ environments: [[String: String]], _ script: String) throws -> [Int32] {
        let processes = environments.enumerated().map { worker, environment -> Process in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
            process.arguments = ["-s", "KILL", "300", "/bin/sh", "-c", script]
            process.environment = environment.merging(["W": String(worker), "KC": binary]) { $1 }
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            return process
        }
        for process in processes { try process.run() }
        for process in processes { process.waitUntilExit() }
        return processes.map(\.terminationStatus)
    }

    /// Edits the keychain file as someone without its key would: Python `statements` run with
    /// `db`, a sqlite3 connection to the file, and are committed.
    @discardableResult
    func editKeychain(_ statements: String) -> Run {
        let script = "import sqlite3, sys\ndb = sqlite3.connect(sys.argv[1])\n" + statements + "\ndb.commit()\n"
        return run(["-c", script, keychain], profile: nil, executable: "/usr/bin/python3")
    }

    /// Adds a generic password of service `service` holding `secret`, protected by the
    /// application password `password` (given on a descriptor, as a user would).
    @discardableResult
    func addBehindApplicationPassword(service: String, secret: String, password: String) throws -> Run {
        let file = folder + "/\(service).secret"
        try Data(secret.utf8).write(to: URL(fileURLWithPath: file))
        return run(
            ["add", "-s", service, "--access-control", "application-password", "--data-file", file, "--application-password-fd", "0"],
            stdin: Data((password + "\n").utf8))
    }

    /// A PATH on which `keychainctl` is the binary under test (linked into the sandbox's `bin`),
    /// for running a printed command, or a script, as a user types it.
    func pathWithKeychainctl() throws -> String {
        let bin = folder + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        if (try? FileManager.default.destinationOfSymbolicLink(atPath: bin + "/keychainctl")) == nil {
            try FileManager.default.createSymbolicLink(atPath: bin + "/keychainctl", withDestinationPath: Sandbox.binary)
        }
        return bin + ":/usr/bin:/bin"
    }

    /// Adds a generic password with `secret` on stdin.
    @discardableResult
    func add(_ arguments: [String], secret: String = "s3cret", profile: String = "app.plist") -> Run {
        run(["add"] + arguments, profile: profile, stdin: Data(secret.utf8))
    }
}
