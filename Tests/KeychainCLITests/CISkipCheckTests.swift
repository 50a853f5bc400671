import Foundation
import KeychainTestSupport
import Testing

/// `.ci/run` passes only a run that tested something, and skips this machine explains
/// (`.ci/check-skips`): here given test logs as Swift Testing writes them.
@Suite struct CISkipCheckTests {
    func check(_ log: String, requiring required: String = "") throws -> Sandbox.Run {
        let sandbox = try Sandbox(initialize: false)
        let path = sandbox.folder + "/log"
        try Data(log.utf8).write(to: URL(fileURLWithPath: path))
        return sandbox.run(
            [Sandbox.packageRoot + "/.ci/check-skips", path], profile: nil, environment: ["KEYCHAINCTL_CI_REQUIRE": required], timeout: 60,
            executable: "/bin/bash")
    }

    static let summary = "✔ Test run with 12 tests in 3 suites passed after 1.0 seconds.\n"

    @Test func aSkipThisMachineExplainsPasses() throws {
        let run = try check("➜ Test holdsTheLease() skipped: \"machine: lease-probe-run\"\n" + Self.summary)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("skipped: holdsTheLease(): lacks lease-probe-run: only in the run"), "\(run.stdout)")
    }

    /// The skip the audit feared: the keyring gate broke on a machine that has a keyring, so the
    /// security tests behind it were skipped. Here the machine has what the gate's words name,
    /// as the script's own probes find (root for the one, the tool for the other), and it fails.
    @Test func aSkipOnAMachineThatHasWhatTheTestNeedsFails() throws {
        let tools = ["zsh", "fish", "groff"].filter { FileManager.default.isExecutableFile(atPath: "/usr/bin/" + $0) }
        let word = try #require(TestMachine.isRoot ? "root" : tools.first, "neither root nor zsh, fish or groff (make check installs them)")
        let run = try check("➜ Test aTest() skipped: \"machine: \(word)\"\n" + Self.summary)
        #expect(run.status == 1, "\(run.stdout) \(run.stderr)")
        #expect(
            run.stderr.contains("aTest() was skipped, but this machine has what it needs (\(word)): its gate is wrong"), "\(run.stderr)")
    }

    /// A skip this machine explains still fails when the word it lacks is one the reference
    /// runner must have: a runner without the keyring would otherwise pass every test it gates.
    @Test func aSkipForARequiredConditionFails() throws {
        let line = "➜ Test holdsTheLease() skipped: \"machine: lease-probe-run\"\n"
        let run = try check(line + Self.summary, requiring: "keyring lease-probe-run")
        #expect(run.status == 1, "\(run.stdout) \(run.stderr)")
        #expect(run.stderr.contains("holdsTheLease() was skipped for lacking 'lease-probe-run', which the reference runner must have"))
        #expect(try check(line + Self.summary, requiring: "keyring").status == 0)
        let unknown = try check(Self.summary, requiring: "moon-phase")
        #expect(unknown.status == 1 && unknown.stderr.contains("KEYCHAINCTL_CI_REQUIRE names 'moon-phase'"), "\(unknown.stderr)")
    }

    /// `.ci/run`'s list of what the reference runner must have names only conditions of the table,
    /// among them the ones the security tests stand on.
    @Test func theReferenceRunnerRequiresTheSecurityConditions() throws {
        let run = try String(contentsOfFile: Sandbox.packageRoot + "/.ci/run", encoding: .utf8)
        let list = try #require(run.firstMatch(of: /KEYCHAINCTL_CI_REQUIRE-([a-z0-9 -]+)\}/)?.1)
        let words = Set(list.split(separator: " ").map(String.init))
        #expect(words.isSuperset(of: ["keyring", "root", "landlock", "x86-64-cc", "ptrace-control"]), "\(words)")
        let script = try String(contentsOfFile: Sandbox.packageRoot + "/.ci/check-skips", encoding: .utf8)
        for word in words { #expect(script.contains("\n\(word) | "), "\(word)") }
    }

    /// `lease-probe-run` is lacking on every machine, so a gate naming it is always explained: only
    /// the test that LeaseMisuseTests runs in a child process may use it.
    @Test func theAlwaysLackingConditionGatesOneSuiteAlone() throws {
        let users = try ["Tests/KeychainCLITests", "Tests/KeychainCoreTests", "Tests/SecurityTests"].flatMap { folder in
            try FileManager.default.contentsOfDirectory(atPath: Sandbox.packageRoot + "/" + folder).filter { name in
                guard name.hasSuffix(".swift") else { return false }
                let text = try String(contentsOfFile: Sandbox.packageRoot + "/" + folder + "/" + name, encoding: .utf8)
                return text.contains(#", "machine: "# + #"lease-probe-run""#)  // split, so this file is not a match
            }
        }
        #expect(users == ["LeaseMisuseTests.swift"])
    }

    @Test(arguments: [
        ("➜ Test aTest() skipped.\n", "aTest() was skipped without a machine condition"),
        ("➜ Test aTest() skipped: \"needs the kernel keyring\"\n", "aTest() was skipped without a machine condition"),
        ("➜ Test aTest() skipped: \"machine: moon-phase\"\n", "aTest() needs 'moon-phase', which is not in the table of conditions"),
    ])
    func aSkipWithoutAKnownConditionFails(line: String, message: String) throws {
        let run = try check(line + Self.summary)
        #expect(run.status == 1 && run.stderr.contains(message), "\(run.status) \(run.stderr)")
    }

    @Test(arguments: ["✔ Test run with 0 tests in 0 suites passed after 0.001 seconds.\n", "Build complete!\n"])
    func aRunOfNoTestFails(log: String) throws {
        let run = try check(log)
        #expect(run.status == 1 && run.stderr.contains("no test ran"), "\(run.status) \(run.stderr)")
    }

    /// Every word a gate in the suite uses is in the script's table, so only a new, unlisted
    /// condition can fail as "not in the table".
    @Test func everyGateNamesAConditionOfTheTable() throws {
        let script = try String(contentsOfFile: Sandbox.packageRoot + "/.ci/check-skips", encoding: .utf8)
        let sources = try ["Tests/KeychainCLITests", "Tests/KeychainCoreTests", "Tests/SecurityTests"].map {
            try DocumentationTests.joinedFiles(in: $0)
        }
        var words = Set<String>()
        for text in sources {
            let pattern = try NSRegularExpression(pattern: "\\.enabled\\(if: [^\\n]*\"machine: ([a-z0-9 -]+)\"")
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                guard let range = Range(match.range(at: 1), in: text) else { continue }
                words.formUnion(text[range].split(separator: " ").map(String.init))
            }
        }
        #expect(words.count >= 8, "\(words)")
        for word in words { #expect(script.contains("\n\(word) | "), "\(word) is not in .ci/check-skips") }
        let gates = sources.map { $0.components(separatedBy: ".enabled(if:").dropFirst() }.joined()
        for gate in gates { #expect(gate.prefix(200).contains("\"machine: "), "a gate without a machine condition: \(gate.prefix(120))") }
    }
}
