import Foundation
import KeychainTestSupport
import Testing

/// docs/CI.md's job with git's and Docker's helpers, as written there, through the Action on a
/// runner that reuses its user: one step logs in to a registry and stores a git token, the next
/// clones a private repository and reads an image's manifest through the helpers, and when the job
/// is over nothing is left: no Docker or git file in the home folder, no token in any file, the key
/// locked. The git server and the registry are the test's own, on 127.0.0.1.
@Suite struct CIHelperJobTests {
    /// A GitHub job of one YAML block: its `env:`, the Action's `with:` and each later step's
    /// `env:` and `run:` (one line, or a `|` block).
    struct Job {
        var environment: [(String, String)] = []
        var inputs: [String: String] = [:]
        var steps: [(environment: [(String, String)], run: String)] = []

        init(_ block: String) {
            var section = ""
            var inBlock = false
            for line in block.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
                let indent = line.prefix { $0 == " " }.count
                var trimmed = line.trimmingCharacters(in: .whitespaces)
                if inBlock, indent >= 10 {
                    steps[steps.count - 1].run += line.dropFirst(10) + "\n"
                    continue
                }
                inBlock = false
                if let comment = trimmed.range(of: "  # ") ?? (trimmed.hasPrefix("#") ? trimmed.range(of: "#") : nil) {
                    trimmed = String(trimmed[..<comment.lowerBound]).trimmingCharacters(in: .whitespaces)
                }
                if trimmed.isEmpty { continue }
                if trimmed.hasPrefix("- uses:") {
                    section = "uses"
                } else if trimmed.hasPrefix("- name:") {
                    steps.append(([], ""))
                    section = "step"
                } else if trimmed == "with:" || trimmed == "env:" {
                    section = indent == 4 ? "job env" : trimmed
                } else if trimmed == "run: |" {
                    inBlock = true
                } else if trimmed.hasPrefix("run: ") {
                    steps[steps.count - 1].run = String(trimmed.dropFirst("run: ".count)) + "\n"
                } else if let colon = trimmed.range(of: ": ") {
                    let (name, value) = (String(trimmed[..<colon.lowerBound]), String(trimmed[colon.upperBound...]))
                    switch section {
                    case "job env": environment.append((name, value))
                    case "with:": inputs[name] = value
                    case "env:": steps[steps.count - 1].environment.append((name, value))
                    default: break
                    }
                }
            }
        }
    }

    static let secrets = [
        "KEYCHAIN_KEY": CIRunnerTests.key, "REGISTRY_TOKEN": "SECRET-registry-token", "GIT_TOKEN": "SECRET-git-token",
    ]

    @Test(
        .enabled(if: TestMachine.hasKeyring, "machine: keyring"),
        .enabled(if: DockerCredentialHelperTests.docker != nil, "machine: docker-client"))
    func theGuidesJobClonesAndReadsAnImageAndLeavesNothing() throws {
        let guide = try String(contentsOfFile: Sandbox.packageRoot + "/docs/CI.md", encoding: .utf8)
        let blocks = guide.components(separatedBy: "```yaml\n").dropFirst().compactMap { $0.components(separatedBy: "```").first }
        let block = try #require(blocks.first { $0.contains("docker login") })
        let job = Job(block)
        #expect(job.environment.map(\.0) == ["DOCKER_CONFIG", "GIT_CONFIG_GLOBAL"] && job.steps.count == 2, "\(job)")
        #expect(job.inputs.keys.sorted() == ["key"])

        let sandbox = try CIRunnerTests.released()
        // The private repository, and the servers in front of it and of the image.
        let made = sandbox.run(
            [
                "-c",
                """
                set -e; cd "$0"; git init -q --bare srv/team/private.git; git init -q work; cd work
                echo private > README; git add README; git -c user.email=a@b -c user.name=a commit -q -m one
                git push -q ../srv/team/private.git HEAD:refs/heads/main
                git -C ../srv/team/private.git symbolic-ref HEAD refs/heads/main; git -C ../srv/team/private.git update-server-info
                """, sandbox.folder,
            ], profile: nil, executable: "/bin/sh")
        #expect(made.status == 0, "\(made.stderr)")
        let git = try LocalServer.git(root: sandbox.folder + "/srv", credentials: "ci:" + Self.secrets["GIT_TOKEN"]!, in: sandbox)
        defer { git.stop() }
        let registry = try LocalServer.registry(credentials: "ci:" + Self.secrets["REGISTRY_TOKEN"]!, in: sandbox)
        defer { registry.stop() }

        func resolved(_ text: String) -> String {
            var text = text.replacingOccurrences(of: "${{ runner.temp }}", with: "$RUNNER_TEMP")
            for (name, value) in Self.secrets { text = text.replacingOccurrences(of: "${{ secrets.\(name) }}", with: value) }
            return text.replacingOccurrences(of: "https://git.example.com", with: "http://127.0.0.1:" + git.port)
                .replacingOccurrences(of: "registry.example.com", with: "127.0.0.1:" + registry.port)
        }
        let docker = URL(fileURLWithPath: DockerCredentialHelperTests.docker ?? "/").deletingLastPathComponent().path
        let steps = job.steps.map { step in
            // The runner's workspace is the job's home here; docker is where this machine has it.
            "cd \"$HOME\" && set -e && export PATH=\"$PATH:\(docker)\" GIT_TERMINAL_PROMPT=0\n"
                + (job.environment + step.environment).map { "export \($0.0)=\"\(resolved($0.1))\"\n" }.joined()
                + resolved(step.run)
        }
        let inputs = job.inputs.mapValues(resolved)
        let run = CIRunnerTests.runner(sandbox, try CIRunnerTests.githubJob(sandbox, name: "job", inputs: inputs, steps: steps))
        #expect(!run.stdout.contains("failed"), "\(run.stdout) \(run.stderr)")
        let home = sandbox.folder + "/job"
        #expect((try? String(contentsOfFile: home + "/private/README", encoding: .utf8)) == "private\n", "\(run.stderr)")
        #expect(run.stdout.contains("\"schemaVersion\": 2"), "\(run.stdout) \(run.stderr)")
        #expect(run.stdout.contains("Login Succeeded"), "\(run.stdout)")
        let post = try String(contentsOfFile: home + "/post.out", encoding: .utf8)
        #expect(post.contains("locked "), "\(post)")
        // Nothing of Docker's or git's in the home folder, and no token in any file left behind.
        for file in [".docker", ".gitconfig", ".git-credentials", ".config/git"] {
            #expect(!FileManager.default.fileExists(atPath: home + "/" + file), "\(file) left in the home folder")
        }
        #expect(!FileManager.default.fileExists(atPath: home + "/tmp"), "the runner empties runner.temp")
        let left = FileManager.default.enumerator(atPath: home)?.compactMap { $0 as? String } ?? []
        // (stepN.sh are this test's stand-in for the runner, which holds the step's variables.)
        for file in left where !(file.hasPrefix("step") && file.hasSuffix(".sh")) {
            guard let bytes = FileManager.default.contents(atPath: home + "/" + file) else { continue }
            for (name, token) in Self.secrets where name != "KEYCHAIN_KEY" {
                for form in [token, Data(("ci:" + token).utf8).base64EncodedString()] {
                    #expect(bytes.range(of: Data(form.utf8)) == nil, "\(file) holds \(name)")
                }
            }
        }
        #expect(left.contains("private/README") && left.count > 5, "the scan saw the job's files: \(left)")
    }
}
