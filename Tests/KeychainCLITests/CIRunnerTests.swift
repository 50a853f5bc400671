import Foundation
import KeychainTestSupport
import Testing

@testable import KeychainCLI

/// Where CI really runs the Action and the GitLab template: a runner that reuses one user (and one
/// keyring) for job after job, a container whose seccomp profile blocks the kernel keyring, and a
/// composite action whose runner leaves GITHUB_ACTION_REPOSITORY empty. Each job is a shell
/// script run as the runner runs it, against a `file://` release folder made by `Scripts/dist.sh`.
@Suite struct CIRunnerTests {
    static let root = Sandbox.packageRoot

    /// A sandbox with a release folder in `dist`.
    static func released() throws -> Sandbox {
        let sandbox = try Sandbox(initialize: false)
        try Fixtures.dist(sandbox, into: sandbox.folder + "/dist")
        return sandbox
    }

    /// A GitHub job: its own RUNNER_TEMP and GitHub files, each step a new bash reading them, as the
    /// runner starts steps. The Action's main step (ci/action/main.js with `inputs`, the action's
    /// input names) comes first, its output kept in `action.out` and `action.err` of the job's
    /// folder, then `steps`, then, unless the job dies first (`post` false), the Action's post step
    /// with what the main step saved in GITHUB_STATE, its output in `post.out`.
    static func githubJob(_ sandbox: Sandbox, name: String, inputs: [String: String], steps: [String], post: Bool = true) throws
        -> String
    {
        let job = sandbox.folder + "/" + name
        try FileManager.default.createDirectory(atPath: job, withIntermediateDirectories: true)
        var script = "mkdir -p '\(job)/tmp' && : > '\(job)/path' && : > '\(job)/env' && : > '\(job)/state'\n"
        let runner =
            "env -i PATH=/usr/bin:/bin HOME='\(job)' RUNNER_TEMP='\(job)/tmp' GITHUB_PATH='\(job)/path' GITHUB_ENV='\(job)/env' "
            + "GITHUB_ACTIONS=true"
        let action = inputs.merging(["version": VersionReport.number, "download-base": "file://" + sandbox.folder + "/dist"]) { $1 }
            .map { "'INPUT_\($0.key.uppercased())=\($0.value)'" }.sorted().joined(separator: " ")
        script +=
            "\(runner) GITHUB_STATE='\(job)/state' \(action) node '\(root)/ci/action/main.js' > '\(job)/action.out' 2> '\(job)/action.err' "
            + "|| echo \"\(name) action failed: $?\"\n"
        for (index, step) in steps.enumerated() {
            // A later step: the runner's variables plus what GITHUB_PATH and GITHUB_ENV gave.
            let file = job + "/step\(index).sh"
            try """
            export PATH="$(tac "$GITHUB_PATH" | tr '\\n' ':')$PATH"
            while IFS= read -r line; do export "$line"; done < "$GITHUB_ENV"
            \(step)
            """.write(toFile: file, atomically: true, encoding: .utf8)
            script += "\(runner) bash '\(file)'\n"
        }
        if post {
            // The runner gives the post step each saved NAME=VALUE as STATE_NAME.
            script += """
                state=(); while IFS= read -r line; do state+=("STATE_$line"); done < '\(job)/state'
                planted=(); while IFS= read -r line; do planted+=("$line"); done < '\(job)/env'
                \(runner) "${planted[@]}" "${state[@]}" node '\(root)/ci/action/post.js' > '\(job)/post.out' 2>&1 || echo "\(name) post failed: $?"

                """
        }
        return script + "rm -rf '\(job)/tmp'\n"
    }

    /// A GitLab job as a shell executor runs it: before_script and the job's `lines` in one bash,
    /// after_script in another, each with only the job's variables. `credential` gives the key as a
    /// masked variable, or, with `asFile`, as a variable of type File (the variable holds a path).
    static func gitlabJob(
        _ sandbox: Sandbox, project: String, id: Int, credential: Bool, asFile: Bool = false, lines: String, extra: [String] = []
    ) throws -> String {
        let before = try Fixtures.gitlabBlock("before_script")
        let after = try Fixtures.gitlabBlock("after_script")
        var variables = [
            "PATH=/usr/bin:/bin", "HOME='\(sandbox.folder)'", "CI_PROJECT_DIR='\(project)'", "CI_JOB_ID=\(id)", "GITLAB_CI=true",
            "KEYCHAINCTL_INSTALL_VERSION=\(VersionReport.number)", "KEYCHAINCTL_DOWNLOAD_BASE='file://\(sandbox.folder)/dist'",
        ]
        if credential, asFile {
            let file = sandbox.folder + "/variables-\(id)/KEYCHAINCTL_INPUT_KEY_FILE"
            try FileManager.default.createDirectory(atPath: sandbox.folder + "/variables-\(id)", withIntermediateDirectories: true)
            try Self.key.write(toFile: file, atomically: true, encoding: .utf8)
            variables.append("KEYCHAINCTL_INPUT_KEY_FILE='\(file)'")
        } else if credential {
            variables.append("KEYCHAINCTL_INPUT_KEY='\(Self.key)'")
        }
        let shell = "env -i \((variables + extra).joined(separator: " ")) bash -c"
        let quote = { (text: String) in "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        return "\(shell) \(quote("set -eo pipefail\n" + before + "\n" + lines))\n\(shell) \(quote(after))\n"
    }

    /// Runs `script` in one session keyring, which every job of the script shares, as the jobs of
    /// one runner service share its keyring; `mode` EPERM blocks the keyring instead.
    static func runner(_ sandbox: Sandbox, _ script: String, mode: String = "SESSION") -> Sandbox.Run {
        sandbox.run(
            mode.split(separator: " ").map(String.init) + ["/bin/bash", "-c", script], profile: nil,
            environment: ["KEYCHAINCTL_KEYCHAIN": "", "KEYCHAINCTL_KEY_FILE": ""],
            timeout: 180, executable: Sandbox.injectFault)
    }

    static let key = Data((0..<32).map { UInt8(truncatingIfNeeded: $0 &* 11 &+ 5) }).base64EncodedString()

    /// Two jobs in sequence on one runner user: the first provisions a keychain kept outside its
    /// RUNNER_TEMP and caches the key for 30 minutes, with no lock step of its own, as README shows;
    /// the Action's post step locks it when the job ends, so the second, with no credential, finds
    /// the keychain locked and the key gone. When the first job dies before its post step can run
    /// (the control), the second reads the first one's secret.
    @Test(.enabled(if: TestMachine.hasKeyring, "machine: keyring")) func aLaterJobOfTheSameUserReadsNothing() throws {
        let sandbox = try Self.released()
        let kept = sandbox.folder + "/kept.db"
        let provision = [
            "printf first-job-secret | keychainctl set deploy-token",
            "keychainctl unlock --status --format json > \"$HOME/status.json\"",
        ]
        func jobs(post: Bool) throws -> String {
            try? FileManager.default.removeItem(atPath: kept)
            let first = try Self.githubJob(
                sandbox, name: "job1", inputs: ["key": Self.key, "keychain": kept], steps: provision, post: post)
            let second = try Self.githubJob(
                sandbox, name: "job2", inputs: [:],
                steps: ["echo \"get: $(keychainctl get deploy-token --keychain '\(kept)' 2>/dev/null; echo \" $?\")\""])
            return first + second
        }
        let locked = Self.runner(sandbox, try jobs(post: true))
        #expect(locked.stdout == "get:  36\n", "\(locked.stdout) \(locked.stderr)")
        let posted = try String(contentsOfFile: sandbox.folder + "/job1/post.out", encoding: .utf8)
        #expect(posted == "locked \(kept): the key 'keychainctl unlock' cached is gone\n", "\(posted)")
        // A job with no credential has nothing to lock, and says so in true words.
        let second = try String(contentsOfFile: sandbox.folder + "/job2/post.out", encoding: .utf8)
        #expect(second.contains("nothing to lock") && !second.contains("warning"), "\(second)")
        let status = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: sandbox.folder + "/job1/status.json")))
                as? [String: Any])
        // Cached for the job's length by default: 30 minutes, 20 unused.
        let expires = try #require(
            ISO8601DateFormatter().date(from: (status["expires"] as? String ?? "").replacingOccurrences(of: ".000", with: "")))
        #expect(abs(expires.timeIntervalSinceNow - 1800) < 120, "\(status)")
        #expect(status["idle"] as? Int == 1200, "\(status)")
        let died = Self.runner(sandbox, try jobs(post: false))
        #expect(died.stdout == "get: first-job-secret 0\n", "the control: \(died.stdout) \(died.stderr)")
        _ = sandbox.run(["lock", "--keychain", kept], profile: nil)
    }

    /// README's GitHub Actions snippet, run as written: its `with:` inputs and `env:` blocks, the
    /// job's secrets given where it names them, and for "the job's steps" one that puts an `npm`
    /// on PATH which keeps what it was given. The token reaches npm, and the Action's log carries
    /// no advice meant for a keychain opened by hand.
    @Test(.enabled(if: TestMachine.hasKeyring, "machine: keyring")) func theReadmeSnippetRunsAsWritten() throws {
        let readme = try String(contentsOfFile: Self.root + "/README.md", encoding: .utf8)
        let block = try #require(
            readme.components(separatedBy: "```yaml\n").dropFirst().first { $0.contains("keychainctl@") }?
                .components(separatedBy: "```").first)
        let secrets = ["KEYCHAIN_PASSPHRASE": "SECRET correct horse battery", "NPM_TOKEN": "npm_SECRET_token"]
        func value(_ text: String) -> String {
            var text = text.trimmingCharacters(in: .whitespaces)
            for (name, secret) in secrets { text = text.replacingOccurrences(of: "${{ secrets.\(name) }}", with: secret) }
            return text
        }
        let fakeNpm = """
            mkdir -p "$RUNNER_TEMP/bin" && printf '#!/bin/sh\\nprintf %s "$NPM_TOKEN" > "$HOME/published"\\n' > "$RUNNER_TEMP/bin/npm"
            chmod +x "$RUNNER_TEMP/bin/npm" && echo "$RUNNER_TEMP/bin" >> "$GITHUB_PATH"
            """
        var inputs: [String: String] = [:]
        var steps: [(command: String, environment: [(String, String)])] = []
        var section = ""
        for line in block.split(separator: "\n").map(String.init) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("- uses:") {
                section = "uses"
            } else if trimmed.hasPrefix("- run:") {
                steps.append((String(trimmed.dropFirst("- run:".count)).trimmingCharacters(in: .whitespaces), []))
                section = "run"
            } else if trimmed == "with:" || trimmed == "env:" {
                section = trimmed
            } else if trimmed.hasPrefix("#") {
                steps.append((fakeNpm, []))
                section = ""
            } else if let colon = trimmed.firstIndex(of: ":") {
                let (name, given) = (String(trimmed[..<colon]), value(String(trimmed[trimmed.index(after: colon)...])))
                if section == "with:" {
                    inputs[name] = given
                } else if section == "env:" {
                    steps[steps.count - 1].environment.append((name, given))
                }
            }
        }
        #expect(inputs.keys.sorted() == ["passphrase"] && steps.count == 3, "\(inputs) \(steps)")
        let sandbox = try Self.released()
        let commands = steps.map { step in
            step.environment.map { "export \($0.0)='\($0.1)'\n" }.joined() + step.command
        }
        let run = Self.runner(sandbox, try Self.githubJob(sandbox, name: "job", inputs: inputs, steps: commands))
        #expect(!run.stdout.contains("failed"), "\(run.stdout) \(run.stderr)")
        let published = try? String(contentsOfFile: sandbox.folder + "/job/published", encoding: .utf8)
        #expect(published == secrets["NPM_TOKEN"], "npm got \(published ?? "nothing"): \(run.stdout) \(run.stderr)")
        let log =
            try String(contentsOfFile: sandbox.folder + "/job/action.out", encoding: .utf8)
            + String(contentsOfFile: sandbox.folder + "/job/action.err", encoding: .utf8)
        #expect(log.contains("created keychain") && !log.contains("rekey"), "\(log)")
    }

    /// The post step runs the binary the main step installed, by its path and only while it is
    /// the same file: a step's code that replaces it (or plants BASH_ENV or a PATH entry) gets
    /// nothing run by the post step, which fails saying so.
    @Test(.enabled(if: TestMachine.hasKeyring, "machine: keyring")) func thePostStepRunsOnlyTheBinaryItInstalled() throws {
        let sandbox = try Self.released()
        let marker = sandbox.folder + "/hooked"
        let hook = sandbox.folder + "/hook.sh"
        try "touch '\(marker)'\n".write(toFile: hook, atomically: true, encoding: .utf8)
        let planting = [
            "echo 'BASH_ENV=\(hook)' >> \"$GITHUB_ENV\"",
            "printf '#!/bin/sh\\ntouch \(marker)\\n' > \"$RUNNER_TEMP/keychainctl/bin/keychainctl\"",
        ]
        let run = Self.runner(sandbox, try Self.githubJob(sandbox, name: "job", inputs: ["key": Self.key], steps: planting))
        #expect(run.stdout.contains("job post failed: 1"), "\(run.stdout) \(run.stderr)")
        let posted = try String(contentsOfFile: sandbox.folder + "/job/post.out", encoding: .utf8)
        #expect(posted.contains("::error::keychainctl:") && posted.contains("is not the binary this job installed"), "\(posted)")
        #expect(!FileManager.default.fileExists(atPath: marker), "the planted code ran")
    }

    /// The review's N4: a step's code swaps the installed binary while the post step runs (a loop
    /// renaming a planted program and the real one into place, as a watcher would), and sets
    /// NODE_OPTIONS for the post step's node through $GITHUB_ENV. The post step runs the file it
    /// hashed or nothing: the planted program never runs, however the race falls (the earlier
    /// post step, hashing by path and running by path, lost it only sometimes, so that half has no
    /// steady control); the node option is named as an error, and the key is still locked. Its
    /// control: the planted option did run in node, before the post step could look.
    @Test(.enabled(if: TestMachine.hasKeyring, "machine: keyring"))
    func thePostStepRunsTheFileItHashedAndNamesPlantedNodeOptions() throws {
        let sandbox = try Self.released()
        let marker = sandbox.folder + "/swapped-in"
        let evil = sandbox.folder + "/evil.js"
        try "require('fs').writeFileSync('\(sandbox.folder)/node-option-ran', 'x');\n".write(
            toFile: evil, atomically: true, encoding: .utf8)
        let installed = "\"$RUNNER_TEMP/keychainctl/bin/keychainctl\""
        let swapper = [
            "cp \(installed) \"$RUNNER_TEMP/good\"; printf '#!/bin/sh\\ntouch \(marker)\\n' > \"$RUNNER_TEMP/evil\"; chmod +x \"$RUNNER_TEMP/evil\"",
            "( i=0; while [ $i -lt 4000 ] && [ -e \"$RUNNER_TEMP/good\" ]; do cp \"$RUNNER_TEMP/evil\" \"$RUNNER_TEMP/e.tmp\"; "
                + "mv \"$RUNNER_TEMP/e.tmp\" \(installed); cp \"$RUNNER_TEMP/good\" \"$RUNNER_TEMP/g.tmp\"; mv \"$RUNNER_TEMP/g.tmp\" \(installed); "
                + "i=$((i+1)); done ) > /dev/null 2>&1 &",
            "echo \"NODE_OPTIONS=--require \(evil)\" >> \"$GITHUB_ENV\"",
        ].joined(separator: "\n")
        let run = Self.runner(sandbox, try Self.githubJob(sandbox, name: "job", inputs: ["key": Self.key], steps: [swapper]))
        let posted = try String(contentsOfFile: sandbox.folder + "/job/post.out", encoding: .utf8)
        #expect(!FileManager.default.fileExists(atPath: marker), "the swapped-in program ran: \(posted)")
        #expect(posted.contains("::error::keychainctl: the post step runs with NODE_OPTIONS set"), "\(posted)")
        #expect(run.stdout.contains("job post failed: 1"), "\(run.stdout) \(run.stderr)")
        #expect(
            FileManager.default.fileExists(atPath: sandbox.folder + "/node-option-ran"), "the control: the planted option did run in node")
    }

    /// Two jobs of one runner user at the same time, one through the Action and one through the
    /// GitLab template, each with a keychain of its own; a third, with no credential, cleans up in
    /// between. Every job finishes green: no cleanup locks another job's keychain.
    @Test(.enabled(if: TestMachine.hasKeyring, "machine: keyring")) func concurrentJobsOfOneRunnerUserDoNotBreakEachOther() throws {
        let sandbox = try Self.released()
        let project = sandbox.folder + "/project"
        try FileManager.default.createDirectory(atPath: project, withIntermediateDirectories: true)
        let wait = "i=0; while [ ! -e '\(sandbox.folder)/cleaned' ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done"
        let github = try Self.githubJob(
            sandbox, name: "gh", inputs: ["key": Self.key],
            steps: ["printf gh-secret | keychainctl set token", "touch '\(sandbox.folder)/gh-ready'; \(wait)", "keychainctl get token"])
        let gitlab = try Self.gitlabJob(
            sandbox, project: project, id: 201, credential: true,
            lines: "printf gl-secret | keychainctl set token\ntouch '\(sandbox.folder)/gl-ready'\n\(wait)\nkeychainctl get token; echo")
        // The credential-less job runs its cleanup once both others have unlocked.
        let cleanup = try Self.gitlabJob(sandbox, project: project, id: 202, credential: false, lines: "true")
        let ready =
            "i=0; while { [ ! -e '\(sandbox.folder)/gh-ready' ] || [ ! -e '\(sandbox.folder)/gl-ready' ]; } && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done"
        let script = """
            ( \(github) ) > '\(sandbox.folder)/gh.out' 2>&1 &
            ( \(gitlab) ) > '\(sandbox.folder)/gl.out' 2>&1 &
            \(ready)
            ( \(cleanup) ) > '\(sandbox.folder)/cleanup.out' 2>&1
            touch '\(sandbox.folder)/cleaned'
            wait
            """
        let run = Self.runner(sandbox, script)
        #expect(run.status == 0, "\(run.stderr)")
        let gh = try String(contentsOfFile: sandbox.folder + "/gh.out", encoding: .utf8)
        let gl = try String(contentsOfFile: sandbox.folder + "/gl.out", encoding: .utf8)
        let cleaned = try String(contentsOfFile: sandbox.folder + "/cleanup.out", encoding: .utf8)
        #expect(gh.hasSuffix("gh-secret") && !gh.contains("failed"), "\(gh)")
        #expect(gl.contains("gl-secret\n") && !gl.contains("errSec"), "\(gl)")
        #expect(cleaned.contains("nothing to lock"), "\(cleaned)")
        // Neither job printed the user-keyring warning: the job's end locks, and they say so.
        #expect(!gh.contains("warning") && !gl.contains("warning"), "\(gh)\n\(gl)")
    }

    /// The GitLab template on a shell executor, running its own header's example: before_script and
    /// the job's lines in one shell, after_script in another. The job's folder is its own, and
    /// after_script locks and removes it: the next job of the runner user finds neither the folder
    /// nor the key.
    @Test(.enabled(if: TestMachine.hasKeyring, "machine: keyring")) func theGitLabTemplateLeavesNothingForTheNextJob() throws {
        let sandbox = try Self.released()
        let project = sandbox.folder + "/project"
        try FileManager.default.createDirectory(atPath: project, withIntermediateDirectories: true)
        func job(_ id: Int, credential: Bool, lines: String, extra: [String] = []) throws -> String {
            try Self.gitlabJob(sandbox, project: project, id: id, credential: credential, lines: lines, extra: extra)
        }
        // The first job is the template's own example, from its header, with DEPLOY_TOKEN and
        // OTHER_SECRET masked variables and a deploy.sh that says what it got.
        let template = try String(contentsOfFile: Self.root + "/ci/gitlab/keychainctl.yml", encoding: .utf8)
        let example = template.components(separatedBy: "\n").filter { $0.hasPrefix("#       - ") }.map { String($0.dropFirst(10)) }
        #expect(example.count == 2, "\(example)")
        try "#!/bin/sh\necho \"deployed with $DEPLOY_TOKEN; another variable of the job: ${OTHER_SECRET:-none}\"\n".write(
            toFile: project + "/deploy.sh", atomically: true, encoding: .utf8)
        chmod(project + "/deploy.sh", 0o755)
        let first = try job(
            101, credential: true,
            lines: "cd \"$CI_PROJECT_DIR\"\n" + example.joined(separator: "\n") + "\necho \"$KEYCHAINCTL_KEYCHAIN\" > \"$HOME/job101\"",
            extra: ["DEPLOY_TOKEN=gitlab-secret", "OTHER_SECRET=other-secret"])
        let second = try job(
            102, credential: false,
            lines: "ls -a \"$CI_PROJECT_DIR\"; keychainctl get ci DEPLOY_TOKEN --keychain \"$(cat \"$HOME/job101\")\" || echo \"get=$?\"")
        let run = Self.runner(sandbox, first + second)
        let lines = run.stdout.components(separatedBy: "\n")
        // The command got the secret it names, masked, and nothing else of the job's (--pristine).
        #expect(
            lines.contains("deployed with [keychainctl:DEPLOY_TOKEN]; another variable of the job: none"), "\(run.stdout) \(run.stderr)")
        #expect(!run.stdout.contains("gitlab-secret"), "\(run.stdout)")
        #expect(!lines.contains(".keychainctl-job-101"), "after_script removed the first job's folder: \(run.stdout)")
        // The keychain went with the folder: 53, no keychain there.
        #expect(lines.contains("get=53"), "\(run.stdout)")
        #expect(!run.stdout.contains(Self.key) && !run.stderr.contains(Self.key), "the key is printed nowhere")
    }

    /// A job whose container blocks the kernel keyring (Docker's default seccomp profile): the
    /// installer says so once and writes the key to a file of the job's folder, which the job's
    /// keychainctl calls read. A command under exec, given only NPM_TOKEN, cannot read it where the
    /// container lets exec make a namespace; where it does not (NONAMESPACE, as Docker's default
    /// profile without CAP_SYS_ADMIN), it can, and exec says so. Under `exec --lock` the file is
    /// gone before the command starts, and a later line of the job finds the keychain locked (the
    /// review's N3: the key stayed on a descriptor of the job's shell). The control: the same
    /// search from the job's own shell finds the key. The Action keeps the file in RUNNER_TEMP and
    /// its post step removes it.
    @Test(.enabled(if: TestMachine.hasOwnView, "machine: own-view"), arguments: [true, false])
    func whereTheKeyringIsBlockedTheCommandFindsNoKey(namespaces: Bool) throws {
        let sandbox = try Self.released()
        let project = sandbox.folder + "/project"
        try FileManager.default.createDirectory(atPath: project, withIntermediateDirectories: true)
        let search = """
            for f in "$CI_PROJECT_DIR"/.keychainctl-job-*/keychain.key /tmp/tmp.*/keychain.key /proc/[0-9]*/fd/[0-9]*; do
              case "$f" in /proc/*) case "$(readlink "$f" 2>/dev/null)" in *keychain.key*) ;; *) continue ;; esac ;; esac
              [ -r "$f" ] || continue
              KEYCHAINCTL_KEY_FILE="$f" keychainctl get ci DEPLOY_KEY --keychain "$CI_PROJECT_DIR/.keychainctl-job-7/keychain.db" 2>/dev/null \\
                && echo " <- $1 read it through $f"
            done
            echo "$1 searched"

            """
        try search.write(toFile: project + "/search.sh", atomically: true, encoding: .utf8)
        let lines = """
            keychainctl import --from-env NPM_TOKEN,DEPLOY_KEY --service ci
            keychainctl get ci DEPLOY_KEY; echo
            keychainctl exec --pristine --keep PATH,HOME,CI_PROJECT_DIR --env NPM_TOKEN=service=ci,account=NPM_TOKEN -- sh "$CI_PROJECT_DIR/search.sh" exec
            sh "$CI_PROJECT_DIR/search.sh" shell
            keychainctl exec --lock --pristine --keep PATH,HOME,CI_PROJECT_DIR --env NPM_TOKEN=service=ci,account=NPM_TOKEN -- sh "$CI_PROJECT_DIR/search.sh" locked
            keychainctl get ci DEPLOY_KEY 2> /dev/null || echo "a later line: locked"
            """
        let gitlab =
            try Self.gitlabJob(
                sandbox, project: project, id: 7, credential: true, asFile: true, lines: lines,
                extra: ["NPM_TOKEN=npm-value", "DEPLOY_KEY=deploy-value"]) + "ls -a '\(project)'\n"
        let run = Self.runner(sandbox, gitlab, mode: namespaces ? "EPERM" : "EPERM NONAMESPACE")
        #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
        #expect(run.stdout.contains("\ndeploy-value\n"), "the job's own calls read the key: \(run.stdout) \(run.stderr)")
        #expect(run.stdout.contains("exec searched\n") && run.stdout.contains("exec read it") == !namespaces, "\(run.stdout)")
        #expect(run.stderr.contains("CMD can read the key file") == !namespaces, "\(run.stderr)")
        #expect(run.stdout.contains("deploy-value <- shell read it through "), "the control: \(run.stdout)")
        #expect(run.stdout.contains("locked searched\n") && !run.stdout.contains("locked read it"), "\(run.stdout)")
        #expect(run.stderr.contains("removed the key file"), "\(run.stderr)")
        #expect(run.stdout.contains("a later line: locked\n"), "\(run.stdout)")
        #expect(!run.stdout.components(separatedBy: "\n").contains(".keychainctl-job-7"), "after_script removed the folder: \(run.stdout)")
        #expect(run.stderr.components(separatedBy: "no kernel keyring here").count == 2, "said once: \(run.stderr)")
        #expect(!run.stdout.contains(Self.key) && !run.stderr.contains(Self.key))
        guard namespaces else { return }
        // The Action in such a container: later steps get KEYCHAINCTL_KEY_FILE through GITHUB_ENV,
        // and the post step removes the file.
        let github = try Self.githubJob(
            sandbox, name: "docker", inputs: ["passphrase": "container-passphrase"],
            steps: [
                "printf action-secret | keychainctl set token", "keychainctl get token",
                "echo \"$KEYCHAINCTL_KEY_FILE\" > \"$HOME/key-file\"",
            ])
        let action = Self.runner(
            sandbox, github.replacingOccurrences(of: "rm -rf '\(sandbox.folder)/docker/tmp'\n", with: ""), mode: "EPERM")
        #expect(action.stdout.hasSuffix("action-secret"), "\(action.stdout) \(action.stderr)")
        #expect(!action.stdout.contains("failed"), "\(action.stdout) \(action.stderr)")
        let keyFile = try String(contentsOfFile: sandbox.folder + "/docker/key-file", encoding: .utf8).trimmingCharacters(in: .newlines)
        #expect(keyFile.hasPrefix(sandbox.folder + "/docker/tmp/"), "\(keyFile)")
        #expect(!FileManager.default.fileExists(atPath: keyFile), "the post step removed the key file")
    }

    /// GitLab's "File" variables: the credential's variable holds a path; the installer reads the
    /// file and removes it, so the job shell's environment (which a root command can read, unset or
    /// not) holds a path to nothing. The control: a plain masked variable stays in that environment.
    @Test(.enabled(if: TestMachine.hasKeyring, "machine: keyring"), arguments: [true, false])
    func aCredentialFromAFileVariableLeavesOnlyAPath(asFile: Bool) throws {
        let sandbox = try Self.released()
        let project = sandbox.folder + "/project"
        try FileManager.default.createDirectory(atPath: project, withIntermediateDirectories: true)
        let lines = """
            printf file-secret | keychainctl set token
            keychainctl get token; echo
            tr '\\0' '\\n' < /proc/$$/environ | grep '^KEYCHAINCTL_INPUT_KEY' > "$CI_PROJECT_DIR/environ" || true
            """
        let run = Self.runner(
            sandbox, try Self.gitlabJob(sandbox, project: project, id: 9, credential: true, asFile: asFile, lines: lines))
        #expect(run.status == 0 && run.stdout.contains("file-secret\n"), "\(run.stdout) \(run.stderr)")
        let environ = try String(contentsOfFile: project + "/environ", encoding: .utf8)
        if asFile {
            let path = sandbox.folder + "/variables-9/KEYCHAINCTL_INPUT_KEY_FILE"
            #expect(environ == "KEYCHAINCTL_INPUT_KEY_FILE=\(path)\n", "\(environ)")
            #expect(!FileManager.default.fileExists(atPath: path), "the installer removed the file")
        } else {
            #expect(environ.contains(Self.key), "the control: the job shell's environment holds the key")
        }
    }

    /// The Action's default download folder comes from its own checkout when the runner leaves
    /// GITHUB_ACTION_REPOSITORY empty; with neither, the error names the download-base input. An
    /// empty `keychain` input keeps the job's KEYCHAINCTL_KEYCHAIN.
    @Test func theActionFindsItsRepositoryAndKeepsTheJobsKeychain() throws {
        let sandbox = try Self.released()
        var environment = Fixtures.runner(sandbox, [:])
        environment["KEYCHAINCTL_DOWNLOAD_BASE"] = nil
        environment["GITHUB_ACTION_REPOSITORY"] = ""
        environment["GITHUB_ACTION_PATH"] = "/home/runner/work/_actions/acme/keychainctl/v1"
        let fromPath = sandbox.run(["\(Self.root)/ci/install.sh"], profile: nil, environment: environment, executable: "/bin/bash")
        let expected = "https://github.com/acme/keychainctl/releases/download/v\(VersionReport.number)/keychainctl-"
        #expect(fromPath.status == 1 && fromPath.stderr.contains("cannot download \(expected)"), "\(fromPath.stderr)")
        environment["GITHUB_ACTION_PATH"] = "/somewhere/else"
        let nowhere = sandbox.run(["\(Self.root)/ci/install.sh"], profile: nil, environment: environment, executable: "/bin/bash")
        #expect(nowhere.status == 1 && nowhere.stderr.contains("'download-base' input"), "\(nowhere.stderr)")
        // The error's advice, followed: the input given, it installs.
        environment["KEYCHAINCTL_DOWNLOAD_BASE"] = "file://" + sandbox.folder + "/dist"
        environment["KEYCHAINCTL_KEYCHAIN"] = sandbox.folder + "/job.db"
        environment["KEYCHAINCTL_INPUT_KEYCHAIN"] = ""
        environment["KEYCHAINCTL_INPUT_KEY"] = Self.key
        environment["KEYCHAINCTL_KEY_FILE"] = ""
        let installed = sandbox.run(
            ["SESSION", "/bin/bash", "\(Self.root)/ci/install.sh"], profile: nil, environment: environment, executable: Sandbox.injectFault)
        #expect(installed.status == 0, "\(installed.stderr)")
        let written = try String(contentsOfFile: sandbox.folder + "/github_env", encoding: .utf8)
        #expect(written.contains("KEYCHAINCTL_KEYCHAIN=\(sandbox.folder)/job.db\n"), "\(written)")
        #expect(FileManager.default.fileExists(atPath: sandbox.folder + "/job.db"))
    }

    /// Checksums are compared as plain strings (a version with '+' verifies; a line that only a
    /// regular expression would match does not), and a pinned SHA-256 replaces SHA256SUMS.
    @Test func checksumsAreComparedAsStringsAndCanBePinned() throws {
        let sandbox = try Self.released()
        let dist = sandbox.folder + "/dist"
        let version = VersionReport.number
        // The release repacked as version 1.0.0+b1, as a build tag would name it.
        let plus = version + "+b1"
        let repack = """
            set -e
            cd '\(sandbox.folder)' && mkdir repack && cd repack
            tar -xzf '\(dist)/keychainctl-\(version)-linux-x86_64.tar.gz'
            mv 'keychainctl-\(version)-linux-x86_64' 'keychainctl-\(plus)-linux-x86_64'
            mkdir ../plus && tar -czf '../plus/keychainctl-\(plus)-linux-x86_64.tar.gz' 'keychainctl-\(plus)-linux-x86_64'
            cd ../plus && sha256sum 'keychainctl-\(plus)-linux-x86_64.tar.gz' > SHA256SUMS && sha256sum 'keychainctl-\(plus)-linux-x86_64.tar.gz' | cut -d ' ' -f 1
            """
        let packed = sandbox.run(["-c", repack], profile: nil, executable: "/bin/bash")
        #expect(packed.status == 0, "\(packed.stderr)")
        let digest = packed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        var environment = Fixtures.runner(
            sandbox, ["KEYCHAINCTL_INSTALL_VERSION": plus, "KEYCHAINCTL_DOWNLOAD_BASE": "file://" + sandbox.folder + "/plus"])
        let install = { (environment: [String: String]) in
            sandbox.run(["\(Self.root)/ci/install.sh"], profile: nil, environment: environment, executable: "/bin/bash")
        }
        let withPlus = install(environment)
        #expect(withPlus.status == 0, "\(withPlus.stderr)")
        // A SHA256SUMS naming another file that a pattern would have matched ('.' for '+').
        let name = "keychainctl-\(plus)-linux-x86_64.tar.gz"
        try "\(digest)  \(name.replacingOccurrences(of: "+", with: "."))\n".write(
            toFile: sandbox.folder + "/plus/SHA256SUMS", atomically: true, encoding: .utf8)
        let lookalike = install(environment)
        #expect(lookalike.status == 1 && lookalike.stderr.contains("SHA256SUMS lists no \(name)"), "\(lookalike.stderr)")
        // Pinned: SHA256SUMS is not read at all (it is gone), and the digest decides.
        try FileManager.default.removeItem(atPath: sandbox.folder + "/plus/SHA256SUMS")
        environment["KEYCHAINCTL_INSTALL_SHA256"] = digest
        #expect(install(environment).status == 0)
        environment["KEYCHAINCTL_INSTALL_SHA256"] = String(repeating: "0", count: 64)
        let wrong = install(environment)
        #expect(wrong.status == 1 && wrong.stderr.contains("does not match the pinned SHA-256"), "\(wrong.stderr)")
        environment["KEYCHAINCTL_INSTALL_SHA256"] = "not-a-digest"
        #expect(install(environment).stderr.contains("not 64 lowercase hexadecimal digits"))
    }

    /// Every ::add-mask:: line escapes what the runner unescapes (%25, %0D, %0A): the installer's,
    /// exec --ci-mask's and export --format github-env's.
    @Test func maskLinesAreEscapedForTheRunner() throws {
        let sandbox = try Self.released()
        let passphrase = "pass%25word\rwith-cr\nsecond%0Aline"
        let environment = Fixtures.runner(sandbox, ["KEYCHAINCTL_INPUT_PASSPHRASE": passphrase])
        let run = sandbox.run(
            ["SESSION", "/bin/bash", "\(Self.root)/ci/install.sh"], profile: nil, environment: environment, executable: Sandbox.injectFault)
        #expect(run.stdout.contains("::add-mask::pass%2525word%0Dwith-cr\n::add-mask::second%250Aline\n"), "\(run.stdout)")
        let keychain = try Sandbox()
        keychain.add(["-s", "db", "-a", "URL"], secret: "postgres://u:p%25ss@db/x\rtail")
        let exec = Fixtures.runAsApp(
            keychain, ["exec", "--ci-mask", "--env", "U=service=db,account=URL", "--", "true"], environment: ["GITHUB_ACTIONS": "true"])
        #expect(exec.stdout.contains("::add-mask::postgres://u:p%2525ss@db/x\n::add-mask::tail\n"), "\(exec.stdout)")
        let exported = keychain.run(
            ["export", "--format", "github-env", "--with-secrets", "--allow-names", "URL", "-s", "db"],
            environment: ["GITHUB_ACTIONS": "true"])
        #expect(exported.stderr.contains("::add-mask::postgres://u:p%2525ss@db/x\n"), "\(exported.stderr)")
    }
}
