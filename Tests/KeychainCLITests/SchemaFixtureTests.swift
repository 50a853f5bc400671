import Foundation
import Testing

/// Keychains written by earlier schema versions open, read and write with the current binary.
@Suite struct SchemaFixtureTests {
    static let fixtures: String = {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        return root.appendingPathComponent("Fixtures/Keychains").path
    }()

    /// A copy of `schema-vN.db` in `sandbox`, and the environment that opens it with its key.
    static func copy(version: Int, into sandbox: Sandbox) throws -> (path: String, environment: [String: String]) {
        let keychain = sandbox.folder + "/schema-v\(version).db"
        try FileManager.default.copyItem(atPath: fixtures + "/schema-v\(version).db", toPath: keychain)
        // A checkout gives the key file the umask's mode; keychainctl only reads a private one.
        let key = sandbox.folder + "/schema-v\(version).key"
        try FileManager.default.copyItem(atPath: fixtures + "/schema-v\(version).key", toPath: key)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: key)
        return (keychain, ["KEYCHAINCTL_KEYCHAIN": keychain, "KEYCHAINCTL_KEY_FILE": key])
    }

    @Test func schemaVersion1() throws {
        let sandbox = try Sandbox(initialize: false)
        let (_, environment) = try Self.copy(version: 1, into: sandbox)
        #expect(sandbox.run(["find", "-s", "fixture", "-a", "v1", "-w"], environment: environment).stdout == "written-by-schema-1")
        #expect(
            sandbox.run(["find", "--class", "inet", "--server", "example.com", "--port", "443", "-w"], environment: environment).stdout
                == "inet-v1")
        #expect(sandbox.run(["find", "-s", "fixture", "-a", "synced", "--sync", "any"], environment: environment).status == 44)
        #expect(
            sandbox.run(["add", "-s", "fixture", "-a", "synced", "--sync", "yes"], stdin: Data("again".utf8), environment: environment)
                .status == 0)
        #expect(sandbox.run(["find", "-s", "fixture", "-a", "synced", "--sync", "yes", "-w"], environment: environment).stdout == "again")
    }

    /// A version-2 file gains a fresh device (unlocked, passcode, biometry) and keeps every item;
    /// its classes then follow the lock.
    @Test func schemaVersion2() throws {
        let sandbox = try Sandbox(initialize: false)
        let (_, environment) = try Self.copy(version: 2, into: sandbox)
        #expect(sandbox.run(["find", "-s", "fixture", "-a", "v2", "-w"], environment: environment).stdout == "written-by-schema-2")
        #expect(
            sandbox.run(["device"], profile: nil, environment: environment).stdout == "state: unlocked\npasscode: set\nbiometry: enrolled\n"
        )
        for (account, secret) in [("akpu", "passcode-bound"), ("ck", "after-first-unlock"), ("dk", "always")] {
            #expect(sandbox.run(["find", "-s", "fixture", "-a", account, "-w"], environment: environment).stdout == secret)
        }
        #expect(sandbox.run(["device", "reboot"], profile: nil, environment: environment).status == 0)
        #expect(sandbox.run(["find", "-s", "fixture", "-a", "ck"], environment: environment).status == 36)
        #expect(sandbox.run(["find", "-s", "fixture", "-a", "dk", "-w"], environment: environment).stdout == "always")
        let verified = sandbox.run(["verify", "--format", "json", "--device-state", "unlocked"], profile: nil, environment: environment)
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect((try verified.json() as? [String: Any])?["version"] as? Int == 3)
    }
}
