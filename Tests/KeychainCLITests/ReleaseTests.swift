import CommandLineKit
import Foundation
import KeychainTestSupport
import Testing

@testable import KeychainCLI

/// What a release hands out: `--version`, the files `Scripts/dist.sh` packs (the tarball, the .deb,
/// SHA256SUMS, the same bytes on every run), and the GitHub Action and GitLab template that install
/// from them, run here against a local download folder with no network.
@Suite struct ReleaseTests {
    static let root = Sandbox.packageRoot

    @Test func versionNamesTheCommitAndTheLibrariesInside() throws {
        let sandbox = try Sandbox(initialize: false)
        let text = sandbox.run(["--version"], profile: nil)
        #expect(text.status == 0)
        let lines = text.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2 && lines[0].hasPrefix("keychainctl \(VersionReport.number) (commit "), "\(text.stdout)")
        for library in ["SQLite 3.", "libsodium 1.", "OpenSSL 3.", "zlib 1."] {
            #expect(lines.last?.contains(library) == true, "\(library)")
        }
        let json = try #require(try sandbox.run(["--version", "--format", "json"], profile: nil).json() as? [String: String])
        #expect(Set(json.keys) == ["version", "commit", "sqlite", "libsodium", "openssl", "zlib"])
        #expect(json["version"] == VersionReport.number)
        #expect(sandbox.run(["--version", "--verbose"], profile: nil).status == 64)
    }

    /// Two runs give the same bytes (one of this test's own, and the one the other tests share);
    /// the checksums check; the archives hold what README says.
    @Test func distIsCompleteAndTheSameEveryTime() throws {
        let sandbox = try Sandbox(initialize: false)
        try Fixtures.dist(sandbox, into: sandbox.folder + "/a", fresh: true)
        try Fixtures.dist(sandbox, into: sandbox.folder + "/b")
        let files = try FileManager.default.contentsOfDirectory(atPath: sandbox.folder + "/a").sorted()
        let tarball = "keychainctl-\(VersionReport.number)-linux-x86_64.tar.gz"
        let deb = "keychainctl_\(VersionReport.number)_amd64.deb"
        #expect(files == ["SHA256SUMS", tarball, deb].sorted())
        for file in files {
            let first = FileManager.default.contents(atPath: sandbox.folder + "/a/" + file)
            #expect(first != nil && first == FileManager.default.contents(atPath: sandbox.folder + "/b/" + file), "\(file) differs")
        }
        let check = sandbox.run(["-c", "cd '\(sandbox.folder)/a' && sha256sum -c SHA256SUMS"], profile: nil, executable: "/bin/sh")
        #expect(check.status == 0, "\(check.stdout) \(check.stderr)")
        let listing = sandbox.run(["-tzf", sandbox.folder + "/a/" + tarball], profile: nil, executable: "/bin/tar")
        let top = "keychainctl-\(VersionReport.number)-linux-x86_64/"
        for entry in [
            "keychainctl", "keychainctl.1", "README.md", "LICENSE", "completions/keychainctl.bash", "completions/_keychainctl",
            "completions/keychainctl.fish", "git-credential-keychainctl", "docker-credential-keychainctl",
        ] {
            #expect(listing.stdout.contains(top + entry + "\n"), "\(entry)")
        }
        // The helpers are links to the binary beside them, in both archives (man pages too).
        let verbose = sandbox.run(["-tvzf", sandbox.folder + "/a/" + tarball], profile: nil, executable: "/bin/tar")
        for helper in ["git-credential-keychainctl", "docker-credential-keychainctl"] {
            #expect(verbose.stdout.contains(top + helper + " -> keychainctl\n"), "\(verbose.stdout)")
        }
        let contents = sandbox.run(["-c", sandbox.folder + "/a/" + deb], profile: nil, executable: "/usr/bin/dpkg-deb")
        for path in [
            "./usr/bin/keychainctl", "./usr/share/man/man1/keychainctl.1.gz", "./usr/share/bash-completion/completions/keychainctl",
            "./usr/share/zsh/vendor-completions/_keychainctl", "./usr/share/fish/vendor_completions.d/keychainctl.fish",
            "./usr/share/doc/keychainctl/copyright", "./usr/bin/git-credential-keychainctl -> keychainctl",
            "./usr/bin/docker-credential-keychainctl -> keychainctl",
            "./usr/share/man/man1/git-credential-keychainctl.1.gz -> keychainctl.1.gz",
            "./usr/share/man/man1/docker-credential-keychainctl.1.gz -> keychainctl.1.gz",
        ] {
            #expect(contents.stdout.contains(" " + path + "\n"), "\(path)")
        }
        #expect(!contents.stdout.contains(" 1000/") && contents.stdout.contains("root/root"), "numeric root owners")
        let depends = sandbox.run(["-f", sandbox.folder + "/a/" + deb, "Depends"], profile: nil, executable: "/usr/bin/dpkg-deb")
        #expect(depends.stdout.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "no dependencies: \(depends.stdout)")
        // The LICENSE carried has the notices of what the static binary contains.
        let license = try String(contentsOfFile: Self.root + "/LICENSE", encoding: .utf8)
        for notice in ["SQLite", "libsodium", "OpenSSL", "zlib"] { #expect(license.contains(notice), "\(notice)") }
    }

    /// Runs `script` in bash in a session keyring of its own (where `unlock` caches), without the
    /// sandbox's own keychain variables.
    static func inSession(_ sandbox: Sandbox, _ script: String, _ environment: [String: String]) -> Sandbox.Run {
        sandbox.run(
            ["SESSION", "/bin/bash", "-c", "unset KEYCHAINCTL_KEYCHAIN KEYCHAINCTL_KEY_FILE\n" + script], profile: nil,
            environment: environment, timeout: 120, executable: Sandbox.injectFault)
    }

    /// The action's main step runs ci/install.sh, given every input as the variable it reads, and
    /// its post step always runs; run as the runner runs the main step (node, INPUT_ variables), it
    /// checks the download, puts keychainctl on the PATH of later steps, creates and unlocks the
    /// keychain, and prints the passphrase only in GitHub's mask command.
    @Test(.enabled(if: TestMachine.hasKeyring, "machine: keyring")) func theActionInstallsChecksAndUnlocks() throws {
        let action = try String(contentsOfFile: Self.root + "/action.yml", encoding: .utf8)
        let main = try String(contentsOfFile: Self.root + "/ci/action/main.js", encoding: .utf8)
        #expect(action.contains("  using: node20\n  main: ci/action/main.js\n  post: ci/action/post.js\n  post-if: always()\n"))
        for (input, variable) in [
            ("version", "KEYCHAINCTL_INSTALL_VERSION"), ("download-base", "KEYCHAINCTL_DOWNLOAD_BASE"),
            ("passphrase", "KEYCHAINCTL_INPUT_PASSPHRASE"), ("key", "KEYCHAINCTL_INPUT_KEY"), ("keychain", "KEYCHAINCTL_INPUT_KEYCHAIN"),
            ("sha256", "KEYCHAINCTL_INSTALL_SHA256"), ("unlock-timeout", "KEYCHAINCTL_UNLOCK_TIMEOUT"),
            ("unlock-idle", "KEYCHAINCTL_UNLOCK_IDLE"),
        ] {
            #expect(action.contains("\n  \(input):\n") && main.contains("\(variable): input(\"\(input)\")"), "\(input)")
        }
        #expect(action.contains("default: \"\(VersionReport.number)\""), "the action installs this release by default")
        let sandbox = try Sandbox(initialize: false)
        try Fixtures.dist(sandbox, into: sandbox.folder + "/dist")
        let passphrase = "correct-horse-battery-staple"
        var environment = Fixtures.runner(sandbox, ["INPUT_PASSPHRASE": passphrase])
        for name in ["KEYCHAINCTL_INSTALL_VERSION", "KEYCHAINCTL_DOWNLOAD_BASE"] { environment[name] = nil }
        environment["INPUT_VERSION"] = VersionReport.number
        environment["INPUT_DOWNLOAD-BASE"] = "file://" + sandbox.folder + "/dist"
        // The step, then a later step: PATH and variables from GitHub's files, no credential at all.
        let script = """
            node "\(Self.root)/ci/action/main.js" > "$RUNNER_TEMP/step.out" 2> "$RUNNER_TEMP/step.err" || exit 90
            unset INPUT_PASSPHRASE
            export PATH="$(cat "$GITHUB_PATH"):/usr/bin:/bin"
            export "$(grep '^KEYCHAINCTL_KEYCHAIN=' "$GITHUB_ENV")"
            printf 'tok' | keychainctl set deploy-token || exit 91
            keychainctl get deploy-token
            """
        let run = Self.inSession(sandbox, script, environment)
        #expect(run.status == 0 && run.stdout == "tok", "\(run.status) \(run.stdout) \(run.stderr)")
        let out = try String(contentsOfFile: sandbox.folder + "/runner/step.out", encoding: .utf8)
        let err = try String(contentsOfFile: sandbox.folder + "/runner/step.err", encoding: .utf8)
        #expect(out.contains("::add-mask::\(passphrase)\n"))
        #expect(out.replacingOccurrences(of: "::add-mask::\(passphrase)", with: "").contains(passphrase) == false)
        #expect(!err.contains(passphrase))
        #expect(out.contains("keychainctl \(VersionReport.number)"))
        let path = try String(contentsOfFile: sandbox.folder + "/github_path", encoding: .utf8)
        #expect(path == sandbox.folder + "/runner/keychainctl/bin\n")
        #expect(FileManager.default.isExecutableFile(atPath: sandbox.folder + "/runner/keychainctl/bin/keychainctl"))
        for helper in ["git-credential-keychainctl", "docker-credential-keychainctl"] {
            let link = try? FileManager.default.destinationOfSymbolicLink(atPath: sandbox.folder + "/runner/keychainctl/bin/" + helper)
            #expect(link == "keychainctl", "\(helper) on the later steps' PATH")
        }
        #expect(!(try String(contentsOfFile: sandbox.folder + "/github_env", encoding: .utf8)).contains(passphrase))
    }

    /// `make install`'s layout (Scripts/install-prefix.sh, given the test binary for the release
    /// one): the binary, both helpers as links that answer by their names, the man page and the
    /// completions; installed twice over, the second time changes nothing.
    @Test func makeInstallLaysOutTheBinaryItsHelpersAndPages() throws {
        let sandbox = try Sandbox(initialize: false)
        let prefix = sandbox.folder + "/prefix"
        for _ in 0..<2 {
            let run = sandbox.run(
                [Self.root + "/Scripts/install-prefix.sh", Sandbox.binary, prefix], profile: nil, timeout: 60, executable: "/bin/bash")
            #expect(run.status == 0 && run.stdout.contains("git-credential-keychainctl"), "\(run.stderr)")
        }
        for path in [
            "bin/keychainctl", "share/man/man1/keychainctl.1", "share/bash-completion/completions/keychainctl",
            "share/zsh/site-functions/_keychainctl", "share/fish/vendor_completions.d/keychainctl.fish",
        ] {
            #expect(FileManager.default.fileExists(atPath: prefix + "/" + path), "\(path)")
        }
        for helper in ["git-credential-keychainctl", "docker-credential-keychainctl"] {
            #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: prefix + "/bin/" + helper)) == "keychainctl", "\(helper)")
        }
        let docker = sandbox.run(["version"], profile: nil, executable: prefix + "/bin/docker-credential-keychainctl")
        #expect(docker.stdout.hasPrefix("docker-credential-keychainctl (keychainctl "), "\(docker.stdout)")
        let page = try String(contentsOfFile: prefix + "/share/man/man1/keychainctl.1", encoding: .utf8)
        #expect(page.contains(".I git\\-credential\\-keychainctl\n") && page.contains(".I docker\\-credential\\-keychainctl\n"))
    }

    /// README's install steps, run as written against a release folder, with `sudo` dropped and
    /// /usr/local a folder of the test's: the binary, the man page and the completion land.
    @Test func readmesInstallStepsInstallTheBinaryTheManPageAndCompletions() throws {
        let readme = try String(contentsOfFile: Self.root + "/README.md", encoding: .utf8)
        let block = try #require(
            readme.components(separatedBy: "```sh\n").first { $0.hasPrefix("curl -fsSLO \"$BASE/") }?.components(separatedBy: "```").first)
        let sandbox = try Sandbox(initialize: false)
        try Fixtures.dist(sandbox, into: sandbox.folder + "/dist")
        let prefix = sandbox.folder + "/usr-local"
        let script =
            "set -e\ncd '\(sandbox.folder)'\nBASE='file://\(sandbox.folder)/dist'\n"
            + block.replacingOccurrences(of: "sudo ", with: "").replacingOccurrences(of: "/usr/local", with: prefix)
        let run = sandbox.run(["-c", script], profile: nil, executable: "/bin/bash")
        #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
        for path in ["/bin/keychainctl", "/share/man/man1/keychainctl.1", "/share/bash-completion/completions/keychainctl"] {
            #expect(FileManager.default.fileExists(atPath: prefix + path), "\(path)")
        }
        // The helpers, links beside the binary: git finds one by its name and it answers as git's.
        for helper in ["git-credential-keychainctl", "docker-credential-keychainctl"] {
            #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: prefix + "/bin/" + helper)) == "keychainctl", "\(helper)")
        }
        let asGit = sandbox.run(["--help"], profile: nil, executable: prefix + "/bin/git-credential-keychainctl")
        #expect(asGit.stdout.contains("git's credential helper"), "\(asGit.stdout)")
        #expect(FileManager.default.isExecutableFile(atPath: prefix + "/bin/keychainctl"))
    }

    /// A download that does not match SHA256SUMS installs nothing; neither does a missing one.
    @Test func aTamperedDownloadIsRefused() throws {
        let sandbox = try Sandbox(initialize: false)
        try Fixtures.dist(sandbox, into: sandbox.folder + "/dist")
        let tarball = sandbox.folder + "/dist/keychainctl-\(VersionReport.number)-linux-x86_64.tar.gz"
        var bytes = try #require(FileManager.default.contents(atPath: tarball))
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: tarball))
        let environment = Fixtures.runner(sandbox, [:])
        let run = sandbox.run([Self.root + "/ci/install.sh"], profile: nil, environment: environment, executable: "/bin/bash")
        #expect(run.status == 1 && run.signal == nil && run.stderr.contains("does not match SHA256SUMS"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.folder + "/runner/keychainctl/bin/keychainctl"))
        #expect((try String(contentsOfFile: sandbox.folder + "/github_path", encoding: .utf8)).isEmpty)
        let missing = sandbox.run(
            [Self.root + "/ci/install.sh"], profile: nil, environment: environment.merging(["KEYCHAINCTL_INSTALL_VERSION": "9.9.9"]) { $1 },
            executable: "/bin/bash")
        #expect(missing.status == 1 && missing.signal == nil && missing.stderr.contains("cannot download"), "\(missing.stderr)")
    }

    /// A mask covers one line: a credential of several lines is masked line by line, and no line
    /// of it is printed anywhere else. A path with a line break never reaches GitHub's files.
    @Test func everyLineOfACredentialIsMaskedAndPathsCannotAddVariables() throws {
        let sandbox = try Sandbox(initialize: false)
        try Fixtures.dist(sandbox, into: sandbox.folder + "/dist")
        let environment = Fixtures.runner(sandbox, ["KEYCHAINCTL_INPUT_PASSPHRASE": "first-line-secret\r\nsecond-line-secret"])
        let run = Self.inSession(sandbox, "bash \"\(Self.root)/ci/install.sh\"", environment)
        #expect(
            run.stdout.contains("::add-mask::first-line-secret\n") && run.stdout.contains("::add-mask::second-line-secret\n"),
            "\(run.stdout)")
        for line in ["first-line-secret", "second-line-secret"] {
            #expect(run.stdout.components(separatedBy: line).count == 2, "\(line) printed beside its mask")
            #expect(!run.stderr.contains(line))
        }
        let injected = Fixtures.runner(sandbox, ["KEYCHAINCTL_KEYCHAIN": sandbox.folder + "/k.db\nNODE_OPTIONS=--require=/tmp/x.js"])
        try Data().write(to: URL(fileURLWithPath: sandbox.folder + "/github_env"))
        let refused = sandbox.run([Self.root + "/ci/install.sh"], profile: nil, environment: injected, executable: "/bin/bash")
        #expect(refused.status == 1 && refused.signal == nil && refused.stderr.contains("line break"), "\(refused.stderr)")
        #expect((try String(contentsOfFile: sandbox.folder + "/github_env", encoding: .utf8)).isEmpty)
    }

    /// The GitLab template is generated from ci/install.sh, and its before_script, run as GitLab
    /// runs it (one shell with the job's script), leaves keychainctl on the PATH and the keychain
    /// unlocked for the job's own lines, with a key given as a masked variable.
    @Test(.enabled(if: TestMachine.hasKeyring, "machine: keyring")) func theGitLabTemplateInstallsIntoTheJobsShell() throws {
        let sandbox = try Sandbox(initialize: false)
        let generated = sandbox.run([Self.root + "/Scripts/gitlab-template.sh"], profile: nil, executable: "/bin/bash")
        let template = try String(contentsOfFile: Self.root + "/ci/gitlab/keychainctl.yml", encoding: .utf8)
        #expect(generated.status == 0 && generated.stdout == template, "ci/gitlab/keychainctl.yml is stale: run Scripts/gitlab-template.sh")
        let block = try Fixtures.gitlabBlock("before_script")
        try Fixtures.dist(sandbox, into: sandbox.folder + "/dist")
        let key = Data((0..<32).map { UInt8($0 &* 7 &+ 3) }).base64EncodedString()
        var environment = Fixtures.runner(sandbox, ["KEYCHAINCTL_INPUT_KEY": key, "CI_PROJECT_DIR": sandbox.folder])
        for name in ["GITHUB_PATH", "GITHUB_ENV", "GITHUB_ACTIONS", "RUNNER_TEMP"] { environment[name] = nil }
        environment["KEYCHAINCTL_INSTALL_DIR"] = sandbox.folder + "/job"
        let script =
            "set -eo pipefail\nexport PATH=/usr/bin:/bin\n" + block + "\n"
            + "[ -z \"${KEYCHAINCTL_INPUT_KEY:-}\" ] || exit 92\nprintf 'tok' | keychainctl set gitlab-token\nkeychainctl get gitlab-token\n"
        let run = Self.inSession(sandbox, script, environment)
        #expect(run.status == 0 && run.stdout.hasSuffix("tok"), "\(run.status) \(run.stdout) \(run.stderr)")
        #expect(!run.stdout.contains(key) && !run.stderr.contains(key), "the key is printed nowhere")
    }
}
