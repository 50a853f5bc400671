import Foundation
import KeychainCore
import KeychainTestSupport
import Testing

@testable import KeychainCLI

/// What a command run by `exec` can reach besides what it was given, tried as the command would:
/// the key `unlock` cached, the passphrase descriptor, keychainctl's own variables, secrets in
/// forms the masker must know, variables named to run code, and files left behind by a signal.
@Suite struct ExecIsolationTests {
    /// A Python probe: KEYCTL_GET_KEYRING_ID of the session keyring; prints the id, or `errno N`.
    static let keyringProbe = """
        import ctypes, platform
        libc = ctypes.CDLL(None, use_errno=True)
        number = 219 if platform.machine() == "aarch64" else 250
        result = libc.syscall(number, 0, -3, 0)
        print("keyring", result if result >= 0 else "errno %d" % ctypes.get_errno())
        """

    /// The review's first finding: inside `exec`, `keychainctl find` read every item through the
    /// key `unlock` cached in the session. Now the command is in a new session keyring and its
    /// keyring calls are denied; with --allow-keyring they work, but the key is still not its own.
    @Test(.enabled(if: TestMachine.hasKeyring, "machine: keyring")) func theCommandCannotReachTheCachedKey() throws {
        let (sandbox, _, withPassphrase) = try Fixtures.passphraseKeychain()
        #expect(sandbox.run(["add", "-s", "other", "-a", "ci"], stdin: Data("OTHER-SECRET".utf8), environment: withPassphrase).status == 0)
        let script = """
            set -u
            "$0" unlock >/dev/null 2>&1 || exit 90
            unset KEYCHAINCTL_PASSPHRASE
            "$0" find -s other -a ci -w >/dev/null || exit 91
            "$0" exec --env T=service=api,account=ci -- sh -c '"$0" find -s other -a ci -w; echo "inner=$?"; grep "^Seccomp:" /proc/self/status; python3 -c "$1"' "$0" "$1"
            "$0" exec --allow-keyring --env T=service=api,account=ci -- sh -c '"$0" find -s other -a ci -w; echo "allowed=$?"; python3 -c "$1"' "$0" "$1"
            "$0" lock >/dev/null 2>&1
            """
        let run = sandbox.run(
            ["SESSION", "/bin/sh", "-c", script, Sandbox.binary, Self.keyringProbe], profile: nil,
            environment: withPassphrase.merging(["KEYCHAINCTL_PROFILE": Sandbox.profiles + "/app.plist"]) { $1 },
            executable: Sandbox.injectFault)
        #expect(run.status == 0, "\(run.status): \(run.stderr)")
        #expect(!run.stdout.contains("OTHER-SECRET"), "\(run.stdout)")
        #expect(run.stdout.contains("inner=36") && run.stdout.contains("allowed=36"), "\(run.stdout)")
        #expect(run.stdout.contains("Seccomp:\t2"), "\(run.stdout)")
        #expect(run.stdout.contains("keyring errno 1"), "denied: \(run.stdout)")
        #expect(
            run.stdout.components(separatedBy: "\n").contains { $0.hasPrefix("keyring ") && !$0.contains("errno") },
            "allowed: \(run.stdout)")
    }

    /// A key cached in the user keyring is one any process of the user can link: `exec` says so.
    @Test(.enabled(if: TestMachine.hasKeyring, "machine: keyring")) func aKeyInTheUserKeyringIsWarnedAbout() throws {
        let (sandbox, bare, withPassphrase) = try Fixtures.passphraseKeychain()
        #expect(sandbox.run(["unlock", "--keyring", "user"], profile: nil, environment: withPassphrase).status == 0)
        defer { sandbox.run(["lock"], profile: nil, environment: bare) }
        let run = Fixtures.runAsApp(sandbox, ["exec", "--env", "T=service=api,account=ci", "--", "true"], environment: bare)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("cached in the user keyring") && run.stderr.contains("keyctl session"), "\(run.stderr)")
        // In a CI step, where no session keyring outlives the step, the advice is the job's lock step,
        // and it works as printed: after it, exec finds nothing cached.
        let ci = Fixtures.runAsApp(
            sandbox, ["exec", "--env", "T=service=api,account=ci", "--", "true"],
            environment: bare.merging(["GITHUB_ACTIONS": "true"]) { $1 })
        #expect(ci.stderr.contains("end the job with 'keychainctl lock'") && !ci.stderr.contains("keyctl session"), "\(ci.stderr)")
        #expect(sandbox.run(["lock"], profile: nil, environment: bare).status == 0)
        #expect(Fixtures.runAsApp(sandbox, ["exec", "--env", "T=service=api,account=ci", "--", "true"], environment: bare).status == 36)
    }

    /// The passphrase descriptor is closed once read: the command cannot reopen it through
    /// /proc/self/fd. A descriptor named by --keep-fd stays; any other is closed.
    @Test func descriptorsAreClosedUnlessKept() throws {
        let (sandbox, _, withPassphrase) = try Fixtures.passphraseKeychain()
        let passphraseFile = sandbox.folder + "/pw.txt"
        try Data(Fixtures.passphrase.utf8).write(to: URL(fileURLWithPath: passphraseFile))
        try Data("kept-note".utf8).write(to: URL(fileURLWithPath: sandbox.folder + "/note.txt"))
        let script = """
            "$0" exec --no-cache --passphrase-fd 3 --env T=service=api,account=ci -- sh -c 'cat /proc/self/fd/3; echo "fd3=$?"; cat /proc/self/fd/5; echo "fd5=$?"' 3<"$1" 5<"$2" 2>&1
            "$0" exec --no-cache --passphrase-fd 3 --keep-fd 4 --env T=service=api,account=ci -- sh -c 'cat /proc/self/fd/4; echo " fd4=$?"' 3<"$1" 4<"$2"
            "$0" exec --keep-fd 9 -- true; echo "missing=$?"
            """
        var environment = withPassphrase
        environment["KEYCHAINCTL_PASSPHRASE"] = nil
        environment["KEYCHAINCTL_PROFILE"] = Sandbox.profiles + "/app.plist"
        let run = sandbox.run(
            ["-c", script, Sandbox.binary, passphraseFile, sandbox.folder + "/note.txt"], profile: nil, environment: environment,
            executable: "/bin/sh")
        #expect(!run.stdout.contains(Fixtures.passphrase), "\(run.stdout)")
        #expect(run.stdout.contains("fd3=1") && run.stdout.contains("fd5=1"), "\(run.stdout)")
        #expect(run.stdout.contains("kept-note fd4=0"), "\(run.stdout)")
        #expect(run.stdout.contains("missing=64"), "\(run.stdout)")
    }

    /// keychainctl's credential variables never reach the command (the account key file's path
    /// included); --keep passes the paths on when asked.
    @Test func credentialVariablesAreRemoved() throws {
        let sandbox = try Sandbox()
        sandbox.add(["-s", "api", "-a", "ci"], secret: "SECRET-api")
        let key = try String(contentsOfFile: sandbox.keyFile, encoding: .utf8)
        let extra = ["KEYCHAINCTL_ACCOUNT_KEY_FILE": "/tmp/account.key", "KEYCHAINCTL_PASSPHRASE": "pw-value-123"]
        let run = Fixtures.runAsApp(
            sandbox, ["exec", "--env", "T=service=api,account=ci", "--", "sh", "-c", "env | grep ^KEYCHAINCTL_ | cut -d= -f1 | sort"],
            environment: extra)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "KEYCHAINCTL_EXEC\nKEYCHAINCTL_KEYCHAIN\nKEYCHAINCTL_PROFILE\n", "\(run.stdout)")
        let withKey = Fixtures.runAsApp(
            sandbox, ["exec", "--env", "T=service=api,account=ci", "--", "sh", "-c", "env | grep ^KEYCHAINCTL_ | cut -d= -f1 | sort"],
            environment: ["KEYCHAINCTL_KEY": key.trimmingCharacters(in: .whitespacesAndNewlines), "KEYCHAINCTL_KEY_FILE": ""])
        #expect(withKey.status == 0 && !withKey.stdout.contains("KEYCHAINCTL_KEY\n"), "\(withKey.stdout) \(withKey.stderr)")
        let kept = Fixtures.runAsApp(
            sandbox,
            [
                "exec", "--keep", "KEYCHAINCTL_ACCOUNT_KEY_FILE", "--env", "T=service=api,account=ci", "--", "sh", "-c",
                "echo $KEYCHAINCTL_ACCOUNT_KEY_FILE",
            ],
            environment: extra)
        #expect(kept.stdout == "/tmp/account.key\n", "\(kept.stdout)")
    }

    /// The command's keyring calls are denied (EPERM), with a keyring on the machine or without one.
    @Test func keyringCallsAreDeniedToTheCommand() throws {
        let sandbox = try Sandbox()
        sandbox.add(["-s", "api", "-a", "ci"], secret: "SECRET-api")
        let denied = Fixtures.runAsApp(sandbox, ["exec", "--env", "T=service=api,account=ci", "--", "python3", "-c", Self.keyringProbe])
        #expect(denied.stdout == "keyring errno 1\n", "\(denied.stdout) \(denied.stderr)")
    }

    /// With --allow-keyring the command's keyring calls work (the filter is exec's alone).
    @Test(.enabled(if: TestMachine.hasKeyring, "machine: keyring"))
    func keyringCallsAreAllowedWhenAsked() throws {
        let sandbox = try Sandbox()
        sandbox.add(["-s", "api", "-a", "ci"], secret: "SECRET-api")
        let allowed = Fixtures.runAsApp(
            sandbox, ["exec", "--allow-keyring", "--env", "T=service=api,account=ci", "--", "python3", "-c", Self.keyringProbe])
        #expect(allowed.stdout.hasPrefix("keyring ") && !allowed.stdout.contains("errno"), "\(allowed.stdout) \(allowed.stderr)")
    }

    /// The forms a secret most often takes: stored with a newline but printed without it, decoded
    /// from --base64, and base64 wrapped at 76 columns (GNU base64) or 64 (PEM).
    @Test func maskingCoversTrimmedDecodedAndWrappedForms() throws {
        let sandbox = try Sandbox()
        sandbox.add(["-s", "gh", "-a", "ci"], secret: "ghp_TrailingNewlineToken123\n")
        let long = String(repeating: "service-account-json-", count: 6)
        sandbox.add(["-s", "deploy", "-a", "ci"], secret: long)
        let trimmed = Fixtures.runAsApp(
            sandbox,
            [
                "exec", "--env", "T=service=gh,account=ci", "--", "sh", "-c",
                "T2=$(printf %s \"$T\"); printf 'Bearer %s;\\n' \"$T2\"; echo next",
            ])
        #expect(trimmed.stdout == "Bearer [keychainctl:T];\nnext\n", "\(trimmed.stdout)")
        let decoded = Fixtures.runAsApp(
            sandbox,
            [
                "exec", "--base64", "T", "--env", "T=service=gh,account=ci", "--", "sh", "-c", "echo \"$T\" | base64 -d; echo; echo \"$T\"",
            ])
        #expect(!decoded.stdout.contains("ghp_"), "\(decoded.stdout)")
        #expect(!decoded.stdout.contains(Data("ghp_TrailingNewlineToken123\n".utf8).base64EncodedString()), "\(decoded.stdout)")
        let wrapped = Fixtures.runAsApp(
            sandbox,
            [
                "exec", "--file", "K=service=deploy,account=ci", "--", "sh", "-c", "base64 < \"$K\"; base64 -w 64 < \"$K\"",
            ])
        #expect(wrapped.status == 0, "\(wrapped.stderr)")
        let encoded = Data(long.utf8).base64EncodedString()
        for width in [64, 76] {
            var start = encoded.startIndex
            while start < encoded.endIndex {
                let end = encoded.index(start, offsetBy: width, limitedBy: encoded.endIndex) ?? encoded.endIndex
                #expect(!wrapped.stdout.contains(String(encoded[start..<end])), "width \(width): \(wrapped.stdout)")
                start = end
            }
        }
    }

    /// The first line: an item makes only a name the user allowed. Without --prefix or
    /// --allow-names, --env-from and export's variable formats refuse to start (64); with them, an
    /// item giving any other name is refused naming its reference (206) and nothing runs; an
    /// item's name never replaces an inherited variable.
    @Test func itemsMakeOnlyTheNamesTheUserAllows() throws {
        let sandbox = try Sandbox()
        sandbox.add(["-s", "ci", "-a", "NPM_TOKEN"], secret: "npm-token-value")
        sandbox.add(["-s", "ci", "-a", "LESSOPEN"], secret: "|echo PWNED-BY-LESSOPEN >&2; cat %s")
        let marker = sandbox.folder + "/ran"
        let unbounded = Fixtures.runAsApp(sandbox, ["exec", "--env-from", "service=ci", "--", "touch", marker])
        #expect(
            unbounded.status == 64 && unbounded.stderr.contains("--allow-names with the names you expect ('NPM_TOKEN,AWS_ACCESS_KEY_ID')"),
            "\(unbounded.stderr)")
        // The hint, followed as printed: the planted item is named, and nothing runs.
        let planted = Fixtures.runAsApp(
            sandbox, ["exec", "--env-from", "service=ci", "--allow-names", "NPM_TOKEN,AWS_ACCESS_KEY_ID", "--", "touch", marker])
        let lessRef = sandbox.run(["find", "-s", "ci", "-a", "LESSOPEN", "--return", "persistent-ref"]).stdout
            .trimmingCharacters(in: .newlines)
        #expect(planted.status == 206 && planted.stderr.contains("ref=\(lessRef) gives LESSOPEN"), "\(planted.stderr)")
        #expect(!FileManager.default.fileExists(atPath: marker), "nothing was run")
        // Narrowed, as the refusal says: only the allowed name is made.
        let narrowed = Fixtures.runAsApp(
            sandbox,
            [
                "exec", "--env-from", "service=ci,account=NPM_TOKEN", "--allow-names", "NPM_TOKEN,AWS_ACCESS_KEY_ID", "--", "sh", "-c",
                "echo \"$NPM_TOKEN ${LESSOPEN:-unset}\"",
            ])
        #expect(narrowed.status == 0 && narrowed.stdout == "[keychainctl:NPM_TOKEN] unset\n", "\(narrowed.stdout) \(narrowed.stderr)")
        // A prefix, like a pattern, admits only credential-shaped names: CI_LESSOPEN is refused too.
        let prefixed = Fixtures.runAsApp(
            sandbox, ["exec", "--env-from", "service=ci", "--prefix", "CI_", "--", "sh", "-c", "echo \"${LESSOPEN:-unset} $CI_NPM_TOKEN\""])
        #expect(
            prefixed.status == 206 && prefixed.stderr.contains("gives CI_LESSOPEN, which is not credential-shaped"), "\(prefixed.stderr)")
        let prefixedOne = Fixtures.runAsApp(
            sandbox,
            [
                "exec", "--env-from", "service=ci,account=NPM_TOKEN", "--prefix", "CI_", "--", "sh", "-c",
                "echo \"${LESSOPEN:-unset} $CI_NPM_TOKEN\"",
            ])
        #expect(prefixedOne.status == 0 && prefixedOne.stdout == "unset [keychainctl:CI_NPM_TOKEN]\n", "\(prefixedOne.stderr)")
        // An inherited variable is the caller's: an item replacing it is refused; the ways out work.
        let query = ["--env-from", "service=ci,account=NPM_TOKEN", "--allow-names", "NPM_*", "--mask", "never"]
        let inherited = ["NPM_TOKEN": "inherited-value"]
        let replaced = Fixtures.runAsApp(sandbox, ["exec"] + query + ["--", "sh", "-c", "echo $NPM_TOKEN"], environment: inherited)
        #expect(replaced.status == 206 && replaced.stderr.contains("would replace the inherited NPM_TOKEN"), "\(replaced.stderr)")
        let kept = Fixtures.runAsApp(
            sandbox, ["exec", "--no-override"] + query + ["--", "sh", "-c", "echo $NPM_TOKEN"], environment: inherited)
        #expect(kept.status == 0 && kept.stdout == "inherited-value\n", "\(kept.stderr)")
        let pristine = Fixtures.runAsApp(
            sandbox, ["exec", "--pristine"] + query + ["--", "/bin/sh", "-c", "echo $NPM_TOKEN"], environment: inherited)
        #expect(pristine.status == 0 && pristine.stdout == "npm-token-value\n", "\(pristine.stderr)")
        // export's variable formats: the same rule.
        let exportAll = Fixtures.runAsApp(sandbox, ["export", "--format", "dotenv", "--with-secrets", "-s", "ci"])
        #expect(exportAll.status == 64 && exportAll.stderr.contains("--prefix P"), "\(exportAll.stderr)")
        let exportPlanted = Fixtures.runAsApp(
            sandbox, ["export", "--format", "shell", "--with-secrets", "--allow-names", "NPM_*", "-s", "ci"])
        #expect(exportPlanted.status == 206 && exportPlanted.stderr.contains("gives LESSOPEN") && exportPlanted.stdout.isEmpty)
        let exportOne = Fixtures.runAsApp(
            sandbox, ["export", "--format", "shell", "--with-secrets", "--allow-names", "NPM_*", "-s", "ci", "-a", "NPM_TOKEN"])
        #expect(exportOne.status == 0 && exportOne.stdout.contains("NPM_TOKEN"), "\(exportOne.stderr)")
        for bad in ["", "NPM-*", "A,,B"] {
            #expect(
                Fixtures.runAsApp(sandbox, ["exec", "--env-from", "service=ci", "--allow-names", bad, "--", "true"]).status == 64, "\(bad)")
        }
    }

    /// The names of the turn-4 and turn-5 reviews: each ran code, moved a fetch (and the credential
    /// sent with it) elsewhere, or changed what a later CI step runs.
    static let reviewedNames = [
        "LESSOPEN", "PIP_INDEX_URL", "UV_INDEX_URL", "DOCKER_HOST", "OPENSSL_CONF", "SSL_CERT_FILE", "CURL_CA_BUNDLE",
        "REQUESTS_CA_BUNDLE", "NODE_EXTRA_CA_CERTS", "HTTPS_PROXY", "http_proxy", "ALL_PROXY", "NODE_TLS_REJECT_UNAUTHORIZED",
        "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE", "KUBECONFIG", "BASH_XTRACEFD", "TMPDIR", "GNUPGHOME", "TERMINFO",
        "TERMINFO_DIRS", "CC", "CXX", "GOFLAGS", "GOPROXY", "CURL_HOME",
        "AWS_PAGER", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "VAULT_ADDR", "TWINE_REPOSITORY_URL", "AZURE_AUTHORITY_HOST",
        "SONAR_HOST_URL", "GH_PAGER", "MANPAGER", "PERLDOC_PAGER", "SYSTEMD_PAGER", "PSQL_PAGER", "GIT_SEQUENCE_EDITOR",
        "GNUMAKEFLAGS", "JAVA_OPTS", "SBT_OPTS", "ANT_OPTS", "MAVEN_ARGS", "CCACHE_PREFIX", "CMAKE_C_COMPILER_LAUNCHER", "RSYNC_RSH",
        "RSYNC_CONNECT_PROG", "RUSTC", "RUSTC_WORKSPACE_WRAPPER", "RUSTFLAGS", "RUSTUP_DIST_SERVER", "YARN_NPM_REGISTRY_SERVER",
        "COREPACK_NPM_REGISTRY", "BUNDLE_MIRROR__ALL", "PIPENV_PYPI_MIRROR", "BUILDKIT_HOST", "CONTAINER_HOST",
        "DBUS_SESSION_BUS_ADDRESS", "SSH_AUTH_SOCK", "LOCALDOMAIN", "GIT_TRACE_REDACT", "GIT_CURL_VERBOSE", "GIT_TRACE_CURL",
        "GIT_ALLOW_PROTOCOL", "GIT_OBJECT_DIRECTORY", "GIT_INDEX_FILE", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "XDG_CONFIG_DIRS",
        "XDG_DATA_HOME", "INPUTRC", "TZ", "TEXTDOMAINDIR", "HISTFILE", "PS0", "PS1", "TMP", "TEMP", "JAVA_HOME", "GRADLE_USER_HOME",
        "TF_CLI_ARGS", "TF_CLI_CONFIG_FILE", "HELM_PLUGINS", "ACTIONS_ID_TOKEN_REQUEST_URL", "ACTIONS_RUNTIME_URL",
        "ACTIONS_ALLOW_UNSECURE_COMMANDS", "RUNNER_TOOL_CACHE",
        // The sixth review: the working folder, and names that grant access or pick a destination.
        "PWD", "OLDPWD", "TF_VAR_admin_ssh_key", "TF_VAR_db_password", "ARM_SUBSCRIPTION_ID", "AZURE_TENANT_ID",
        "GOOGLE_APPLICATION_CREDENTIALS",
    ]

    /// Names a pattern does not admit although nothing reserves them (the sixth review): bare words,
    /// and an identifier that picks a destination. Listed exactly, they are the user's choice.
    static let notCredentialShaped = ["TOKEN", "KEY", "ID", "SECRET", "NETLIFY_SITE_ID", "SITE_ID", "ADMIN_SSH_KEY", "PROJECT_ID"]

    /// The turn-5 attack: the tool's own pattern `AWS_*` admitted `AWS_PAGER`, a command the AWS CLI
    /// runs with every secret in its environment, and `AWS_ENDPOINT_URL`. A pattern now admits only
    /// credential-shaped names: the planted items are refused by reference, nothing runs; the
    /// credentials the user meant are made.
    @Test func aPatternAdmitsOnlyCredentialShapedNames() throws {
        let sandbox = try Sandbox()
        sandbox.add(["-s", "ci", "-a", "AWS_ACCESS_KEY_ID"], secret: "AKIA-EXAMPLE-ID")
        sandbox.add(["-s", "ci", "-a", "AWS_SECRET_ACCESS_KEY"], secret: "aws-secret-value")
        sandbox.add(["-s", "ci", "-a", "AWS_PAGER"], secret: "sh -c 'echo PWNED-BY-AWS_PAGER: $AWS_SECRET_ACCESS_KEY >&2; cat'")
        sandbox.add(["-s", "ci", "-a", "AWS_ENDPOINT_URL"], secret: "http://127.0.0.1:9")
        let marker = sandbox.folder + "/ran"
        let planted = Fixtures.runAsApp(
            sandbox,
            ["exec", "--pristine", "--keep", "PATH", "--env-from", "service=ci", "--allow-names", "NPM_*,AWS_*", "--", "touch", marker])
        #expect(planted.status == 206 && planted.stderr.contains("which is not credential-shaped"), "\(planted.stderr)")
        #expect(planted.stderr.contains("AWS_ENDPOINT_URL") || planted.stderr.contains("AWS_PAGER"), "\(planted.stderr)")
        #expect(!FileManager.default.fileExists(atPath: marker), "nothing was run")
        // The refusal's way out: list a name exactly. A reserved one is still left out (the last line).
        let listed = Fixtures.runAsApp(
            sandbox,
            [
                "exec", "--pristine", "--keep", "PATH", "--env-from", "service=ci", "--allow-names",
                "AWS_ACCESS_KEY_ID,AWS_SECRET_ACCESS_KEY,AWS_PAGER,AWS_ENDPOINT_URL", "--", "sh", "-c", "env | cut -d= -f1 | sort",
            ])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("AWS_ACCESS_KEY_ID\nAWS_SECRET_ACCESS_KEY\n"), "\(listed.stdout)")
        #expect(!listed.stdout.contains("AWS_PAGER") && !listed.stdout.contains("AWS_ENDPOINT_URL"), "\(listed.stdout)")
        #expect(listed.stderr.contains("would set AWS_PAGER") && listed.stderr.contains("would set AWS_ENDPOINT_URL"), "\(listed.stderr)")
        // Credential-shaped names pass a pattern: the usual credentials of the usual tools.
        let shaped = [
            "NPM_TOKEN", "AWS_SESSION_TOKEN", "GITHUB_TOKEN", "DEPLOY_KEY", "DB_PASSWORD", "TWINE_PASSWORD", "VAULT_TOKEN",
            "AWS_ACCESS_KEY_ID",
            "AWS_SECRET_ACCESS_KEY", "STRIPE_API_KEY", "AZURE_CLIENT_ID", "AZURE_CLIENT_SECRET", "GPG_PRIVATE_KEY",
        ]
        for name in shaped { #expect(VariableNaming.isCredentialShaped(name) && !ReservedVariables.contains(name), "\(name)") }
        for name in Self.reviewedNames {
            #expect(!VariableNaming.isCredentialShaped(name) || ReservedVariables.contains(name), "a pattern admits \(name)")
        }
        for name in Self.notCredentialShaped { #expect(!VariableNaming.isCredentialShaped(name), "a pattern admits \(name)") }
    }

    /// The reserved table lists a name only when no family covers it, and the names it no longer
    /// lists because a family does are still reserved.
    @Test func theReservedTableListsEachNameOnce() {
        for name in ReservedVariables.names { #expect(!ReservedVariables.inFamily(name), "\(name) is listed and in a family") }
        let coveredByFamilies = [
            "BASH_ENV", "XDG_CONFIG_HOME", "PAGER", "MAKEFLAGS", "MANPAGER", "GCONV_PATH", "RES_OPTIONS", "NODE_OPTIONS", "NODE_PATH",
            "GEM_HOME", "GEM_PATH", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "MAVEN_OPTS", "GRADLE_OPTS",
            "CORECLR_PROFILER_PATH", "LUA_PATH", "PHP_INI_SCAN_DIR", "RUSTC_WRAPPER", "CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS",
            "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE", "CURL_HOME", "SSH_AUTH_SOCK", "GITHUB_PATH", "GIT_SSH_COMMAND",
            "GIT_ASKPASS", "GIT_DIR",
        ]
        for name in coveredByFamilies {
            #expect(ReservedVariables.contains(name) && ReservedVariables.contains(name.lowercased()), "\(name)")
        }
    }

    /// The last line, for a user who listed every name exactly: items named after a variable that
    /// runs code or redirects where the command fetches from, or whom it trusts, are left out with a
    /// warning naming the item (refused with --strict), in exec and in export's variable formats.
    @Test func reservedNamesAreNeverMadeFromItems() throws {
        let sandbox = try Sandbox()
        let evil = sandbox.folder + "/evil.sh"
        try Data("echo PWNED-BY-BASH_ENV >&2\n".utf8).write(to: URL(fileURLWithPath: evil))
        sandbox.add(["-s", "ci", "-a", "NPM_TOKEN"], secret: "npm-token-value")
        sandbox.add(["-s", "ci", "-a", "GOOGLE_API_KEY"], secret: "google-key-value")
        sandbox.add(["-s", "ci", "-a", "BASH_ENV"], secret: evil)
        sandbox.add(["-s", "ci", "-a", "ld_preload"], secret: "/tmp/evil.so")
        let reviewed = Self.reviewedNames
        for name in reviewed { sandbox.add(["-s", "ci", "-a", name], secret: "http://127.0.0.1:9/attacker") }
        let everyName = (["NPM_TOKEN", "GOOGLE_API_KEY", "BASH_ENV", "LD_PRELOAD"] + reviewed.map { $0.uppercased() }).joined(
            separator: ",")
        let run = Fixtures.runAsApp(
            sandbox,
            [
                "exec", "--env-from", "service=ci", "--allow-names", everyName, "--upper", "--", "bash", "-c",
                "echo \"${BASH_ENV:-unset} ${LD_PRELOAD:-unset} $NPM_TOKEN $GOOGLE_API_KEY\"; env",
            ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasPrefix("unset unset [keychainctl:NPM_TOKEN] [keychainctl:GOOGLE_API_KEY]\n"), "\(run.stdout)")
        for name in reviewed {
            #expect(!run.stdout.contains("\n\(name.uppercased())=http://127.0.0.1:9/attacker"), "\(name) was made")
            #expect(run.stderr.contains("would set \(name.uppercased())"), "\(name) was not named")
        }
        #expect(!run.stderr.contains("PWNED"), "\(run.stderr)")
        #expect(run.stderr.contains("would set BASH_ENV") && run.stderr.contains("ref="))
        let strict = Fixtures.runAsApp(
            sandbox, ["exec", "--strict", "--env-from", "service=ci", "--allow-names", everyName, "--upper", "--", "true"])
        #expect(strict.status == 206, "\(strict.stderr)")
        let explicit = Fixtures.runAsApp(
            sandbox, ["exec", "--env", "BASH_ENV=service=ci,account=BASH_ENV", "--", "sh", "-c", "test -n \"$BASH_ENV\""])
        #expect(explicit.status == 0, "a name the user writes is the user's choice: \(explicit.stderr)")
        for format in ["shell", "dotenv", "github-env"] {
            let exported = Fixtures.runAsApp(
                sandbox, ["export", "--format", format, "--with-secrets", "--allow-names", everyName, "--upper", "-s", "ci"])
            #expect(exported.status == 0 && exported.stdout.contains("NPM_TOKEN"), "\(format): \(exported.stderr)")
            for name in ["BASH_ENV"] + reviewed where exported.stdout.contains(name.uppercased() + "=") {
                Issue.record("\(format) made \(name)")
            }
            #expect(exported.stderr.contains("would set BASH_ENV"), "\(exported.stderr)")
        }
        #expect(
            Fixtures.runAsApp(
                sandbox, ["export", "--format", "dotenv", "--with-secrets", "--allow-names", everyName, "--upper", "--strict", "-s", "ci"]
            )
            .status
                == 206)
    }

    /// A `--file` secret is never in a folder, so keychainctl stopped by any signal, SIGKILL
    /// included, leaves nothing behind: the command's descriptor was the only name it had.
    @Test(arguments: [SIGKILL, SIGTERM, SIGHUP])
    func fileSecretsLeaveNothingBehindOnASignal(signal: Int32) throws {
        let sandbox = try Sandbox()
        sandbox.add(["-s", "db", "-a", "ci"], secret: "PROD-DB-PASSWORD")
        let output = sandbox.folder + "/out.txt"
        try #require(FileManager.default.createFile(atPath: output, contents: nil))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Sandbox.binary)
        process.arguments = [
            "exec", "--file", "F=service=db,account=ci", "--profile", Sandbox.profiles + "/app.plist", "--", "sh", "-c",
            "echo \"$F\"; sleep 30",
        ]
        process.environment = sandbox.baseEnvironment.merging(["XDG_RUNTIME_DIR": sandbox.folder, "TMPDIR": sandbox.folder]) { $1 }
        process.standardOutput = FileHandle(forWritingAtPath: output)
        process.standardError = FileHandle.nullDevice
        try process.run()
        let watchdog = DispatchWorkItem { kill(process.processIdentifier, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: watchdog)
        defer { watchdog.cancel() }
        var path = ""
        _ = Deadline.waitUntil(10) {
            path = (try? String(contentsOfFile: output, encoding: .utf8))?.trimmingCharacters(in: .newlines) ?? ""
            return !path.isEmpty
        }
        #expect(path.hasPrefix("/dev/fd/"), "\(path)")
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == signal)
        let left = try FileManager.default.contentsOfDirectory(atPath: sandbox.folder).filter { $0.hasPrefix("keychainctl-exec") }
        #expect(left.isEmpty, "nothing on disk: \(left)")
    }

    /// Masked output that cannot be written makes a successful command exit 74; `--ci-mask` never
    /// writes its `::add-mask::` lines (every secret in clear) to a regular file.
    @Test func outputFailuresAndMaskLinesInFiles() throws {
        let sandbox = try Sandbox()
        sandbox.add(["-s", "gh", "-a", "ci"], secret: "npm-token-value")
        let full = Fixtures.runAsApp(
            sandbox, ["exec", "--env", "T=service=gh,account=ci", "--", "sh", "-c", "echo hello"], stdoutPath: "/dev/full")
        #expect(full.status == 74 && full.stderr.contains("cannot write the command's standard output"), "\(full.status) \(full.stderr)")
        let log = sandbox.folder + "/build.log"
        try #require(FileManager.default.createFile(atPath: log, contents: nil))
        let masked = Fixtures.runAsApp(
            sandbox, ["exec", "--ci-mask", "--env", "T=service=gh,account=ci", "--", "sh", "-c", "echo \"build log: $T\""],
            environment: ["GITHUB_ACTIONS": "true"], stdoutPath: log)
        #expect(masked.status == 0, "\(masked.stderr)")
        let written = try String(contentsOfFile: log, encoding: .utf8)
        #expect(written == "build log: [keychainctl:T]\n", "\(written)")
        #expect(masked.stderr.contains("::add-mask::npm-token-value"), "stderr is a pipe the runner reads: \(masked.stderr)")
        let exported = Fixtures.runAsApp(
            sandbox, ["export", "--format", "github-env", "--with-secrets", "--allow-names", "ci", "-s", "gh"],
            environment: ["GITHUB_ACTIONS": "true"])
        #expect(!exported.stdout.contains("::add-mask::") && exported.stdout.contains("npm-token-value"), "\(exported.stdout)")
    }

    /// A persistent reference resolves under --group when its item is in one of the groups, and is
    /// refused (-34018) when it is not: the scope holds for references too.
    @Test func aReferenceIsHeldToTheGroupScope() throws {
        let sandbox = try Sandbox()
        sandbox.add(["-s", "api", "-a", "ci"], secret: "SECRET-api")
        let ref = sandbox.run(["find", "-s", "api", "--return", "persistent-ref"]).stdout.trimmingCharacters(in: .newlines)
        #expect(!ref.isEmpty)
        let inside = Fixtures.runAsApp(
            sandbox, ["exec", "--group", "SKMME9E2Y8.com.example.app", "--env", "T=ref=\(ref)", "--", "sh", "-c", "echo \"$T\""])
        #expect(inside.status == 0 && inside.stdout == "[keychainctl:T]\n", "\(inside.status) \(inside.stderr)")
        let outside = Fixtures.runAsApp(
            sandbox, ["exec", "--group", "SKMME9E2Y8.com.example.shared", "--env", "T=ref=\(ref)", "--", "true"])
        #expect(outside.status == 30 && outside.stderr.contains("outside --group"), "\(outside.status) \(outside.stderr)")
    }

    /// The command starts with no signal blocked, whether keychainctl becomes it or watches it:
    /// the signals keychainctl blocks to forward them are its own business.
    @Test func theCommandStartsWithNoSignalBlocked() throws {
        let sandbox = try Sandbox()
        sandbox.add(["-s", "api", "-a", "ci"], secret: "SECRET-api")
        // Launched with nothing blocked (a test runner's thread blocks most signals).
        let launcher = "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execv(sys.argv[1], sys.argv[1:])"
        for mask in ["never", "always"] {
            let run = sandbox.run(
                [
                    "-c", launcher, Sandbox.binary, "exec", "--mask", mask, "--env", "T=service=api,account=ci", "--", "grep", "^SigBlk",
                    "/proc/self/status",
                ], profile: nil, environment: ["KEYCHAINCTL_PROFILE": Sandbox.profiles + "/app.plist"],
                executable: "/usr/bin/python3")
            #expect(run.stdout == "SigBlk:\t0000000000000000\n", "--mask \(mask): \(run.stdout) \(run.stderr)")
        }
    }
}
