import Foundation
import Testing

/// Issue 7 through the real binary: careless and hostile input gets a documented exit status, no
/// crash, no hang, and never an echo of a secret.
@Suite struct HostileInputTests {
    /// A secret typed into a misspelled or misplaced option never reaches stderr or stdout, in text
    /// or JSON; the error names the option and suggests the one meant.
    @Test(
        arguments: [
            (["update", "-s", "svc", "--password=hunter2"], "--set-password"),
            (["update", "-s", "svc", "--pasword", "hunter2"], "--set-password"),
            (["add", "-s", "svc", "--pass=hunter2"], "--password"),
            (["add", "-s", "svc", "--strip-newline", "hunter2"], nil),
            (["find", "-s", "svc", "--", "hunter2"], nil),
            (["update", "-s", "svc", "--set-password"], nil),
        ] as [([String], String?)])
    func misplacedSecretsAreNeverEchoed(arguments: [String], suggestion: String?) throws {
        let sandbox = try Sandbox()
        for format in [[], ["--format", "json"]] {
            let run = sandbox.run(arguments + format)
            #expect(run.status == 64, "\(arguments): \(run.status) \(run.stderr)")
            #expect(!run.stderr.contains("hunter2") && !run.stdout.contains("hunter2"), "\(arguments) echoed the secret: \(run.stderr)")
            if let suggestion { #expect(run.stderr.contains("Did you mean '\(suggestion)'?"), "\(run.stderr)") }
        }
    }

    /// `-h` and `--help` are help only where an option may stand; as a value they are the value.
    /// `--` ends the options.
    @Test func helpIsRecognisedOnlyInOptionPositionAndDoubleDashEndsOptions() throws {
        let sandbox = try Sandbox()
        let added = sandbox.add(["-s", "svc", "-l", "-h", "-a", "--help"])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(!added.stdout.contains("OVERVIEW"))
        let found = sandbox.run(["find", "-s", "svc", "--format", "json"])
        let item = try found.json() as? [String: Any]
        #expect(item?["labl"] as? String == "-h")
        #expect(item?["acct"] as? String == "--help")
        // (The profile comes from the environment here: the sandbox would put --profile after `--`.)
        let profile = ["KEYCHAINCTL_PROFILE": Sandbox.profiles + "/app.plist"]
        #expect(sandbox.run(["find", "-s", "svc", "-w", "--"], profile: nil, environment: profile).stdout == "s3cret")
        let help = sandbox.run(["find", "-s", "svc", "--help"])
        #expect(help.status == 0 && help.stdout.contains("OVERVIEW"))
        let stray = sandbox.run(["find", "-s", "svc", "--", "-h"], profile: nil, environment: profile)
        #expect(stray.status == 64 && !stray.stdout.contains("OVERVIEW"))
    }

    /// A secret that cannot be written is a failure (74), never an empty success: a rotation
    /// script would otherwise delete the only copy.
    @Test func outputThatCannotBeWrittenIsExit74() throws {
        let sandbox = try Sandbox()
        sandbox.add(["-s", "svc"], secret: "only-copy")
        let full = sandbox.run(["find", "-s", "svc", "-w"], stdoutPath: "/dev/full")
        #expect(full.status == 74, "\(full.stderr)")
        #expect(full.stderr.contains("cannot write to standard output"))
        #expect(!full.stderr.contains("only-copy"))
        #expect(sandbox.run(["find", "-s", "svc", "--format", "json", "--return", "data"], stdoutPath: "/dev/full").status == 74)
        #expect(sandbox.run(["groups"], stdoutPath: "/dev/full").status == 74)
        // A failure keeps its own status: the write error does not hide it.
        #expect(sandbox.run(["find", "-s", "nothere"], stdoutPath: "/dev/full").status == 44)
        #expect(sandbox.run(["find", "-s", "svc", "-w"]).stdout == "only-copy")
    }
}
