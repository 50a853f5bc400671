import Foundation
import Testing

/// `docker-credential-keychainctl`, driven as Docker drives a credential helper
/// (docker-credential-helpers' protocol): every action, its documented output, the
/// "credentials not found in native keychain" error of a miss, one login per registry, the login
/// in the helper's own access group, and no prompt when the keychain is locked; then the Docker
/// client itself (where it is installed) logging in to a local registry, reading an image's
/// manifest with that login and logging out, all through the helper and without a Docker engine.
@Suite struct DockerCredentialHelperTests {
    /// The sandbox with the helper linked by its name.
    static func setup() throws -> (sandbox: Sandbox, helper: String) {
        let sandbox = try Sandbox()
        let helper = sandbox.folder + "/docker-credential-keychainctl"
        try FileManager.default.createSymbolicLink(atPath: helper, withDestinationPath: Sandbox.binary)
        return (sandbox, helper)
    }

    static func call(_ setup: (sandbox: Sandbox, helper: String), _ action: String, _ input: String, extra: [String: String] = [:])
        -> Sandbox.Run
    {
        setup.sandbox.run([action], profile: nil, stdin: Data(input.utf8), environment: extra, timeout: 30, executable: setup.helper)
    }

    @Test func everyActionAsDockerCallsIt() throws {
        let setup = try Self.setup()
        let secret = "p@ss\"w\\rd é"
        let login = #"{"ServerURL":"https://index.docker.io/v1/","Username":"alice","Secret":"p@ss\"w\\rd \u00e9"}"#
        #expect(Self.call(setup, "store", login).status == 0)
        let got = Self.call(setup, "get", "https://index.docker.io/v1/\n")
        #expect(got.status == 0, "\(got.stdout)")
        let object = try #require(try? got.json() as? [String: String], "\(got.stdout)")
        #expect(object == ["ServerURL": "https://index.docker.io/v1/", "Username": "alice", "Secret": secret], "\(object)")
        #expect(Self.call(setup, "store", #"{"ServerURL":"registry.example.com:5000","Username":"bob","Secret":"tok"}"#).status == 0)
        let listed = Self.call(setup, "list", "")
        #expect(
            (try? listed.json() as? [String: String])
                == ["https://index.docker.io/v1/": "alice", "registry.example.com:5000": "bob"], "\(listed.stdout)")
        // A registry given with its scheme or without is the same login.
        #expect(Self.call(setup, "get", "https://registry.example.com:5000").stdout.contains(#""Secret":"tok""#))
        // A miss: the documented message on standard output, exit 1.
        let miss = Self.call(setup, "get", "nothing.example.com")
        #expect(miss.status == 1 && miss.stdout == "credentials not found in native keychain\n", "\(miss.stdout)")
        #expect(Self.call(setup, "erase", "registry.example.com:5000").status == 0)
        let gone = Self.call(setup, "erase", "registry.example.com:5000")
        #expect(gone.status == 1 && gone.stdout == "credentials not found in native keychain\n")
        // One login per registry: a new username replaces the old.
        #expect(Self.call(setup, "store", #"{"ServerURL":"https://index.docker.io/v1/","Username":"carol","Secret":"new"}"#).status == 0)
        #expect((try? Self.call(setup, "list", "").json() as? [String: String]) == ["https://index.docker.io/v1/": "carol"])
        // Malformed input is refused, naming no value.
        let bad = Self.call(setup, "store", #"{"ServerURL":"x","Username":"u","Secret":12}"#)
        #expect(bad.status == 1 && bad.stdout.contains("Secret is not a string"), "\(bad.stdout)")
        // Hostile input: broken or deeply nested JSON, too long, control characters; never a
        // value in the message, never a crash, and what is stored comes back escaped.
        for (input, message) in [
            (#"{"ServerURL":"x.io","Username":"u","Secret":"SECRET-x",}"#, "store's input is not JSON (expected a member name at byte 56)"),
            (#"{"ServerURL":"x.io","Username":"u","Secret":"SECRET-x\q"}"#, "Secret is not valid JSON text"),
            (#"{"ServerURL":"# + String(repeating: "[", count: 60_000), "store's input is not JSON (nested deeper than 16 levels"),
            (String(repeating: "a", count: 70_000), "standard input is longer than 65536 bytes"),
        ] {
            let refused = Self.call(setup, "store", input)
            #expect(refused.status == 1 && refused.stdout.hasPrefix(message), "\(refused.stdout)")
            #expect(!(refused.stdout + refused.stderr).contains("SECRET-x"), "\(refused.stdout)")
        }
        #expect(Self.call(setup, "store", #"{"ServerURL":"x\u001b]0;t\u0007.io","Username":"u","Secret":"s"}"#).status == 0)
        #expect(Self.call(setup, "list", "").stdout.contains(#""x\u001B]0;t\u0007.io":"u""#), "control characters stay escaped")
        #expect(Self.call(setup, "version", "").stdout.hasPrefix("docker-credential-keychainctl (keychainctl "))
    }

    /// The login is an internet password in the helper's own group: another profile does not see it.
    @Test func aLoginIsAnInternetPasswordOfTheHelpersOwn() throws {
        let setup = try Self.setup()
        #expect(Self.call(setup, "store", #"{"ServerURL":"https://ghcr.io","Username":"ci","Secret":"SECRET-ghcr"}"#).status == 0)
        let shown = setup.sandbox.run(["profile", "show", "--program", "docker-credential-keychainctl"], profile: nil)
        let profile = setup.sandbox.folder + "/docker.plist"
        try shown.stdoutData.write(to: URL(fileURLWithPath: profile))
        let found = setup.sandbox.run(
            ["find", "--class", "inet", "--server", "ghcr.io", "--format", "json", "--profile", profile], profile: nil)
        let item = try #require(try? found.json() as? [String: Any], "\(found.stderr)")
        #expect(item["ptcl"] as? String == "htps" && item["acct"] as? String == "ci" && item["labl"] as? String == "Docker Credentials")
        #expect(item["agrp"] as? String == "keychainctl.program.docker-credential-keychainctl")
        #expect(setup.sandbox.run(["find", "--class", "inet", "--server", "ghcr.io"], profile: "app.plist").status == 44)
    }

    /// Logins racing for one registry (parallel jobs of one user) leave one login; erases racing
    /// erase it once, the others saying there was none. Each replace is one write transaction.
    /// (bash: dash's `wait` never returned under the test runner.)
    @Test func racingLoginsLeaveOneLogin() throws {
        let setup = try Self.setup()
        let script = """
            for i in $(seq 1 16); do
                printf '{"ServerURL":"race.io","Username":"u%s","Secret":"s%s"}' $i $i | "$0" store > "$0.store.$i" 2>&1 &
            done; wait
            for i in $(seq 1 8); do (printf race.io | "$0" erase > /dev/null 2>&1; echo "erase $?") & done; wait
            """
        let stored = setup.sandbox.run(
            [
                "-c", script.replacingOccurrences(of: "for i in $(seq 1 8)", with: "\"$0\" list < /dev/null; echo; for i in $(seq 1 8)"),
                setup.helper,
            ],
            profile: nil, timeout: 60, executable: "/bin/bash")
        let lines = stored.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first.map { $0.hasPrefix(#"{"race.io":"u"#) && $0.split(separator: ",").count == 1 } == true, "\(stored.stdout)")
        #expect(lines.filter { $0 == "erase 0" }.count == 1 && lines.filter { $0 == "erase 1" }.count == 7, "\(stored.stdout)")
        for i in 1...16 {
            let output = (try? String(contentsOfFile: setup.helper + ".store.\(i)", encoding: .utf8)) ?? "?"
            #expect(output.isEmpty, "store \(i): \(output)")
        }
    }

    @Test func aLockedKeychainFailsAtOnceWithoutAPrompt() throws {
        let setup = try Self.setup()
        let locked = try Fixtures.passphraseKeychain()
        let started = Date()
        let run = Self.call(
            setup, "get", "https://ghcr.io",
            extra: ["KEYCHAINCTL_KEYCHAIN": locked.sandbox.keychain, "KEYCHAINCTL_KEY_FILE": "", "KEYCHAINCTL_PASSPHRASE": ""])
        #expect(Date().timeIntervalSince(started) < 20)
        #expect(run.status == 1 && run.stdout.contains("locked"), "\(run.stdout) \(run.stderr)")
    }

    /// The Docker client, where the machine has one (its engine is not needed for these commands).
    static let docker = ["/usr/local/bin/docker", "/usr/bin/docker"].first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test(.enabled(if: docker != nil, "machine: docker-client")) func dockerItselfLogsInReadsAndLogsOutThroughTheHelper() throws {
        let setup = try Self.setup()
        let registry = try LocalServer.registry(credentials: "ci:SECRET-registry", in: setup.sandbox)
        defer { registry.stop() }
        let host = "127.0.0.1:" + registry.port
        let config = setup.sandbox.folder + "/docker-config"
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        try #"{"credsStore": "keychainctl"}"#.write(toFile: config + "/config.json", atomically: true, encoding: .utf8)
        let folder = URL(fileURLWithPath: Self.docker ?? "/").deletingLastPathComponent().path
        func docker(_ script: String) -> Sandbox.Run {
            setup.sandbox.run(
                ["-c", script], profile: nil,
                environment: ["DOCKER_CONFIG": config, "PATH": "\(setup.sandbox.folder):\(folder):/usr/bin:/bin"], timeout: 60,
                executable: "/bin/sh")
        }
        let wrong = docker("printf %s wrong | docker login --username ci --password-stdin \(host)")
        #expect(wrong.status != 0 && wrong.stderr.contains("401"), "\(wrong.stdout) \(wrong.stderr)")
        #expect(Self.call(setup, "list", "").stdout == "{}\n", "a refused login stores nothing")
        let login = docker("printf %s SECRET-registry | docker login --username ci --password-stdin \(host)")
        #expect(login.status == 0 && login.stdout.contains("Login Succeeded"), "\(login.stdout) \(login.stderr)")
        // Docker's file names the registry and nothing else: no secret, not even in base64.
        let file = try String(contentsOfFile: config + "/config.json", encoding: .utf8)
        let encoded = Data("ci:SECRET-registry".utf8).base64EncodedString()
        #expect(
            file.contains(host) && !file.contains("SECRET-registry") && !file.contains(encoded) && !file.contains("\"auth\""), "\(file)")
        // The login at work: the client reads a manifest with it.
        let manifest = docker("docker manifest inspect \(host)/team/app:1.0")
        #expect(manifest.status == 0 && manifest.stdout.contains("\"schemaVersion\": 2"), "\(manifest.stdout) \(manifest.stderr)")
        #expect(Self.call(setup, "get", host).stdout.contains(#""Username":"ci","Secret":"SECRET-registry""#))
        let logout = docker("docker logout \(host)")
        #expect(logout.status == 0, "\(logout.stderr)")
        #expect(Self.call(setup, "get", host).stdout == "credentials not found in native keychain\n")
        let after = docker("docker manifest inspect \(host)/team/app:1.0")
        #expect(after.status != 0 && after.stderr.contains("no basic auth credentials"), "\(after.stderr)")
    }
}
