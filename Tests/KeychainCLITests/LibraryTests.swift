import Foundation
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

    @Test func whatTheLibraryWritesTheCommandShowsAndExplains() throws {
        let sandbox = try Sandbox()
        let lease = try SecurityTesting.Lease(keychainAt: sandbox.keychain, keyFile: sandbox.keyFile, .profile(path: Self.app))
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

    @Test func whatTheCommandWritesTheLibraryReadsTyped() throws {
        let sandbox = try Sandbox()
        let added = sandbox.run(
            ["add", "-s", "api.example.com", "-a", "bob", "-w", "hunter2", "-l", "Bob at work"], profile: nil,
            environment: ["KEYCHAINCTL_PROFILE": Self.app])
        #expect(added.status == 0, "\(added.stderr)")
        let lease = try SecurityTesting.Lease(keychainAt: sandbox.keychain, keyFile: sandbox.keyFile, .profile(path: Self.app))
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
    @Test func explainSaysAnAccountStoredAsDataDiffersInKind() throws {
        let sandbox = try Sandbox()
        let lease = try SecurityTesting.Lease(keychainAt: sandbox.keychain, keyFile: sandbox.keyFile, .profile(path: Self.app))
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

    /// With no testing set-up, the library finds its keychain, key and caller where the command does,
    /// from the same variables; a variable it cannot use is errSecNotAvailable, saying which.
    @Test func withoutSetUpTheLibraryReadsTheCommandsVariables() throws {
        let sandbox = try Sandbox()
        let lease = try SecurityTesting.Lease(keychainAt: sandbox.keychain, keyFile: sandbox.keyFile, .profile(path: Self.app))
        defer { withExtendedLifetime(lease) {} }
        let variables = [
            "KEYCHAINCTL_KEYCHAIN": sandbox.keychain, "KEYCHAINCTL_KEY_FILE": sandbox.keyFile, "KEYCHAINCTL_PROFILE": Self.app,
        ]
        for (name, value) in variables { setenv(name, value, 1) }
        defer { for name in variables.keys + ["KEYCHAINCTL_PLATFORM"] { unsetenv(name) } }
        SecurityTesting.reset()
        #expect(Self.addAsTheApp(account: "from-the-environment") == errSecSuccess)
        let found = sandbox.run(
            ["find", "-s", "api.example.com", "-a", "from-the-environment", "-w"], profile: nil, environment: variables)
        #expect(found.stdout == "s3cret", "\(found.stderr)")

        setenv("KEYCHAINCTL_PLATFORM", "plan9", 1)
        SecurityTesting.reset()
        #expect(Self.addAsTheApp(account: "other") == errSecNotAvailable)
        #expect(SecurityTesting.lastFailure == "KEYCHAINCTL_PLATFORM is 'plan9'; use ios or macos.")
        // What the testing API chose does not read the environment at all.
        try SecurityTesting.useInMemoryKeychain(.accessGroups(["SKMME9E2Y8.com.example.app"]))
        #expect(Self.addAsTheApp(account: "other") == errSecSuccess)
    }
}
