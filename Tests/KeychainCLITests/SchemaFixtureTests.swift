import Foundation
import KeychainCore
import KeychainTestSupport
import Testing

/// Keychains written by earlier schema versions open, read and write with the current binary.
@Suite struct SchemaFixtureTests {
    static let fixtures = PackagePaths.fixtures + "/Keychains"

    @Test func schemaVersion1() throws {
        let sandbox = try Sandbox(initialize: false)
        let (_, environment) = try Fixtures.schemaKeychain(version: 1, into: sandbox)
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
        let (_, environment) = try Fixtures.schemaKeychain(version: 2, into: sandbox)
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
        #expect((try verified.json() as? [String: Any])?["version"] as? Int == 5)
    }

    /// A version-3 file (written locked, by the release of device states) gains its `accc` column
    /// without its locked class being opened: it stays locked, every item keeps its secret, each
    /// shows its protection as its access control, and the file's objects are stored in a new
    /// file's order (the schema check's fast path).
    @Test func schemaVersion3() throws {
        let sandbox = try Sandbox(initialize: false)
        let (keychain, environment) = try Fixtures.schemaKeychain(version: 3, into: sandbox)
        #expect(sandbox.run(["find", "-s", "fixture", "-a", "v3"], environment: environment).status == 36)
        #expect(sandbox.run(["device"], profile: nil, environment: environment).stdout.hasPrefix("state: locked\n"))
        let ck = sandbox.run(["find", "-s", "fixture", "-a", "ck", "--format", "json"], environment: environment)
        #expect((try ck.json() as? [String: Any])?["accc"] as? String == "ck")
        #expect(sandbox.run(["device", "unlock"], profile: nil, environment: environment).status == 0)
        #expect(sandbox.run(["find", "-s", "fixture", "-a", "v3", "-w"], environment: environment).stdout == "written-by-schema-3")
        #expect(
            sandbox.run(["find", "-s", "fixture", "-a", "synced2", "--sync", "yes", "-w"], environment: environment).stdout == "synced")
        let verified = sandbox.run(["verify", "--format", "json"], profile: nil, environment: environment)
        #expect((try verified.json() as? [String: Any])?["version"] as? Int == 5)
        #expect(verified.status == 0, "\(verified.stderr)")
        let dump = try Self.schemaDump(keychain)
        #expect(try dump == Self.schemaDump(ofNew: sandbox))
    }

    /// A file of today's format (version 5), committed: every kind of item opens with the current
    /// binary, its schema is a new file's, and it verifies. A change to the format that only reads
    /// the files it writes itself fails here.
    @Test func schemaVersion5IsTodaysFormat() throws {
        let sandbox = try Sandbox(initialize: false)
        let (keychain, environment) = try Fixtures.schemaKeychain(version: 5, into: sandbox)
        func run(_ arguments: [String]) -> Sandbox.Run { sandbox.run(arguments, environment: environment) }
        #expect(run(["find", "-s", "fixture", "-a", "v5", "-w"]).stdout == "written-by-schema-5")
        let inet = run([
            "find", "--class", "inet", "--server", "example.com", "--port", "443", "--return", "data,attributes", "--format", "json",
        ])
        let object = try #require(try inet.json() as? [String: Any], "\(inet.stderr)")
        #expect(object["v_Data"] as? String == Data("inet-v5".utf8).base64EncodedString())
        #expect(object["binn"] as? String == Data("field-v5".utf8).base64EncodedString())
        #expect(run(["find", "-s", "fixture", "-a", "synced5", "--sync", "yes", "-w"]).stdout == "synced")
        #expect(run(["find", "-s", "fixture", "-a", "gone", "--sync", "yes"]).status == 44)
        #expect(run(["find", "-s", "fixture", "-a", "guarded", "-w", "--auth", "approve"]).stdout == "guarded")
        #expect(run(["find", "-s", "fixture", "-a", "guarded", "-w", "--auth", "cancel"]).status == 128)
        let identity = run(["find", "--class", "idnt", "--format", "json"])
        #expect((try identity.json() as? [String: Any])?["labl"] as? String == "ci signing", "\(identity.stderr)")
        let verified = sandbox.run(["verify", "--format", "json"], profile: nil, environment: environment)
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect((try verified.json() as? [String: Any])?["version"] as? Int == 5)
        #expect(try Self.schemaDump(keychain) == Self.schemaDump(ofNew: sandbox))
    }

    /// `sqlite_schema`'s names in storage order.
    static func schemaDump(_ path: String) throws -> [String] {
        let connection = try SQLiteConnection(path: path, create: false)
        let rows = try connection.prepare("SELECT type || ' ' || name || ' ' || coalesce(sql, '') FROM sqlite_schema")
        var dump: [String] = []
        while try rows.step() { dump.append(rows.text(0)) }
        return dump
    }

    /// The same for a keychain `init` creates now.
    static func schemaDump(ofNew sandbox: Sandbox) throws -> [String] {
        let path = sandbox.folder + "/new.db"
        #expect(sandbox.run(["init", "--keychain", path, "--generate-key-file", sandbox.folder + "/new.key"], profile: nil).status == 0)
        return try schemaDump(path)
    }
}
