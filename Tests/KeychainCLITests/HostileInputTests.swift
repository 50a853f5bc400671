import Foundation
import KeychainTestSupport
import Testing

/// Through the real binary: careless and hostile input gets a documented exit status, no
/// crash, no hang, and never an echo of a secret.
@Suite struct HostileInputTests {
    /// A secret typed into a misspelled or misplaced option never reaches stderr or stdout, in text
    /// or JSON; the error names the option and suggests the one meant.
    @Test(
        arguments: [
            (["update", "-s", "svc", "--password=hunter2"], "--set-password"),
            (["update", "-s", "svc", "--pasword", "hunter2"], "--set-password"),
            (["add", "-s", "svc", "--pass=hunter2"], "--password"),
            (["add", "-s", "svc", "--strip-newline", "hunter2"], nil),
            (["find", "-s", "svc", "--", "hunter2"], nil),
            (["update", "-s", "svc", "--set-password"], nil),
        ] as [([String], String?)])
    func misplacedSecretsAreNeverEchoed(arguments: [String], suggestion: String?) throws {
        let sandbox = try Sandbox()
        for format in [[], ["--format", "json"]] {
            let run = sandbox.run(arguments + format)
            #expect(run.status == 64, "\(arguments): \(run.status) \(run.stderr)")
            #expect(!run.stderr.contains("hunter2") && !run.stdout.contains("hunter2"), "\(arguments) echoed the secret: \(run.stderr)")
            if let suggestion { #expect(run.stderr.contains("Did you mean '\(suggestion)'?"), "\(run.stderr)") }
        }
    }

    /// `-h` and `--help` are help only where an option may stand; as a value they are the value.
    /// `--` ends the options.
    @Test func helpIsRecognisedOnlyInOptionPositionAndDoubleDashEndsOptions() throws {
        let sandbox = try Sandbox()
        let added = sandbox.add(["-s", "svc", "-l", "-h", "-a", "--help"])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(!added.stdout.contains("OVERVIEW"))
        let found = sandbox.run(["find", "-s", "svc", "--format", "json"])
        let item = try found.json() as? [String: Any]
        #expect(item?["labl"] as? String == "-h")
        #expect(item?["acct"] as? String == "--help")
        // (The profile comes from the environment here: the sandbox would put --profile after `--`.)
        let profile = ["KEYCHAINCTL_PROFILE": Sandbox.profiles + "/app.plist"]
        #expect(sandbox.run(["find", "-s", "svc", "-w", "--"], profile: nil, environment: profile).stdout == "s3cret")
        let help = sandbox.run(["find", "-s", "svc", "--help"])
        #expect(help.status == 0 && help.stdout.contains("OVERVIEW"))
        let stray = sandbox.run(["find", "-s", "svc", "--", "-h"], profile: nil, environment: profile)
        #expect(stray.status == 64 && !stray.stdout.contains("OVERVIEW"))
    }

    /// A secret that cannot be written is a failure (74), never an empty success: a rotation
    /// script would otherwise delete the only copy.
    @Test func outputThatCannotBeWrittenIsExit74() throws {
        let sandbox = try Sandbox()
        sandbox.add(["-s", "svc"], secret: "only-copy")
        let full = sandbox.run(["find", "-s", "svc", "-w"], stdoutPath: "/dev/full")
        #expect(full.status == 74, "\(full.stderr)")
        #expect(full.stderr.contains("cannot write to standard output"))
        #expect(!full.stderr.contains("only-copy"))
        #expect(sandbox.run(["find", "-s", "svc", "--format", "json", "--return", "data"], stdoutPath: "/dev/full").status == 74)
        #expect(sandbox.run(["groups"], stdoutPath: "/dev/full").status == 74)
        // A failure keeps its own status: the write error does not hide it.
        #expect(sandbox.run(["find", "-s", "nothere"], stdoutPath: "/dev/full").status == 44)
        #expect(sandbox.run(["find", "-s", "svc", "-w"]).stdout == "only-copy")
    }

    /// Endless inputs stop at their cap, in little memory (the child may use at most 300 MB of
    /// address space): a secret over 16 MiB is errSecParam (exit 206), a passphrase over 4 KiB or a
    /// key file over 160 bytes is unusable configuration (78). Nothing is stored.
    @Test func endlessInputsStopAtTheirCap() throws {
        let sandbox = try Sandbox()
        let limit = 300_000
        let fromFile = sandbox.run(["add", "-s", "zero", "--data-file", "/dev/zero"], timeout: 60, memoryLimitKB: limit)
        #expect(fromFile.status == 206, "\(fromFile.stderr)")
        #expect(fromFile.stderr.contains("at most 16 MiB"))
        let fromStdin = sandbox.run(["add", "-s", "zero"], timeout: 60, stdinPath: "/dev/zero", memoryLimitKB: limit)
        #expect(fromStdin.status == 206, "\(fromStdin.stderr)")
        // With the item there, so that the refusal is the cap's and not "nothing matches" (44),
        // and its secret unchanged after.
        #expect(sandbox.add(["-s", "kept"], secret: "SECRET-kept").status == 0)
        let update = sandbox.run(["update", "-s", "kept", "--set-data-stdin"], timeout: 60, stdinPath: "/dev/zero", memoryLimitKB: limit)
        #expect(update.status == 206 && update.stderr.contains("at most 16 MiB"), "\(update.status) \(update.stderr)")
        #expect(sandbox.run(["find", "-s", "kept", "-w"]).stdout == "SECRET-kept")
        // Exactly the cap is accepted.
        let atCap = sandbox.folder + "/cap"
        try #require(FileManager.default.createFile(atPath: atCap, contents: Data(repeating: 0x61, count: 16 << 20)))
        #expect(sandbox.run(["add", "-s", "cap", "--data-file", atCap], timeout: 60, memoryLimitKB: limit).status == 0)
        #expect(sandbox.run(["find", "-s", "zero"]).status == 44)
        // Passphrases and key files.
        let noKeyFile = ["KEYCHAINCTL_KEY_FILE": ""]
        let passphraseFD = sandbox.run(
            ["find", "-s", "x", "--passphrase-fd", "0"], environment: noKeyFile, timeout: 60, stdinPath: "/dev/zero", memoryLimitKB: limit)
        #expect(passphraseFD.status == 78, "\(passphraseFD.stderr)")
        let longPassphrase = String(repeating: "a", count: 4097)
        #expect(
            sandbox.run(["find", "-s", "x"], environment: ["KEYCHAINCTL_KEY_FILE": "", "KEYCHAINCTL_PASSPHRASE": longPassphrase]).status
                == 78)
        let bigKey = sandbox.folder + "/big.key"
        try #require(
            FileManager.default.createFile(
                atPath: bigKey, contents: Data(repeating: 0x41, count: 1 << 20), attributes: [.posixPermissions: 0o600]))
        let big = sandbox.run(["find", "-s", "x"], environment: ["KEYCHAINCTL_KEY_FILE": bigKey])
        #expect(big.status == 78 && big.stderr.contains("not a key file"), "\(big.stderr)")
        let device = sandbox.run(
            ["find", "-s", "x"], environment: ["KEYCHAINCTL_KEY_FILE": "/dev/zero"], timeout: 60, memoryLimitKB: limit)
        #expect(device.status == 78 && device.stderr.contains("not a regular file"), "\(device.stderr)")
    }

    /// A key file others can read is refused as ssh refuses such a private key, with the fix.
    @Test func keyFilesOthersCouldReadAreRefused() throws {
        let sandbox = try Sandbox()
        sandbox.add(["-s", "svc"], secret: "s")
        for mode in [0o644, 0o640, 0o604, 0o660, 0o602] {
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: sandbox.keyFile)
            let run = sandbox.run(["find", "-s", "svc", "-w"])
            #expect(run.status == 78, "mode \(String(mode, radix: 8)): \(run.status)")
            #expect(run.stderr.contains("chmod 600 \(sandbox.keyFile)") && run.stdout.isEmpty)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o400], ofItemAtPath: sandbox.keyFile)
        #expect(sandbox.run(["find", "-s", "svc", "-w"]).stdout == "s")

        // The fix, run as printed, also for a path a shell would split or expand.
        let spaced = sandbox.folder + "/my keys/it's $HOME.key"
        try FileManager.default.createDirectory(atPath: sandbox.folder + "/my keys", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: sandbox.keyFile, toPath: spaced)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: spaced)
        let refused = sandbox.run(["find", "-s", "svc", "-w"], environment: ["KEYCHAINCTL_KEY_FILE": spaced])
        #expect(refused.status == 78, "\(refused.stderr)")
        let fix = try #require(
            refused.stderr.components(separatedBy: "run '").dropFirst().first?.components(separatedBy: "'. Nothing").first)
        #expect(sandbox.run(["/bin/sh", "-c", fix], profile: nil, executable: "/usr/bin/env").status == 0, "\(fix)")
        #expect(sandbox.run(["find", "-s", "svc", "-w"], environment: ["KEYCHAINCTL_KEY_FILE": spaced]).stdout == "s", "\(fix)")
    }

    /// A key file owned by another user, or reached through another user's symbolic link (the
    /// keychain too), is refused. Only root can give a file to another user.
    @Test(.enabled(if: TestMachine.isRoot, "machine: root"))
    func keyFilesAndKeychainsOfAnotherUserAreRefused() throws {
        let sandbox = try Sandbox()
        sandbox.add(["-s", "svc"], secret: "s")
        let link = sandbox.folder + "/link.key"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: sandbox.keyFile)
        #expect(sandbox.run(["find", "-s", "svc", "-w"], environment: ["KEYCHAINCTL_KEY_FILE": link]).stdout == "s")
        #expect(lchown(link, 65534, 65534) == 0)
        let viaLink = sandbox.run(["find", "-s", "svc", "-w"], environment: ["KEYCHAINCTL_KEY_FILE": link])
        #expect(viaLink.status == 78 && viaLink.stderr.contains("symbolic link owned by another user"), "\(viaLink.stderr)")
        let keychainLink = sandbox.folder + "/link.db"
        try FileManager.default.createSymbolicLink(atPath: keychainLink, withDestinationPath: sandbox.keychain)
        #expect(lchown(keychainLink, 65534, 65534) == 0)
        #expect(sandbox.run(["find", "-s", "svc"], environment: ["KEYCHAINCTL_KEYCHAIN": keychainLink]).status == 78)
        #expect(chown(sandbox.keyFile, 65534, 65534) == 0)
        let foreign = sandbox.run(["find", "-s", "svc", "-w"])
        #expect(foreign.status == 78 && foreign.stderr.contains("belongs to another user"), "\(foreign.stderr)")
    }

    /// Attribute text cannot drive the terminal: control characters in text output (item blocks,
    /// migration lines, hints) are visible escapes; JSON keeps the exact value.
    @Test func textOutputEscapesControlCharacters() throws {
        let sandbox = try Sandbox()
        let hostile = "ok\u{1B}]52;c;aGk=\u{07}\nforged: line\r\u{9B}2J\u{7F}"
        #expect(sandbox.add(["-s", "svc", "-a", hostile, "-l", hostile]).status == 0)
        let shown = sandbox.run(["find", "-s", "svc"])
        #expect(shown.status == 0)
        for raw: UInt8 in [0x1B, 0x07, 0x0D, 0x7F] { #expect(!shown.stdoutData.contains(raw), "byte \(raw) reached the terminal") }
        #expect(!shown.stdout.contains("\u{9B}"))
        #expect(!shown.stdout.contains("\nforged"))
        #expect(shown.stdout.contains(#"ok\x1B]52;c;aGk=\x07\nforged: line\r\u{9B}2J\x7F"#), "\(shown.stdout)")
        let moved = sandbox.run(["migrate-group", "--from", "SKMME9E2Y8.com.example.app", "--to", "SKMME9E2Y8.com.example.shared"])
        #expect(moved.status == 0)
        #expect(!moved.stdoutData.contains(0x1B) && moved.stdout.contains(#"acct=ok\x1B]52"#), "\(moved.stdout)")
        let duplicate = sandbox.add(["-s", "svc", "-a", hostile, "-g", "SKMME9E2Y8.com.example.shared"])
        #expect(duplicate.status == 45 && !duplicate.stderr.utf8.contains(0x1B), "\(duplicate.stderr)")
        let json = try sandbox.run(["find", "-s", "svc", "--format", "json"]).json() as? [String: Any]
        #expect(json?["acct"] as? String == hostile)
        // A word that is no subcommand or option, from a script's variable, is echoed escaped.
        for arguments in [[hostile], ["find", "--" + hostile]] {
            let usage = sandbox.run(arguments)
            #expect(usage.status == 64 && !usage.stderr.utf8.contains(0x1B) && !usage.stderr.contains("\nforged"), "\(usage.stderr)")
        }
    }

    /// A binary plist from `objects` (already encoded), one-byte offsets and references.
    static func binaryPlist(_ objects: [[UInt8]], top: UInt8 = 0) -> Data {
        var bytes = Array("bplist00".utf8)
        var offsets: [UInt8] = []
        for object in objects {
            offsets.append(UInt8(bytes.count))
            bytes += object
        }
        let table = bytes.count
        bytes += offsets
        bytes += [0, 0, 0, 0, 0, 0, 1, 1]
        for value in [UInt64(objects.count), UInt64(top), UInt64(table)] { bytes += withUnsafeBytes(of: value.bigEndian) { Array($0) } }
        return Data(bytes)
    }

    static let groupsKey = [0x5F, 0x10, 22] + Array("keychain-access-groups".utf8)

    /// Hostile profiles end in exit 78 naming the file and the problem, quickly: no recursion
    /// without end, no exponential expansion, no stack overflow.
    @Test func hostileProfilesAreRefusedQuickly() throws {
        let sandbox = try Sandbox()
        var profiles: [(name: String, data: Data, problem: String)] = []
        // A dictionary whose value is itself; an array containing itself.
        profiles.append(("self.plist", Self.binaryPlist([[0xD1, 1, 0], Self.groupsKey]), "cycle"))
        profiles.append(("self-array.plist", Self.binaryPlist([[0xD1, 1, 2], Self.groupsKey, [0xA1, 2]]), "cycle"))
        // Forty arrays each holding the next twice: 2^40 leaves once expanded.
        var laughs: [[UInt8]] = [[0xD1, 1, 2], Self.groupsKey]
        for level in 0..<40 { laughs.append([0xA2, UInt8(3 + level), UInt8(3 + level)]) }
        laughs.append([0x51, 0x61])
        profiles.append(("laughs.plist", Self.binaryPlist(laughs), "share a child"))
        // References and offsets out of bounds, a truncated trailer.
        profiles.append(("bad-ref.plist", Self.binaryPlist([[0xD1, 1, 9], Self.groupsKey]), "malformed"))
        profiles.append(("truncated.plist", Self.binaryPlist([[0xD1, 1, 2], Self.groupsKey, [0x50]]).dropLast(7), "malformed"))
        // Deep XML, and XML entities.
        for depth in [40, 1000, 100_000] {
            let xml =
                "<?xml version=\"1.0\"?><plist version=\"1.0\"><dict><key>keychain-access-groups</key>"
                + String(repeating: "<array>", count: depth) + String(repeating: "</array>", count: depth) + "</dict></plist>"
            profiles.append(("deep-\(depth).plist", Data(xml.utf8), depth > 50_000 ? "larger than" : "deeper than"))
        }
        let entities = """
            <?xml version="1.0"?><!DOCTYPE plist [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>
            <plist version="1.0"><dict><key>keychain-access-groups</key><array><string>&b;</string></array></dict></plist>
            """
        profiles.append(("entities.plist", Data(entities.utf8), "entities"))
        // Found by fuzz-profile: a string running past the object table, on which Foundation's
        // binary plist reader traps (exit 132) instead of failing.
        let fuzzed = Sandbox.profiles + "/../Fuzz/profile/string-past-the-object-table.plist"
        profiles.append(("past-the-table.plist", try Data(contentsOf: URL(fileURLWithPath: fuzzed)), "malformed"))
        // A 0x7_ object (no marker of bplist00) as a group, as the top object, as an unread value.
        let utf8Group = [0x75] + Array("A.b.c".utf8)
        profiles.append(("marker-7-group.plist", Self.binaryPlist([[0xD1, 1, 2], Self.groupsKey, [0xA1, 3], utf8Group]), "malformed"))
        profiles.append(("marker-7-top.plist", Self.binaryPlist([utf8Group]), "malformed"))
        profiles.append(
            (
                "marker-7-unread.plist", Self.binaryPlist([[0xD2, 1, 3, 2, 4], Self.groupsKey, [0xA0], [0x51, 0x78], utf8Group]),
                "malformed"
            ))
        for profile in profiles {
            let path = sandbox.folder + "/" + profile.name
            try #require(FileManager.default.createFile(atPath: path, contents: profile.data))
            // A profile that made the reader loop or wait would be killed by the timeout, and fail.
            let run = sandbox.run(["groups", "--profile", path], profile: nil, timeout: 20)
            #expect(run.status == 78, "\(profile.name): \(run.status) \(run.stderr)")
            #expect(run.stderr.contains(path) && run.stderr.contains(profile.problem), "\(profile.name): \(run.stderr)")
        }
        // A 5,000-digit integer in an entitlement keychainctl does not read is never converted.
        let huge = """
            <?xml version="1.0"?><plist version="1.0"><dict><key>keychain-access-groups</key><array><string>A.b</string></array>
            <key>x</key><integer>\(String(repeating: "9", count: 5000))</integer></dict></plist>
            """
        try #require(FileManager.default.createFile(atPath: sandbox.folder + "/huge.plist", contents: Data(huge.utf8)))
        let hugeRun = sandbox.run(["groups", "--profile", sandbox.folder + "/huge.plist"], profile: nil)
        #expect(hugeRun.status == 0 && hugeRun.stdout.contains("A.b"), "\(hugeRun.stderr)")
        // A 16-byte integer in a binary profile is read past (Foundation accepts it).
        let wide = Self.binaryPlist([
            [0xD2, 1, 3, 2, 4], Self.groupsKey, [0xA0], [0x51, 0x78], [0x14] + Array(repeating: 0xFF, count: 16),
        ])
        try #require(FileManager.default.createFile(atPath: sandbox.folder + "/wide.plist", contents: wide))
        #expect(sandbox.run(["groups", "--profile", sandbox.folder + "/wide.plist"], profile: nil).status == 0)
        // Nesting within the limit still works: a binary profile three levels deep.
        let fine = Self.binaryPlist([[0xD1, 1, 2], Self.groupsKey, [0xA1, 3], [0x55] + Array("A.b.c".utf8)])
        try #require(FileManager.default.createFile(atPath: sandbox.folder + "/fine.plist", contents: fine))
        let groups = sandbox.run(["groups", "--profile", sandbox.folder + "/fine.plist"], profile: nil)
        #expect(groups.status == 0 && groups.stdout.contains("A.b.c"), "\(groups.stderr)")
    }

    /// A user default profile another user owns chooses nothing: refused (78), naming the owner.
    /// Needs root, to give the file to another user.
    @Test(.enabled(if: TestMachine.isRoot, "machine: root")) func aUserDefaultProfileOfAnotherUserIsRefused() throws {
        let sandbox = try Sandbox()
        let folder = sandbox.folder + "/config/keychainctl"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Sandbox.profiles + "/app.plist", toPath: folder + "/profile.plist")
        #expect(chown(folder + "/profile.plist", 65534, 65534) == 0)
        let foreign = sandbox.run(["groups"], profile: nil, environment: ["XDG_CONFIG_HOME": sandbox.folder + "/config"])
        #expect(foreign.status == 78 && foreign.stderr.contains("belongs to another user (uid 65534)"), "\(foreign.stderr)")
    }

    /// The user default profile chooses the groups of every profile-less call, so it is used only
    /// when it is the user's own; never from the working folder (no HOME, no XDG_CONFIG_HOME, or a
    /// relative one). Each refusal's fix, followed as printed, makes it usable.
    @Test func theUserDefaultProfileMustBeTheUsers() throws {
        let sandbox = try Sandbox()
        let config = sandbox.folder + "/config"
        let folder = config + "/keychainctl"
        let file = folder + "/profile.plist"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Sandbox.profiles + "/app.plist", toPath: file)
        let environment = ["XDG_CONFIG_HOME": config]
        func groups(_ environment: [String: String]) -> Sandbox.Run { sandbox.run(["groups"], profile: nil, environment: environment) }
        #expect(groups(environment).stdout.contains("the user default"), "\(groups(environment).stderr)")
        for (place, mode) in [(file, 0o666), (folder, 0o777)] {
            chmod(place, mode_t(mode))
            let refused = groups(environment)
            #expect(refused.status == 78 && refused.stderr.contains("run 'chmod go-w \(place)'"), "\(refused.stderr)")
            let fix = sandbox.run(["go-w", place], profile: nil, executable: "/bin/chmod")
            #expect(fix.status == 0 && groups(environment).status == 0, "the fix works as printed")
        }
        // A repository's .config is never the default: without HOME, or with relative folders.
        let repository = sandbox.folder + "/repo"
        try FileManager.default.createDirectory(atPath: repository + "/.config/keychainctl", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Sandbox.profiles + "/app.plist", toPath: repository + "/.config/keychainctl/profile.plist")
        let script = "cd '\(repository)' && \"$0\" groups --format json"
        for variables in [[], ["HOME=."], ["XDG_CONFIG_HOME=.config", "HOME=."]] {
            let run = sandbox.run(
                ["-i", "PATH=/usr/bin:/bin", "KEYCHAINCTL_KEYCHAIN=" + sandbox.keychain, "KEYCHAINCTL_KEY_FILE=" + sandbox.keyFile]
                    + variables + ["/bin/sh", "-c", script, Sandbox.binary], profile: nil, executable: "/usr/bin/env")
            let source = (try? run.json() as? [String: Any])?["source"] as? String
            #expect(run.status == 0 && source == "built-in", "\(variables): \(run.stdout) \(run.stderr)")
        }
    }

    /// Build variables are resolved only in the entitlements that name access groups: Xcode's
    /// default iCloud entries, which keychainctl never reads, leave a real `.entitlements` usable.
    @Test func buildVariablesElsewhereDoNotMakeASourceFileUnusable() throws {
        let sandbox = try Sandbox()
        let source = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>application-identifier</key><string>$(AppIdentifierPrefix)com.example.app</string>
            <key>keychain-access-groups</key><array><string>$(AppIdentifierPrefix)com.example.shared</string></array>
            <key>com.apple.developer.icloud-container-identifiers</key><array><string>iCloud.$(CFBundleIdentifier)</string></array>
            <key>com.apple.developer.ubiquity-kvstore-identifier</key><string>$(TeamIdentifierPrefix)$(CFBundleIdentifier)</string>
            </dict></plist>
            """
        let path = sandbox.folder + "/App.entitlements"
        try #require(FileManager.default.createFile(atPath: path, contents: Data(source.utf8)))
        let groups = sandbox.run(["groups", "--profile", path, "--team-id", "SKMME9E2Y8"], profile: nil)
        #expect(groups.status == 0, "\(groups.stderr)")
        #expect(groups.stdout.contains("SKMME9E2Y8.com.example.shared") && groups.stdout.contains("SKMME9E2Y8.com.example.app"))
        // In an entitlement that names groups, an unknown variable is still refused.
        let unusable = sandbox.run(
            ["groups", "--profile", Sandbox.profiles + "/unresolvable-variable.entitlements", "--team-id", "T"], profile: nil)
        #expect(unusable.status == 78 && unusable.stderr.contains("$(CFBundleIdentifier)"), "\(unusable.stderr)")
    }

    /// Invalid UTF-8 in an attribute on the command line is errSecParam, not silently replaced
    /// (which made `x\\xff` and `x\\xfe` one account: a false duplicate).
    @Test func invalidUTF8AttributesAreRefusedNotReplaced() throws {
        let sandbox = try Sandbox()
        // Foundation's Process takes Strings, so the shell's printf makes the raw bytes.
        func add(_ octal: String) -> Sandbox.Run {
            sandbox.run(
                [
                    "-c", "printf s | exec \"$0\" add -s utf8 -a \"$(printf 'x\\\(octal)')\" --profile \"$1\"", Sandbox.binary,
                    Sandbox.profiles + "/app.plist",
                ], profile: nil, executable: "/bin/sh")
        }
        let first = add("377")
        #expect(first.status == 206 && first.stderr.contains("--account is not valid UTF-8"), "\(first.status) \(first.stderr)")
        #expect(add("376").status == 206)
        #expect(sandbox.run(["find", "-s", "utf8"]).status == 44)
        #expect(add("303\\251").status == 0)  // "xé" is valid UTF-8
    }

    /// A find returning 20,000 secrets streams them: it fits in a 60 MB address space (it held
    /// every secret at once, one guarded mapping each, and died with SIGILL near 17,000), and
    /// every secret comes back, in text and JSON.
    @Test func twentyThousandSecretsStreamInLittleMemory() throws {
        let sandbox = try Sandbox()
        try sandbox.fill(count: 20_000, group: "SKMME9E2Y8.com.example.app")
        let json = sandbox.run(["find", "--limit", "all", "--return", "data", "--format", "json"], timeout: 300, memoryLimitKB: 60_000)
        #expect(json.status == 0, "\(json.status) \(json.stderr)")
        let secrets = try json.json() as? [String]
        #expect(secrets?.count == 20_000)
        let decoded = Set((secrets ?? []).compactMap { Data(base64Encoded: $0).map { String(decoding: $0, as: UTF8.self) } })
        #expect(decoded == Set((0..<20_000).map { "secret-\($0)" }))
        let text = sandbox.run(["find", "--limit", "all", "--return", "attributes,data"], timeout: 300, memoryLimitKB: 60_000)
        #expect(text.status == 0 && text.stdout.components(separatedBy: "v_Data (data): ").count == 20_001, "\(text.stderr)")
    }

    /// An update or delete of 20,000 items keeps a row number per item, not the rows: both fit in
    /// the address space the streaming find fits in (holding every opened row, they did not).
    @Test func twentyThousandItemsChangeInLittleMemory() throws {
        let sandbox = try Sandbox()
        try sandbox.fill(count: 20_000, group: "SKMME9E2Y8.com.example.app")
        let update = sandbox.run(["update", "--all", "--set-label", "renamed"], timeout: 300, memoryLimitKB: 60_000)
        #expect(update.status == 0, "\(update.status) \(update.stderr)")
        let labels = sandbox.run(["find", "-l", "renamed", "--limit", "all", "--format", "json"], timeout: 300)
        #expect((try labels.json() as? [Any])?.count == 20_000)
        #expect(sandbox.run(["find", "-s", "svc-19999", "-w"]).stdout == "secret-19999")
        let delete = sandbox.run(["delete", "-l", "renamed"], timeout: 300, memoryLimitKB: 60_000)
        #expect(delete.status == 0, "\(delete.status) \(delete.stderr)")
        #expect(sandbox.run(["find", "--limit", "all"]).status == 44)
    }

    /// An unknown KEYCHAINCTL_FORMAT is unusable configuration (78), as an unknown platform is,
    /// not silently text.
    @Test func anUnknownFormatVariableIsRefused() throws {
        let sandbox = try Sandbox()
        let run = sandbox.run(["groups"], environment: ["KEYCHAINCTL_FORMAT": "xml"])
        #expect(run.status == 78 && run.stderr.contains("KEYCHAINCTL_FORMAT"), "\(run.stderr)")
        #expect(sandbox.run(["groups"], environment: ["KEYCHAINCTL_FORMAT": "json"]).status == 0)
    }

    /// A binary profile with an invalid object that the top object never reaches is refused as a
    /// whole (78), as CoreFoundation's reader refuses it: a bad reference, a non-string key, bad text.
    @Test func anInvalidObjectAnywhereRefusesABinaryProfile() throws {
        let sandbox = try Sandbox()
        let top: [[UInt8]] = [[0xD1, 1, 2], Self.groupsKey, [0xA1, 3], [0x55] + Array("A.b.c".utf8)]
        let unreached: [(String, [UInt8])] = [
            ("bad-reference", [0xA1, 40]), ("array-key", [0xD1, 2, 3]), ("bad-text", [0x52, 0xC3, 0x28]),
        ]
        for (name, object) in unreached {
            let path = sandbox.folder + "/\(name).plist"
            try #require(FileManager.default.createFile(atPath: path, contents: Self.binaryPlist(top + [object])))
            let run = sandbox.run(["groups", "--profile", path], profile: nil)
            #expect(run.status == 78, "\(name): \(run.status) \(run.stderr)")
        }
        let fine = sandbox.folder + "/fine.plist"
        try #require(FileManager.default.createFile(atPath: fine, contents: Self.binaryPlist(top + [[0x51, 0x61]])))
        #expect(sandbox.run(["groups", "--profile", fine], profile: nil).status == 0, "an unreached valid object is fine")
    }

    /// A key file is base64 with whitespace only around it: a NUL, a stray character or a space
    /// inside is a damaged key (78), never skipped over.
    @Test func aKeyFileWithBytesOutsideBase64IsRefused() throws {
        let sandbox = try Sandbox()
        sandbox.add(["-s", "svc"], secret: "s")
        let key = try String(contentsOfFile: sandbox.keyFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let middle = key.index(key.startIndex, offsetBy: 20)
        let damaged: [(String, [UInt8])] = [
            ("nul", Array(key.utf8) + [0]), ("nul-inside", Array(key[..<middle].utf8) + [0] + Array(key[middle...].utf8)),
            ("space-inside", Array(key[..<middle].utf8) + [0x20] + Array(key[middle...].utf8)), ("bang", Array(key.utf8) + [0x21]),
            ("padding-inside", Array(key[..<middle].utf8) + [0x3D] + Array(key[middle...].utf8)),
        ]
        for (name, bytes) in damaged {
            let path = sandbox.folder + "/\(name).key"
            try #require(FileManager.default.createFile(atPath: path, contents: Data(bytes), attributes: [.posixPermissions: 0o600]))
            let run = sandbox.run(["find", "-s", "svc", "-w"], environment: ["KEYCHAINCTL_KEY_FILE": path])
            #expect(run.status == 78 && run.stdout.isEmpty, "\(name): \(run.status) \(run.stderr)")
        }
        let spaced = sandbox.folder + "/spaced.key"
        try #require(
            FileManager.default.createFile(atPath: spaced, contents: Data("\n  \(key)\r\n\n".utf8), attributes: [.posixPermissions: 0o600]))
        #expect(sandbox.run(["find", "-s", "svc", "-w"], environment: ["KEYCHAINCTL_KEY_FILE": spaced]).stdout == "s")
    }

    /// A FIFO named as the key file (or the account key file) is refused at once, never waited on.
    @Test func aKeyFileThatIsAFIFOIsRefusedWithoutWaiting() throws {
        let sandbox = try Sandbox()
        sandbox.add(["-s", "svc"], secret: "s")
        let fifo = sandbox.folder + "/fifo.key"
        #expect(mkfifo(fifo, 0o600) == 0)
        // Waiting on the FIFO would block until the timeout kills the run (no status 78, an issue).
        let run = sandbox.run(["find", "-s", "svc", "-w"], environment: ["KEYCHAINCTL_KEY_FILE": fifo], timeout: 20)
        #expect(run.status == 78 && run.stderr.contains("not a regular file"), "\(run.status) \(run.stderr)")
    }

    /// With almost no file descriptors, find and add fail with a message and exit 74, never a trap.
    @Test func tooFewFileDescriptorsIsExit74() throws {
        let sandbox = try Sandbox()
        sandbox.add(["-s", "svc"], secret: "s")
        for limit in [3, 4, 5] {
            for command in ["find -s svc -w", "add -s other --data-file /dev/null"] {
                let run = sandbox.run(
                    ["-c", "ulimit -n \(limit) && exec \"$0\" \(command)", Sandbox.binary], profile: nil,
                    environment: ["KEYCHAINCTL_PROFILE": Sandbox.profiles + "/app.plist"], executable: "/bin/sh")
                // A dynamically linked (debug) build cannot even be loaded with 3: that is the loader's.
                if run.stderr.contains("error while loading shared libraries") { continue }
                #expect(run.status == 74 && run.stderr.hasPrefix("keychainctl: "), "\(limit) \(command): \(run.status) \(run.stderr)")
            }
        }
    }

    /// A PKCS#12 whose key is not its certificate's (another scalar carrying the certificate's
    /// public point) is refused (93), and the genuine file then imports: the forged key never pairs.
    @Test func aForgedKeyNeverPairsWithACertificate() throws {
        let sandbox = try Sandbox()
        let forged = Fixtures.importP12(sandbox, "identity-forged.p12")
        #expect(forged.status == 93 && forged.stderr.contains("does not match"), "\(forged.stderr)")
        let genuine = Fixtures.importP12(sandbox, "identity-modern.p12")
        #expect(
            genuine.status == 0 && (genuine.stdout + genuine.stderr).contains("1 identity and 2 certificates added"),
            "\(genuine.stdout) \(genuine.stderr)")
        let keyFile = sandbox.run(["add", "--class", "keys", "--ref-file", Fixtures.certificates + "/leaf-ec-forged.key"])
        #expect(keyFile.status == 206 && keyFile.stderr.contains("does not match"), "\(keyFile.stderr)")
    }

    /// A PEM label is a string from a file: its control characters reach the terminal escaped.
    @Test func aPEMLabelCannotDriveTheTerminal() throws {
        let sandbox = try Sandbox()
        let path = sandbox.folder + "/esc.pem"
        let label = "\u{1B}]0;PWNED\u{07}X\u{1B}[2K"
        try Data("-----BEGIN \(label)-----\nAAAA\n-----END \(label)-----\n".utf8).write(to: URL(fileURLWithPath: path))
        let run = sandbox.run(["add", "--class", "keys", "--ref-file", path])
        #expect(run.status == 206 && run.signal == nil, "\(run.status) \(run.stderr)")
        #expect(!run.stderr.contains("\u{1B}") && !run.stderr.contains("\u{07}"), "\(run.stderr)")
        #expect(run.stderr.contains("\\x1B]0;PWNED"), "\(run.stderr)")
    }
}

extension HostileInputTests {
    /// A query's issuer is parsed as a DER Name to be normalised: a truncated one, one declaring a
    /// huge length, one nested ten thousand deep, one with control characters in a
    /// PrintableString, each finds nothing (44) without a crash or a hang, and nothing else matches.
    @Test func hostileIssuersInAQueryFindNothing() throws {
        let sandbox = try Sandbox()
        #expect(sandbox.run(["add", "--class", "cert", "--ref-file", Sandbox.packageRoot + "/Fixtures/Certificates/root.pem"]).status == 0)
        let nested = Array(repeating: [UInt8]([0x31, 0x80]), count: 10_000).flatMap { $0 }
        let control: [UInt8] = [0x30, 0x0F, 0x31, 0x0D, 0x30, 0x0B, 0x06, 0x03, 0x55, 0x04, 0x03, 0x13, 0x04, 0x1B, 0x5B, 0x32, 0x4A]
        let hostile: [[UInt8]] = [[0x30], [0x30, 0x84, 0xFF, 0xFF, 0xFF, 0xFF], [0x30, 0x82, 0x4E, 0x20] + nested, control, []]
        for issuer in hostile {
            let run = sandbox.run(["find", "--class", "cert", "--attr", "issr=base64:" + Data(issuer).base64EncodedString()], timeout: 30)
            #expect(run.status == 44 && run.stdout.isEmpty, "\(issuer.prefix(8)): \(run.status) \(run.stderr)")
            #expect(!run.stderr.contains("\u{1b}"))
        }
    }
}
