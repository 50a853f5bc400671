import Foundation
import KeychainCore
import KeychainTestSupport
import Testing

/// The CI guide's GitHub Actions job, step by step: each step a separate process with only its own
/// environment, as a runner starts them. Only the provisioning step sees a credential or a secret.
@Suite struct CIJobTests {
    /// The job's commands, as docs/CI.md shows them (the test checks it still does).
    static let provision = [
        "keychainctl init",
        "keychainctl import --from-env NPM_TOKEN,DEPLOY_KEY --service ci --group SKMME9E2Y8.com.example.shared --profile profiles/app.plist",
        "keychainctl unlock --timeout 30m",
    ]
    /// The job's own script first; npm, which runs the package's scripts, last and with --lock.
    static let deploy =
        "keychainctl exec --profile profiles/share-extension.plist --file DEPLOY_KEY_FILE=service=ci,account=DEPLOY_KEY -- ./deploy.sh"
    static let publish =
        "keychainctl exec --lock --profile profiles/share-extension.plist --group SKMME9E2Y8.com.example.shared --env NPM_TOKEN=service=ci,account=NPM_TOKEN -- npm publish"

    /// Every job on docs/CI.md can be pasted into another repository: it installs keychainctl (the
    /// Action, or the GitLab template) and reads no file of keychainctl's own repository.
    @Test func everyJobOfTheGuideInstallsKeychainctlAndNeedsNothingOfThisRepository() throws {
        let guide = try String(contentsOfFile: Sandbox.packageRoot + "/docs/CI.md", encoding: .utf8)
        let blocks = guide.components(separatedBy: "```yaml\n").dropFirst().compactMap { $0.components(separatedBy: "```").first }
        let jobs = blocks.filter { $0.contains("jobs:") || $0.contains("script:") }
        #expect(jobs.count >= 4, "\(jobs.count) jobs")
        for job in jobs {
            // A GitHub job starts at a key indented by two spaces under `jobs:`.
            var githubJobs: [String] = []
            for line in job.components(separatedBy: "\n") {
                let isJobKey = line.hasPrefix("  ") && !line.hasPrefix("   ") && line.hasSuffix(":") && !line.contains(" -")
                if isJobKey || githubJobs.isEmpty { githubJobs.append("") }
                githubJobs[githubJobs.count - 1] += line + "\n"
            }
            githubJobs = githubJobs.filter { $0.contains("runs-on:") }
            for github in githubJobs { #expect(github.contains("uses: OWNER/keychainctl@"), "a GitHub job installs nothing:\n\(github)") }
            if job.contains("script:") { #expect(job.contains("extends: .keychainctl"), "a GitLab job installs nothing:\n\(job)") }
            for foreign in ["Fixtures/", "make install", "Scripts/", "Sources/"] {
                #expect(!job.contains(foreign), "a job reads \(foreign) of this repository:\n\(job)")
            }
        }
    }

    @Test func theGuideShowsTheseSteps() throws {
        let guide = try String(contentsOfFile: Sandbox.packageRoot + "/docs/CI.md", encoding: .utf8)
        for command in Self.provision + [Self.deploy, Self.publish] {
            #expect(guide.contains(command), "docs/CI.md lost: \(command)")
        }
    }

    @Test(.enabled(if: TestMachine.hasKeyring, "machine: keyring")) func stepsRunWithOnlyTheirOwnEnvironment() throws {
        let sandbox = try Sandbox(initialize: false)
        let bin = sandbox.folder + "/bin"
        let out = sandbox.folder + "/out"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: bin + "/keychainctl", withDestinationPath: Sandbox.binary)
        // Stand-ins for npm and the deploy script: they record what they were given.
        let npm =
            "#!/bin/sh\nprintf '%s' \"$NPM_TOKEN\" > '\(out)/npm-token'\nenv > '\(out)/npm-env'\necho \"publishing with $NPM_TOKEN\"\n"
        try npm.write(toFile: bin + "/npm", atomically: true, encoding: .utf8)
        let deploy = "#!/bin/sh\ncp \"$DEPLOY_KEY_FILE\" '\(out)/deploy-key'\necho \"$DEPLOY_KEY_FILE\" > '\(out)/deploy-path'\n"
        try deploy.write(toFile: sandbox.folder + "/deploy.sh", atomically: true, encoding: .utf8)
        for path in [bin + "/npm", sandbox.folder + "/deploy.sh"] { chmod(path, 0o755) }
        // The job's repository's own profiles (here the fixtures, under the name CI.md gives them).
        try FileManager.default.createSymbolicLink(atPath: sandbox.folder + "/profiles", withDestinationPath: Sandbox.profiles)

        let key = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        let job = ["KEYCHAINCTL_KEYCHAIN": sandbox.folder + "/ci.db", "PATH": bin + ":/usr/bin:/bin", "HOME": sandbox.folder]
        func step(_ commands: [String], _ environment: [String: String] = [:]) -> Sandbox.Run {
            let script = "cd '\(sandbox.folder)' && set -e\n" + commands.joined(separator: "\n")
            // Only the job's and the step's variables (env -i): nothing of the sandbox's own.
            let variables = job.merging(environment) { $1 }.map { "\($0.key)=\($0.value)" }
            return sandbox.run(["-i"] + variables + ["/bin/sh", "-c", script], profile: nil, executable: "/usr/bin/env")
        }
        let provisioned = step(
            Self.provision, ["KEYCHAINCTL_KEY": key, "NPM_TOKEN": "SECRET-npm-token", "DEPLOY_KEY": "SECRET-deploy\nkey\n"])
        #expect(provisioned.status == 0, "\(provisioned.stderr)")
        defer { _ = step(["keychainctl lock"]) }
        let deployed = step([Self.deploy])
        #expect(deployed.status == 0, "\(deployed.stderr)")
        #expect(try String(contentsOfFile: out + "/deploy-key", encoding: .utf8) == "SECRET-deploy\nkey\n")
        // The file was the command's descriptor, nowhere on disk.
        let path = try String(contentsOfFile: out + "/deploy-path", encoding: .utf8).trimmingCharacters(in: .newlines)
        #expect(path.hasPrefix("/dev/fd/"), "\(path)")
        // The extension's profile does not reach the app's own group: exit 30, npm never runs.
        let outside = step([
            Self.publish.replacingOccurrences(of: "--group SKMME9E2Y8.com.example.shared", with: "--group SKMME9E2Y8.com.example.app")
        ])
        #expect(outside.status == 30)
        let published = step([Self.publish])
        #expect(published.status == 0, "\(published.stderr)")
        #expect(published.stdout == "publishing with [keychainctl:NPM_TOKEN]\n", "\(published.stdout)")
        #expect(try String(contentsOfFile: out + "/npm-token", encoding: .utf8) == "SECRET-npm-token")
        let npmEnvironment = try String(contentsOfFile: out + "/npm-env", encoding: .utf8)
        #expect(!npmEnvironment.contains("KEYCHAINCTL_KEY=") && !npmEnvironment.contains("SECRET-deploy"))
        // --lock: whatever npm's scripts left behind finds the keychain locked.
        #expect(step([Self.deploy]).status == 36, "after exec --lock, a step without a credential is locked out")
    }
}
