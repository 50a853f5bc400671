import Foundation
import Testing

/// The command-line contract (docs/REFERENCE.md) through the real binary: exit statuses, stdout, stderr.
@Suite struct EndToEndTests {

    @Test func initMakesPrivateFilesAndNeverOverwrites() throws {
        let sandbox = try Sandbox()
        let fileMode = try FileManager.default.attributesOfItem(atPath: sandbox.keychain)[.posixPermissions] as? Int
        let keyMode = try FileManager.default.attributesOfItem(atPath: sandbox.keyFile)[.posixPermissions] as? Int
        let folderMode = try FileManager.default.attributesOfItem(atPath: sandbox.folder + "/data")[.posixPermissions] as? Int
        #expect(fileMode == 0o600)
        #expect(keyMode == 0o600)
        #expect(folderMode == 0o700)
        let again = sandbox.run(["init", "--generate-key-file", sandbox.folder + "/key2"], profile: nil)
        #expect(again.status == 48)
        #expect(again.stderr.contains("errSecDuplicateKeychain"))
        #expect(!FileManager.default.fileExists(atPath: sandbox.folder + "/key2"))
    }

    /// A string and data of the same bytes are two values, as in Apple's tables (a CFString bound
    /// as text, a CFData as a blob): two items, each found only by its own kind (docs/FIDELITY.md).
    @Test func aStringAndDataOfTheSameBytesAreTwoValues() throws {
        let sandbox = try Sandbox()
        let data = "base64:" + Data("alice".utf8).base64EncodedString()
        #expect(sandbox.add(["-s", "svc", "-a", "alice"], secret: "as-string").status == 0)
        #expect(sandbox.add(["-s", "svc", "--attr", "acct=" + data], secret: "as-data").status == 0, "not a duplicate")
        #expect(sandbox.run(["find", "-s", "svc", "-a", "alice", "-w"]).stdout == "as-string")
        #expect(sandbox.run(["find", "-s", "svc", "--attr", "acct=" + data, "-w"]).stdout == "as-data")
        #expect(sandbox.add(["-s", "svc", "-a", "alice"], secret: "again").status == 45, "the string one is a duplicate of itself")
    }

    @Test func noKeyAndNoTerminalIsConfigurationError() throws {
        let sandbox = try Sandbox(initialize: false)
        let run = sandbox.run(["init"], profile: nil, environment: ["KEYCHAINCTL_KEY_FILE": ""])
        #expect(run.status == 78)
        #expect(run.stderr.contains("no key for the new keychain") && run.stderr.contains("no terminal to ask a passphrase on"))
        #expect(!FileManager.default.fileExists(atPath: sandbox.keychain), "nothing was created")
    }

    @Test func passphraseFromEnvironmentAndDescriptor() throws {
        let sandbox = try Sandbox(initialize: false)
        let environment = ["KEYCHAINCTL_KEY_FILE": "", "KEYCHAINCTL_PASSPHRASE": "correct horse"]
        #expect(sandbox.run(["init", "--kdf", "interactive"], profile: nil, environment: environment).status == 0)
        #expect(sandbox.run(["add", "-s", "api"], stdin: Data("x".utf8), environment: environment).status == 0)
        let wrong = sandbox.run(["find", "-s", "api"], environment: ["KEYCHAINCTL_KEY_FILE": "", "KEYCHAINCTL_PASSPHRASE": "wrong"])
        #expect(wrong.status == 51)
        #expect(wrong.stderr.contains("errSecAuthFailed -25293"))
        // --passphrase-fd 0 reads the passphrase from standard input (one trailing newline dropped).
        let viaFD = sandbox.run(
            ["find", "-s", "api", "--passphrase-fd", "0"], stdin: Data("correct horse\n".utf8), environment: ["KEYCHAINCTL_KEY_FILE": ""])
        #expect(viaFD.status == 0, "\(viaFD.stderr)")
    }

    @Test func secretBytesAreKeptExactly() throws {
        let sandbox = try Sandbox()
        let bytes = Data([0x00, 0x0A, 0xFF, 0x41, 0x0A])
        #expect(sandbox.run(["add", "-s", "bin"], stdin: bytes).status == 0)
        #expect(sandbox.run(["find", "-s", "bin", "-w"]).stdoutData == bytes)
        #expect(sandbox.run(["add", "-s", "strip", "--strip-newline"], stdin: Data("tok\n".utf8)).status == 0)
        #expect(sandbox.run(["find", "-s", "strip", "-w"]).stdout == "tok")
        let file = sandbox.folder + "/secret.bin"
        try #require(FileManager.default.createFile(atPath: file, contents: bytes))
        #expect(sandbox.run(["add", "-s", "file", "--data-file", file]).status == 0)
        #expect(sandbox.run(["find", "-s", "file", "-w"]).stdoutData == bytes)
    }

    @Test func passwordOnTheCommandLineWarns() throws {
        let sandbox = try Sandbox()
        let run = sandbox.run(["add", "-s", "api", "-w", "visible-secret"])
        #expect(run.status == 0)
        #expect(run.stderr.contains("process list"))
        #expect(!run.stderr.contains("visible-secret"))
    }

    @Test func theDemoStory() throws {
        let sandbox = try Sandbox()
        #expect(sandbox.add(["-s", "api", "-a", "ci", "-g", Fixtures.sharedGroup], secret: "t0ken").status == 0)
        let extensionRead = sandbox.run(["find", "-s", "api", "-a", "ci", "-w"], profile: "share-extension.plist")
        #expect(extensionRead.status == 0)
        #expect(extensionRead.stdout == "t0ken")
        let widget = sandbox.run(["find", "-s", "api", "-a", "ci"], profile: "widget.plist")
        #expect(widget.status == 44)
        #expect(
            widget.stderr.hasPrefix("keychainctl: no generic password matches")
                && widget.stderr.hasSuffix("\n(errSecItemNotFound -25300: The specified item could not be found in the keychain.)\n"))
        #expect(widget.stderr.contains("SKMME9E2Y8.com.example.app.widget, group.com.example"))
        let unprefixed = sandbox.add(["-s", "api", "-g", "com.example.shared"])
        #expect(unprefixed.status == 30)
        #expect(unprefixed.stderr.contains("Did you mean '\(Fixtures.sharedGroup)'?"))
        #expect(sandbox.add(["-s", "synced", "--sync", "yes"]).status == 0)
        #expect(sandbox.run(["find", "-s", "synced"]).status == 44)
        #expect(sandbox.run(["find", "-s", "synced", "--sync", "any"]).status == 0)
    }

    /// Attribute text reaches JSON escaped and comes back byte for byte: quotes, backslashes,
    /// every control character (an escape sequence included), DEL, and non-ASCII text.
    @Test func jsonEscapesAttributeTextAndKeepsItExact() throws {
        let sandbox = try Sandbox()
        let label = "q\" b\\ n\n r\r t\t esc\u{1B}[31m bel\u{07} us\u{1F} del\u{7F} é ✓ /"
        sandbox.add(["-s", "escapes", "-l", label], secret: "pw")
        let result = sandbox.run(["find", "-s", "escapes", "--format", "json"])
        #expect(result.status == 0)
        #expect(!result.stdoutData.contains(0x1B) && !result.stdoutData.contains(0x07) && !result.stdoutData.contains(0x7F))
        #expect(result.stdout.contains(#"q\" b\\ n\n r\r t\t esc\u001b[31m bel\u0007 us\u001f del\u007f é ✓ /"#))
        let item = try result.json() as? [String: Any]
        #expect(item?["labl"] as? String == label)
    }

    @Test func jsonShapesFollowSecItemCopyMatching() throws {
        let sandbox = try Sandbox()
        sandbox.add(
            ["--class", "inet", "--server", "example.com", "-a", "u", "--protocol", "https", "--port", "443", "-l", "Example"], secret: "pw"
        )
        sandbox.add(["--class", "inet", "--server", "example.com", "-a", "v"], secret: "pw2")
        let one =
            try sandbox.run(["find", "--class", "inet", "--server", "example.com", "-a", "u", "--format", "json"]).json() as? [String: Any]
        #expect(one?["class"] as? String == "inet")
        #expect(one?["port"] as? Int == 443)
        #expect(one?["ptcl"] as? String == "htps")
        #expect(one?["sync"] as? Bool == false)
        #expect(one?["v_Data"] == nil)
        #expect((one?["cdat"] as? String)?.hasSuffix("Z") == true)
        let all = try sandbox.run(["find", "--class", "inet", "--limit", "all", "--format", "json"]).json() as? [[String: Any]]
        #expect(all?.count == 2)
        let single =
            try sandbox.run(["find", "--class", "inet", "--limit", "all", "-a", "u", "--format", "json"]).json() as? [[String: Any]]
        #expect(single?.count == 1)
        let bare = try sandbox.run(["find", "--class", "inet", "-a", "u", "--return", "data", "--format", "json"]).json() as? String
        #expect(bare == Data("pw".utf8).base64EncodedString())
        let pair =
            try sandbox.run(["find", "--class", "inet", "-a", "u", "--return", "data,persistent-ref", "--format", "json"]).json()
            as? [String: Any]
        #expect(Set(pair?.keys.map { $0 } ?? []) == ["v_Data", "v_PersistentRef"])
        let ref = try #require(pair?["v_PersistentRef"] as? String)
        #expect(Data(base64Encoded: ref)?.count == 20)
        let byRef = sandbox.run(["find", "--persistent-ref", ref, "--return", "data", "--format", "json"])
        #expect(try byRef.json() as? String == Data("pw".utf8).base64EncodedString())
        let keys = sandbox.run(["find", "--class", "inet", "-a", "u", "--format", "json"]).stdout
        #expect(keys.hasPrefix("{\"accc\":\"ak\",\"acct\":\"u\",\"agrp\":"))
    }

    /// An error says first what happened, in keychainctl's words, then Apple's name, number and
    /// sentence; JSON carries them as fields.
    @Test func errorsLeadWithWhatHappenedThenApplesStatus() throws {
        let sandbox = try Sandbox()
        let text = sandbox.run(["find", "-s", "nothing"])
        let lines = text.stderr.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.hasPrefix("keychainctl: no generic password matches in access group") == true, "\(text.stderr)")
        #expect(lines.last == "(errSecItemNotFound -25300: The specified item could not be found in the keychain.)")
        let json = sandbox.run(["find", "-s", "nothing", "--format", "json"])
        let error = try json.jsonError()
        #expect(error["status"] as? Int == -25300)
        #expect(error["name"] as? String == "errSecItemNotFound")
        #expect((error["hint"] as? String)?.isEmpty == false)
        #expect(json.stdout.isEmpty)
    }

    @Test(
        arguments: [
            (["find", "--bogus"], "app.plist", Int32(64)),
            (["find", "-s"], "app.plist", 64),
            (["find", "stray"], "app.plist", 64),
            (["frobnicate"], "app.plist", 64),
            (["find", "--format", "yaml"], "app.plist", 64),
            (["find", "--attr", "noequals"], "app.plist", 64),
            (["find", "--class", "bogus"], "app.plist", 38),
            (["find", "--attr", "zzzz=1"], "app.plist", 41),
            (["find", "--accessible", "sometimes"], "app.plist", 206),
            (["find", "--limit", "none"], "app.plist", 206),
            (["find", "-s", "x"], "no-entitlements.plist", 30),
            (["find", "-s", "x"], "malformed.plist", 78),
            (["find", "-s", "x"], "source-variables.entitlements", 78),
            (["find", "-s", "x"], "missing.plist", 78),
            (["find", "-s", "x"], "app.plist", 44),
            (["groups"], "unresolvable-variable.entitlements", 78),
        ] as [([String], String, Int32)])
    func exitStatuses(_ arguments: [String], _ profile: String, _ expected: Int32) throws {
        let sandbox = try Sandbox()
        let run = sandbox.run(arguments, profile: profile)
        #expect(run.status == expected, "\(arguments): \(run.stderr)")
        #expect(run.stderr.hasPrefix("keychainctl: "))
    }

    @Test func missingProfileAndUnreadableKeychainFiles() throws {
        let sandbox = try Sandbox()
        // No profile anywhere: the built-in one, whose group holds nothing yet.
        let builtIn = sandbox.run(["find", "-s", "x"], profile: nil)
        #expect(builtIn.status == 44 && builtIn.stderr.contains("keychainctl.default"), "\(builtIn.stderr)")
        #expect(
            sandbox.run(["find", "-s", "x"], profile: nil, environment: ["KEYCHAINCTL_PROFILE": sandbox.folder + "/none.plist"]).status
                == 78)
        let noFile = sandbox.run(["find", "-s", "x"], environment: ["KEYCHAINCTL_KEYCHAIN": sandbox.folder + "/none.db"])
        #expect(noFile.status == 53)
        #expect(noFile.stderr.contains("keychainctl init"))
        let junk = sandbox.folder + "/junk.db"
        try #require(FileManager.default.createFile(atPath: junk, contents: Data(repeating: 0x41, count: 8192)))
        #expect(sandbox.run(["find", "-s", "x"], environment: ["KEYCHAINCTL_KEYCHAIN": junk]).status == 74)
        let wrongKey = sandbox.folder + "/other.key"
        let otherKey = Data(Data((0..<32).map { UInt8($0) }).base64EncodedString().utf8)
        try #require(FileManager.default.createFile(atPath: wrongKey, contents: otherKey, attributes: [.posixPermissions: 0o600]))
        #expect(sandbox.run(["find", "-s", "x"], environment: ["KEYCHAINCTL_KEY_FILE": wrongKey]).status == 51)
        let badKey = sandbox.folder + "/bad.key"
        try #require(FileManager.default.createFile(atPath: badKey, contents: Data("short".utf8), attributes: [.posixPermissions: 0o600]))
        #expect(sandbox.run(["find", "-s", "x"], environment: ["KEYCHAINCTL_KEY_FILE": badKey]).status == 78)
    }

    @Test func addUpdateInPlaceAndDuplicates() throws {
        let sandbox = try Sandbox()
        #expect(sandbox.add(["-s", "api", "-a", "ci"], secret: "one").status == 0)
        let duplicate = sandbox.add(["-s", "api", "-a", "ci"], secret: "two")
        #expect(duplicate.status == 45)
        #expect(!duplicate.stderr.contains("two"))
        let ref = sandbox.run(["find", "-s", "api", "--return", "persistent-ref"]).stdout
        #expect(sandbox.add(["-s", "api", "-a", "ci", "-U", "-l", "relabelled"], secret: "two").status == 0)
        #expect(sandbox.run(["find", "-s", "api", "-w"]).stdout == "two")
        #expect(sandbox.run(["find", "-s", "api", "--return", "persistent-ref"]).stdout == ref)
        #expect(sandbox.run(["find", "-l", "relabelled"]).status == 0)
    }

    @Test func updateAndDeleteWithDryRuns() throws {
        let sandbox = try Sandbox()
        sandbox.add(["-s", "api", "-a", "a"], secret: "secret-one")
        sandbox.add(["-s", "api", "-a", "b"], secret: "secret-two")
        let dry = sandbox.run(["update", "-s", "api", "--set-group", Fixtures.sharedGroup, "--dry-run", "--format", "json"])
        #expect(dry.status == 0)
        #expect((try dry.json() as? [[String: Any]])?.count == 2)
        #expect(!dry.stdout.contains("secret-"))
        #expect(sandbox.run(["find", "-s", "api", "-g", Fixtures.sharedGroup]).status == 44)
        #expect(sandbox.run(["update", "-s", "api", "--set-group", Fixtures.sharedGroup]).status == 0)
        #expect(sandbox.run(["find", "-s", "api", "-a", "b", "-w"], profile: "share-extension.plist").stdout == "secret-two")
        let collide = sandbox.run(["update", "-s", "api", "--set-account", "same"])
        #expect(collide.status == 45)
        #expect(sandbox.run(["update", "-s", "api", "-a", "a", "--set-password", "secret-three"]).status == 0)
        #expect(sandbox.run(["find", "-s", "api", "-a", "a", "-w"]).stdout == "secret-three")
        #expect(sandbox.run(["update", "-s", "api", "-a", "a", "--set-data-stdin"], stdin: Data("secret-four".utf8)).status == 0)
        #expect(sandbox.run(["find", "-s", "api", "-a", "a", "-w"]).stdout == "secret-four")
        let dryDelete = sandbox.run(["delete", "-s", "api", "--dry-run"])
        #expect(dryDelete.stdout.components(separatedBy: "class: genp").count == 3)
        #expect(sandbox.run(["delete", "-s", "api"]).status == 0)
        #expect(sandbox.run(["delete", "-s", "api"]).status == 44)
    }

    @Test func everyProfileFormWorksThroughTheBinary() throws {
        let sandbox = try Sandbox()
        sandbox.add(["-s", "api", "-g", Fixtures.sharedGroup], secret: "x")
        for profile in [
            "app-binary.plist", "app.mobileprovision", "app.mobileprovision.plist", "legacy-prefix.plist", "macos.provisionprofile.plist",
        ] {
            #expect(sandbox.run(["find", "-s", "api"], profile: profile).status == 0, "\(profile)")
        }
        #expect(sandbox.run(["find", "-s", "api", "--team-id", "SKMME9E2Y8"], profile: "source-variables.entitlements").status == 0)
        #expect(
            sandbox.run(
                ["find", "-s", "api"], profile: "source-variables.entitlements", environment: ["KEYCHAINCTL_TEAM_ID": "SKMME9E2Y8"]
            ).status == 0)
    }

    @Test func tamperedItemsExit93AndNeverShowTheSecret() throws {
        let sandbox = try Sandbox()
        sandbox.add(["-s", "one"], secret: "first-secret")
        sandbox.add(["-s", "two"], secret: "second-secret")
        // A timed child (the sandbox's watchdog), where a bare Process could wait for ever.
        let edited = sandbox.editKeychain(
            """
            rows = db.execute('SELECT rowid, item_key, secret FROM genp ORDER BY rowid').fetchall()
            db.execute('UPDATE genp SET item_key = ?, secret = ? WHERE rowid = ?', (rows[1][1], rows[1][2], rows[0][0]))
            s = bytearray(rows[0][2]); s[30] ^= 1
            db.execute('UPDATE genp SET secret = ? WHERE rowid = ?', (bytes(s), rows[1][0]))
            """)
        #expect(edited.status == 0, "\(edited.stderr)")
        for service in ["one", "two"] {
            let run = sandbox.run(["find", "-s", service, "-w"])
            #expect(run.status == 93)
            #expect(run.stdout.isEmpty)
            #expect(!run.stderr.contains("secret"))
            #expect(run.stderr.contains("errSecDecode -26275"))
        }
    }
}
