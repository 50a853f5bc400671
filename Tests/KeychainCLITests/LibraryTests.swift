import Foundation
import KeychainCore
import KeychainFormats
import KeychainFoundation
import KeychainPlatform
import KeychainTestSupport
import Security
import SecurityTesting
import Testing

/// One file, two faces: what an app writes through `import Security`, `keychainctl find`,
/// `explain` and `matrix` show, and what the command writes, the library reads.
@Suite struct LibraryTests {
    static let appex = Sandbox.packageRoot + "/Fixtures/Bundles/Example.app/PlugIns/Share.appex"
    static let app = Sandbox.packageRoot + "/Fixtures/Bundles/Example.app"

    /// Adds, through the library, the app's password for `account` (a String or Data) on api.example.com.
    static func addAsTheApp(account: Any) -> OSStatus {
        let add: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "api.example.com",
            kSecAttrAccount as String: account, kSecValueData as String: Data("s3cret".utf8),
        ]
        return SecItemAdd(add as CFDictionary, nil)
    }

    @Test func whatTheLibraryWritesTheCommandShowsAndExplains() async throws {
        let sandbox = try Sandbox()
        let lease = try await SecurityTesting.Lease(keychainAt: sandbox.keychain, keyFile: sandbox.keyFile, .profile(path: Self.app))
        defer { withExtendedLifetime(lease) {} }
        #expect(Self.addAsTheApp(account: "alice") == errSecSuccess)

        let found = sandbox.run(
            ["find", "-s", "api.example.com", "-a", "alice", "-w"], profile: nil, environment: ["KEYCHAINCTL_PROFILE": Self.app])
        #expect(found.status == 0, "\(found.stderr)")
        #expect(found.stdout == "s3cret")

        // The extension, built, cannot see it: the library says -25300, explain says why.
        try SecurityTesting.actAs(.profile(path: Self.appex))
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "alice", kSecReturnData as String: true,
        ]
        var result: CFTypeRef?
        #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecItemNotFound)
        let explained = sandbox.run(["explain", "-a", "alice"], profile: nil, environment: ["KEYCHAINCTL_PROFILE": Self.appex])
        #expect(explained.stdout.contains("SKMME9E2Y8.com.example.app"), "\(explained.stdout)")
        #expect(
            explained.stdout.contains("not in this profile's access groups") || explained.stdout.contains("hidden"), "\(explained.stdout)")
        let matrix = sandbox.run(["matrix", "--profile", Self.app, "--profile", Self.appex], profile: nil)
        #expect(matrix.status == 0, "\(matrix.stderr)")
        #expect(matrix.stdout.contains("alice"), "\(matrix.stdout)")
    }

    @Test func whatTheCommandWritesTheLibraryReadsTyped() async throws {
        let sandbox = try Sandbox()
        let added = sandbox.run(
            ["add", "-s", "api.example.com", "-a", "bob", "-w", "hunter2", "-l", "Bob at work"], profile: nil,
            environment: ["KEYCHAINCTL_PROFILE": Self.app])
        #expect(added.status == 0, "\(added.stderr)")
        let lease = try await SecurityTesting.Lease(keychainAt: sandbox.keychain, keyFile: sandbox.keyFile, .profile(path: Self.app))
        defer { withExtendedLifetime(lease) {} }
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "bob",
            kSecReturnData as String: true, kSecReturnAttributes as String: true,
        ]
        var result: CFTypeRef?
        #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
        let item = try #require(result as? [String: Any])
        #expect((item[kSecValueData as String] as? Data).map { String(decoding: $0, as: UTF8.self) } == "hunter2")
        #expect(item[kSecAttrService as String] as? String == "api.example.com")
        #expect(item[kSecAttrAccessGroup as String] as? String == "SKMME9E2Y8.com.example.app")
        #expect(item[kSecAttrLabel as String] as? String == "Bob at work")
        #expect(item[kSecAttrCreationDate as String] is Date)
        #expect(item[kSecAttrSynchronizable as String] as? Bool == false)
    }

    /// The command binds values as the library does: an internet password's port of "" is stored
    /// on iOS and refused on macOS (errSecParam, exit 206), by both faces alike.
    @Test func anEmptyPortIsRefusedOnMacOSByTheCommandToo() throws {
        let sandbox = try Sandbox()
        let add = ["add", "--class", "inet", "--server", "example.com", "--attr", "port="]
        let refused = sandbox.run(add + ["--platform", "macos"], profile: nil, stdin: Data("x".utf8))
        #expect(refused.status == 206)
        #expect(refused.stderr.contains("macOS refuses it"), "\(refused.stderr)")
        let stored = sandbox.run(
            ["add", "--class", "inet", "--server", "example.com", "--attr", "port="], profile: nil, stdin: Data("x".utf8))
        #expect(stored.status == 0, "\(stored.stderr)")
        #expect(sandbox.run(["find", "--class", "inet", "--server", "example.com", "--attr", "port="], profile: nil).status == 0)
    }

    /// An account an app stored as Data is not found by the string of its bytes, by the library
    /// or the command, and explain says why: the kinds differ (Apple's SQLite binding).
    @Test func explainSaysAnAccountStoredAsDataDiffersInKind() async throws {
        let sandbox = try Sandbox()
        let lease = try await SecurityTesting.Lease(keychainAt: sandbox.keychain, keyFile: sandbox.keyFile, .profile(path: Self.app))
        defer { withExtendedLifetime(lease) {} }
        #expect(Self.addAsTheApp(account: Data("alice".utf8)) == errSecSuccess)
        let environment = ["KEYCHAINCTL_PROFILE": Self.app]
        #expect(sandbox.run(["find", "-s", "api.example.com", "-a", "alice"], profile: nil, environment: environment).status == 44)
        let explained = sandbox.run(["explain", "-s", "api.example.com", "-a", "alice"], profile: nil, environment: environment)
        #expect(explained.stdout.contains("result: errSecItemNotFound (-25300)"), "\(explained.stdout)")
        #expect(
            explained.stdout.contains("acct (account) differs: the item holds data, the query gives a string of the same bytes"),
            "\(explained.stdout)")
    }

    /// The testing API's public enums reach every value of the engine's, each by one case of the
    /// same word (`EngineValues.swift`), so no choice a test makes is lost on the way in.
    @Test func theTestingAPIsChoicesReachEveryEngineValue() {
        func check<Public: CaseIterable & RawRepresentable, Engine: CaseIterable & RawRepresentable & Hashable>(
            _: Public.Type, _: Engine.Type, _ engine: (Public) -> Engine
        ) where Public.RawValue == String, Engine.RawValue == String {
            let reached = Public.allCases.map(engine)
            #expect(Set(reached) == Set(Engine.allCases), "\(Public.self) misses some of \(Engine.self)")
            #expect(Set(reached).count == Public.allCases.count, "two cases of \(Public.self) reach one value")
            for value in Public.allCases { #expect(engine(value).rawValue == value.rawValue, "\(value)") }
        }
        check(SecurityTesting.Platform.self, KeychainFormats.Platform.self, \.engine)
        check(SecurityTesting.LockState.self, DeviceState.Lock.self, \.engine)
        check(SecurityTesting.DeviceChange.self, Keychain.DeviceAction.self, \.engine)
        check(SecurityTesting.AuthenticationAnswer.self, Authentication.Answer.self, \.engine)
    }

    /// Runs `body` with an environment of its own (`Environment.overlay`, seen by this test's calls
    /// alone, so nothing calls `setenv` beside the suites running in parallel): no setting
    /// variable, the default folders under `home` (data and config), and whatever `body` sets in
    /// it. The library reads it afresh after each `SecurityTesting.reset()`.
    static func withDefaultsUnder(_ home: String, _ body: (Environment.Overlay) throws -> Void) async throws {
        let lease = try await SecurityTesting.Lease(inMemory: .accessGroups(["SKMME9E2Y8.com.example.app"]))
        defer { withExtendedLifetime(lease) {} }
        let environment = Environment.Overlay(["XDG_DATA_HOME": home + "/data", "XDG_CONFIG_HOME": home + "/config"])
        SecurityTesting.reset()
        defer { SecurityTesting.reset() }
        try Environment.$overlay.withValue(environment) { try body(environment) }
    }

    /// An app's keychain always exists on Apple platforms, so with no set-up and no keychain yet the
    /// first call finds nothing (errSecItemNotFound, not errSecNotAvailable): the default keychain
    /// is made, opened by a new default key file (0600, in a 0700 folder), and the command then
    /// opens it with no variable at all.
    @Test func theFirstCallMakesTheDefaultKeychainAsAnAppsAlwaysExists() async throws {
        let sandbox = try Sandbox()
        let home = sandbox.folder + "/home"
        try await Self.withDefaultsUnder(home) { _ in
            let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "api.example.com"]
            #expect(SecItemCopyMatching(query as CFDictionary, nil) == errSecItemNotFound, "\(SecurityTesting.lastFailure ?? "")")
            #expect(Self.addAsTheApp(account: "alice") == errSecSuccess, "\(SecurityTesting.lastFailure ?? "")")
        }
        #expect(FileManager.default.fileExists(atPath: home + "/data/keychainctl/keychain.db"))
        var status = stat()
        #expect(stat(home + "/config/keychainctl/keychain.key", &status) == 0 && status.st_mode & 0o777 == 0o600)
        #expect(stat(home + "/config/keychainctl", &status) == 0 && status.st_mode & 0o777 == 0o700)
        let defaults = [
            "KEYCHAINCTL_KEYCHAIN": "", "KEYCHAINCTL_KEY_FILE": "", "HOME": home, "XDG_DATA_HOME": home + "/data",
            "XDG_CONFIG_HOME": home + "/config",
        ]
        let program = try Self.programProfile(sandbox)
        let got = sandbox.run(["get", "api.example.com", "--profile", program], profile: nil, environment: defaults)
        #expect(got.status == 0 && got.stdout == "s3cret", "\(got.stderr)")
    }

    /// This test program's profile with no profile given, as `keychainctl profile show --program`
    /// prints it for the file name of the running executable, written to a file in `sandbox`.
    static func programProfile(_ sandbox: Sandbox) throws -> String {
        let name = try #require(Executable.name)
        #expect(name == URL(fileURLWithPath: CommandLine.arguments[0]).lastPathComponent, "the test runs its own executable")
        let shown = sandbox.run(["profile", "show", "--program", name], profile: nil)
        try #require(shown.status == 0, "\(shown.stderr)")
        let path = sandbox.folder + "/program.plist"
        try #require(FileManager.default.createFile(atPath: path, contents: shown.stdoutData))
        return path
    }

    /// With no profile a program is an app of its own, as on Apple platforms: it neither reads what
    /// `keychainctl set` stored in the same keychain nor deletes it with a delete of a whole class
    /// (a test suite's `clear()`), and the command reads the program's items only as the program,
    /// through the profile `profile show --program` prints. Given the same profile, they share.
    @Test func aProgramWithNoProfileIsAnAppOfItsOwn() async throws {
        let sandbox = try Sandbox()
        let home = sandbox.folder + "/home"
        let defaults = [
            "KEYCHAINCTL_KEYCHAIN": "", "KEYCHAINCTL_KEY_FILE": "", "HOME": home, "XDG_DATA_HOME": home + "/data",
            "XDG_CONFIG_HOME": home + "/config",
        ]
        #expect(sandbox.run(["init"], profile: nil, environment: defaults).status == 0)
        #expect(sandbox.run(["set", "deploy-token"], profile: nil, stdin: Data("tok".utf8), environment: defaults).status == 0)
        let everyPassword: [String: Any] = [kSecClass as String: kSecClassGenericPassword]
        let token: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "deploy-token", kSecReturnData as String: true,
        ]
        var missed = ""
        try await Self.withDefaultsUnder(home) { _ in
            var result: CFTypeRef?
            #expect(SecItemCopyMatching(token as CFDictionary, &result) == errSecItemNotFound, "the script's secret is not the program's")
            missed = SecurityTesting.lastFailure ?? ""
            #expect(Self.addAsTheApp(account: "alice") == errSecSuccess, "\(SecurityTesting.lastFailure ?? "")")
            #expect(SecItemDelete(everyPassword as CFDictionary) == errSecSuccess, "its own item deleted")
            #expect(Self.addAsTheApp(account: "bob") == errSecSuccess)
        }
        #expect(sandbox.run(["get", "deploy-token"], profile: nil, environment: defaults).stdout == "tok", "the script's secret kept")
        #expect(sandbox.run(["get", "api.example.com"], profile: nil, environment: defaults).status == 44, "not the command's")
        let program = try Self.programProfile(sandbox)
        let group = BuiltInProfile.programGroup(executable: Executable.name)
        let found = sandbox.run(
            ["find", "-s", "api.example.com", "--format", "json", "--profile", program], profile: nil, environment: defaults)
        #expect(found.status == 0 && found.stdout.contains("\"bob\"") && found.stdout.contains(group), "\(found.stderr)")
        // A secret given to the program by a script, as the program's own, with the profile the
        // program's miss says to print, run as printed.
        #expect(missed.contains("no profile, so it is an app of its own") && missed.contains(group), "\(missed)")
        let printed = try #require(missed.components(separatedBy: "the profile '").last?.components(separatedBy: "' prints").first)
        let made = sandbox.run(
            ["-c", printed + " > printed.plist"], profile: nil,
            environment: defaults.merging(["PATH": try sandbox.pathWithKeychainctl()]) { $1 },
            executable: "/bin/sh", inFolder: true)
        #expect(made.status == 0, "\(printed): \(made.stderr)")
        let given = sandbox.run(
            ["set", "db-password", "--profile", sandbox.folder + "/printed.plist"], profile: nil, stdin: Data("pw".utf8),
            environment: defaults)
        #expect(given.status == 0, "\(given.stderr)")
        // The same profile for both (the user default here): they share the command's group.
        let path = sandbox.run(["profile", "path"], profile: nil, environment: defaults).stdout.trimmingCharacters(in: .newlines)
        let shown = sandbox.run(["profile", "show"], profile: nil, environment: defaults)
        try #require(FileManager.default.createFile(atPath: path, contents: shown.stdoutData))
        try await Self.withDefaultsUnder(home) { _ in
            var result: CFTypeRef?
            #expect(SecItemCopyMatching(token as CFDictionary, &result) == errSecSuccess, "\(SecurityTesting.lastFailure ?? "")")
            #expect(result as? Data == Data("tok".utf8))
        }
        try FileManager.default.removeItem(atPath: path)
        try await Self.withDefaultsUnder(home) { _ in
            var result: CFTypeRef?
            let given: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "db-password", kSecReturnData as String: true,
            ]
            #expect(SecItemCopyMatching(given as CFDictionary, &result) == errSecSuccess, "\(SecurityTesting.lastFailure ?? "")")
            #expect(result as? Data == Data("pw".utf8))
        }
    }

    /// App code that names its app's group, run with no profile, is errSecMissingEntitlement as an
    /// app without that entitlement is; the failure says the program is an app of its own and how
    /// to act as the app, and done so (what Xcode built, as KEYCHAINCTL_PROFILE) the same add works.
    @Test func aProgramNamingItsAppsGroupIsToldHowToActAsTheApp() async throws {
        let sandbox = try Sandbox()
        let add: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "alice",
            kSecAttrAccessGroup as String: "SKMME9E2Y8.com.example.app", kSecValueData as String: Data("s3cret".utf8),
        ]
        try await Self.withDefaultsUnder(sandbox.folder + "/home") { environment in
            #expect(SecItemAdd(add as CFDictionary, nil) == errSecMissingEntitlement)
            let failure = SecurityTesting.lastFailure ?? ""
            #expect(failure.contains("given no profile, so it is an app of its own"), "\(failure)")
            #expect(failure.contains("KEYCHAINCTL_PROFILE=PATH"), "\(failure)")
            environment["KEYCHAINCTL_PROFILE"] = Self.app
            SecurityTesting.reset()
            #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess, "\(SecurityTesting.lastFailure ?? "")")
        }
    }

    /// A program's group is made of its executable's file name, whatever bytes that holds: never a
    /// control character, a space or a second namespace, never empty, never unbounded.
    @Test(arguments: [
        ("myserver", "keychainctl.program.myserver"), ("LoginPackageTests.xctest", "keychainctl.program.LoginPackageTests.xctest"),
        ("my server\u{1B}[2J", "keychainctl.program.my_server__2J"), ("caf\u{E9}", "keychainctl.program.caf_"),
        ("", "keychainctl.program.unnamed"), ("a*b", "keychainctl.program.a_b"),
    ])
    func aProgramsGroupIsItsNameMadeSafe(name: String, group: String) {
        #expect(BuiltInProfile.programGroup(executable: name) == group)
        #expect(BuiltInProfile.programGroup(executable: nil) == "keychainctl.program.unnamed")
        #expect(BuiltInProfile.programGroup(executable: String(repeating: "x", count: 5000)).utf8.count == 20 + 200)
    }

    /// No executable name reaches a group outside the programs' own namespace: whatever bytes the
    /// name holds, the group is `keychainctl.program.` and safe characters, never the command's
    /// group or an app's, and `program(ofGroup:)` gives back the name that made it.
    @Test func noExecutableNameReachesAnotherGroup() {
        var generator = SeededRandom()
        let alphabet = Array("aZ09.-_ *$/\u{1B}\u{0}\u{E9}\u{202E}".unicodeScalars)
        for _ in 0..<2000 {
            let name = String(
                String.UnicodeScalarView(
                    (0..<Int.random(in: 0...24, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }))
            let group = BuiltInProfile.programGroup(executable: name)
            let rest = group.dropFirst("keychainctl.program.".count)
            #expect(group.hasPrefix("keychainctl.program.") && !rest.isEmpty, "\(name.debugDescription) → \(group), \(generator)")
            #expect(
                rest.unicodeScalars.allSatisfy {
                    $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || ".-_".unicodeScalars.contains($0))
                }, "\(name.debugDescription), \(generator)")
            #expect(BuiltInProfile.program(ofGroup: group).map(BuiltInProfile.programGroup(executable:)) == group, "\(generator)")
        }
        for other in [BuiltInProfile.group, "SKMME9E2Y8.com.example.app", "keychainctl.program.", "keychainctl.program.a b"] {
            #expect(BuiltInProfile.program(ofGroup: other) == nil, "\(other)")
        }
    }

    /// A program keeps its name, so its group, when its file is replaced while it runs (a package
    /// upgrade makes the kernel's link end in ` (deleted)`); a name that only looks so stays whole.
    @Test func aProgramReplacedWhileRunningKeepsItsName() {
        #expect(Executable.name(ofPath: "/usr/bin/myserver (deleted)", linkedByKernel: true) == "myserver")
        #expect(Executable.name(ofPath: "/usr/bin/myserver", linkedByKernel: true) == "myserver")
        #expect(Executable.name(ofPath: "./odd (deleted)", linkedByKernel: false) == "odd (deleted)")
        #expect(Executable.name(ofPath: "", linkedByKernel: false) == nil)
        #expect(Executable.name(ofPath: "/", linkedByKernel: true) == nil)
    }

    /// Only the default keychain is made on first use: a keychain a variable names, or a key one
    /// names, that is not there is errSecNotAvailable saying to run init, and nothing is created (a
    /// typo must not get a new, empty keychain). One that cannot be made says why.
    @Test func aNamedKeychainThatIsMissingIsNotMade() async throws {
        let sandbox = try Sandbox()
        let home = sandbox.folder + "/home"
        try await Self.withDefaultsUnder(home) { environment in
            environment["KEYCHAINCTL_KEYCHAIN"] = home + "/typo.db"
            SecurityTesting.reset()
            #expect(Self.addAsTheApp(account: "alice") == errSecNotAvailable)
            #expect(SecurityTesting.lastFailure?.contains("keychainctl init") == true, "\(SecurityTesting.lastFailure ?? "")")
            environment["KEYCHAINCTL_KEYCHAIN"] = nil
            environment["KEYCHAINCTL_KEY_FILE"] = home + "/typo.key"
            SecurityTesting.reset()
            #expect(Self.addAsTheApp(account: "alice") == errSecNotAvailable)
            environment["KEYCHAINCTL_KEY_FILE"] = nil
            #expect(!FileManager.default.fileExists(atPath: home), "nothing was made")

            // A data folder that is a file: the keychain cannot be made, and the failure says so.
            try #require(FileManager.default.createFile(atPath: sandbox.folder + "/not-a-folder", contents: Data()))
            environment["XDG_DATA_HOME"] = sandbox.folder + "/not-a-folder"
            SecurityTesting.reset()
            #expect(Self.addAsTheApp(account: "alice") == errSecNotAvailable)
            #expect(SecurityTesting.lastFailure?.contains("could not be created") == true, "\(SecurityTesting.lastFailure ?? "")")
        }
    }

    /// A default key file already there is read as every key file is, never replaced: one that is
    /// not a key, or that others may read, stops the first call (errSecNotAvailable, nothing made),
    /// and the fix the refusal prints, run as printed, lets the next call make the keychain.
    @Test func aDefaultKeyFileThatCannotBeUsedIsNeverReplaced() async throws {
        let sandbox = try Sandbox()
        let home = sandbox.folder + "/home"
        let keyFile = home + "/config/keychainctl/keychain.key"
        try FileManager.default.createDirectory(atPath: home + "/config/keychainctl", withIntermediateDirectories: true)
        try #require(FileManager.default.createFile(atPath: keyFile, contents: Data("not a key\u{1B}[2J\n".utf8)))
        chmod(keyFile, 0o600)
        try await Self.withDefaultsUnder(home) { _ in
            #expect(Self.addAsTheApp(account: "alice") == errSecNotAvailable)
            #expect(SecurityTesting.lastFailure?.contains("could not be created") == true, "\(SecurityTesting.lastFailure ?? "")")
            #expect(SecurityTesting.lastFailure?.contains("\u{1B}") == false, "control characters escaped")
        }
        #expect(try String(contentsOfFile: keyFile, encoding: .utf8) == "not a key\u{1B}[2J\n", "never replaced")
        #expect(!FileManager.default.fileExists(atPath: home + "/data/keychainctl/keychain.db"))

        // A real key, readable by others: refused with ssh's fix, which then works.
        let made = sandbox.run(
            ["init", "--keychain", sandbox.folder + "/scratch.db", "--generate-key-file", sandbox.folder + "/k"], profile: nil)
        #expect(made.status == 0, "\(made.stderr)")
        try FileManager.default.removeItem(atPath: keyFile)
        try FileManager.default.copyItem(atPath: sandbox.folder + "/k", toPath: keyFile)
        chmod(keyFile, 0o644)
        try await Self.withDefaultsUnder(home) { _ in
            #expect(Self.addAsTheApp(account: "alice") == errSecNotAvailable)
            let failure = SecurityTesting.lastFailure ?? ""
            let fix = try #require(
                failure.components(separatedBy: "run '").dropFirst().first?.components(separatedBy: "'").first, "\(failure)")
            #expect(fix == "chmod 600 \(keyFile)")
            let fixed = sandbox.run(["/bin/sh", "-c", fix], profile: nil, executable: "/usr/bin/env")
            #expect(fixed.status == 0, "\(fixed.stderr)")
            SecurityTesting.reset()
            #expect(Self.addAsTheApp(account: "alice") == errSecSuccess, "\(SecurityTesting.lastFailure ?? "")")
        }
        #expect(FileManager.default.contentsEqual(atPath: keyFile, andPath: sandbox.folder + "/k"))
    }

    /// The command a missing named keychain's refusal names, run as printed in the program's
    /// environment, makes the keychain, and what it says to give the program next opens it: for a
    /// keychain a variable names, and for a key file a variable names that is not there either.
    @Test func aMissingKeychainsHintWorksAsPrinted() async throws {
        let sandbox = try Sandbox()
        let home = sandbox.folder + "/home"
        let folder = URL(fileURLWithPath: Sandbox.binary).deletingLastPathComponent().path
        /// Runs `command` in sh with the variables the library reads, as the user's shell has them.
        func shell(_ command: String, _ variables: [String: String]) -> Sandbox.Run {
            sandbox.run(
                ["/bin/sh", "-c", command], profile: nil,
                environment: ["PATH": folder + ":/usr/bin:/bin", "HOME": home, "KEYCHAINCTL_KEYCHAIN": "", "KEYCHAINCTL_KEY_FILE": ""]
                    .merging(variables) { $1 },
                executable: "/usr/bin/env")
        }
        func hint(_ failure: String?) throws -> (command: String, then: String?) {
            let text = try #require(failure)
            let command = try #require(
                text.components(separatedBy: "create it with '").dropFirst().first?.components(separatedBy: "'.").first)
            return (command, text.components(separatedBy: "Then give this program ").dropFirst().first.map { String($0.dropLast()) })
        }
        try await Self.withDefaultsUnder(home) { environment in
            let data = ["XDG_DATA_HOME": home + "/data", "XDG_CONFIG_HOME": home + "/config"]
            let named = data.merging(["KEYCHAINCTL_KEYCHAIN": sandbox.folder + "/named.db"]) { $1 }
            for (name, value) in named { environment[name] = value }
            SecurityTesting.reset()
            #expect(Self.addAsTheApp(account: "alice") == errSecNotAvailable)
            let first = try hint(SecurityTesting.lastFailure)
            #expect(
                first.command.hasPrefix("keychainctl init --generate-key-file ") && first.command.hasSuffix("/named.db.key"), "\(first)")
            let made = shell(first.command, named)
            #expect(made.status == 0, "\(made.stderr)")
            let variable = try #require(first.then?.split(separator: "=", maxSplits: 1).map(String.init))
            #expect(variable.first == "KEYCHAINCTL_KEY_FILE")
            environment[variable[0]] = variable[1].trimmingCharacters(in: CharacterSet(charactersIn: "'"))
            SecurityTesting.reset()
            #expect(Self.addAsTheApp(account: "alice") == errSecSuccess, "\(SecurityTesting.lastFailure ?? "")")

            // The default keychain with a key file a variable names and nobody made.
            environment["KEYCHAINCTL_KEYCHAIN"] = nil
            let keyNamed = data.merging(["KEYCHAINCTL_KEY_FILE": sandbox.folder + "/chosen.key"]) { $1 }
            environment["KEYCHAINCTL_KEY_FILE"] = sandbox.folder + "/chosen.key"
            SecurityTesting.reset()
            #expect(Self.addAsTheApp(account: "bob") == errSecNotAvailable)
            let second = try hint(SecurityTesting.lastFailure)
            #expect(second.then == nil)
            #expect(shell(second.command, keyNamed).status == 0)
            SecurityTesting.reset()
            #expect(Self.addAsTheApp(account: "bob") == errSecSuccess, "\(SecurityTesting.lastFailure ?? "")")
        }
    }

    /// With no testing set-up, the library finds its keychain, key and caller where the command does,
    /// from the same variables; a variable it cannot use is errSecNotAvailable, saying which.
    @Test func withoutSetUpTheLibraryReadsTheCommandsVariables() async throws {
        let sandbox = try Sandbox()
        let lease = try await SecurityTesting.Lease(keychainAt: sandbox.keychain, keyFile: sandbox.keyFile, .profile(path: Self.app))
        defer { withExtendedLifetime(lease) {} }
        let variables = [
            "KEYCHAINCTL_KEYCHAIN": sandbox.keychain, "KEYCHAINCTL_KEY_FILE": sandbox.keyFile, "KEYCHAINCTL_PROFILE": Self.app,
        ]
        let environment = Environment.Overlay(variables)
        SecurityTesting.reset()
        defer { SecurityTesting.reset() }
        try Environment.$overlay.withValue(environment) {
            #expect(Self.addAsTheApp(account: "from-the-environment") == errSecSuccess)
            let found = sandbox.run(
                ["find", "-s", "api.example.com", "-a", "from-the-environment", "-w"], profile: nil, environment: variables)
            #expect(found.stdout == "s3cret", "\(found.stderr)")

            environment["KEYCHAINCTL_PLATFORM"] = "plan9"
            SecurityTesting.reset()
            #expect(Self.addAsTheApp(account: "other") == errSecNotAvailable)
            #expect(SecurityTesting.lastFailure == "KEYCHAINCTL_PLATFORM is 'plan9'; use ios or macos.")
            // What the testing API chose does not read the environment at all.
            try SecurityTesting.useInMemoryKeychain(.accessGroups(["SKMME9E2Y8.com.example.app"]))
            #expect(Self.addAsTheApp(account: "other") == errSecSuccess)
        }
    }
}
