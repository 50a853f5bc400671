import Foundation
import KeychainTestSupport
import Testing

/// `import` and `export`: one transaction, conflicts by policy, a re-import that changes nothing,
/// and hostile input that imports nothing and names no secret.
@Suite struct ImportExportTests {
    static func sandbox() throws -> Sandbox {
        let sandbox = try Sandbox()
        #expect(sandbox.add(["-s", "registry", "-a", "ci"], secret: "SECRET-npm").status == 0)
        #expect(sandbox.add(["-s", "pem", "-a", "tls", "--attr", "gena=base64:AAEC"], secret: "SECRET-line1\nSECRET-line2\n").status == 0)
        #expect(
            sandbox.add(["--class", "inet", "--server", "db.example.com", "-a", "admin", "--port", "5432"], secret: "SECRET-db").status == 0
        )
        #expect(sandbox.add(["-s", "binary", "-a", "blob"], secret: "SECRET\u{0}\u{FF}bytes").status == 0)
        return sandbox
    }

    static func count(_ sandbox: Sandbox) -> Int {
        let found = sandbox.run(["export", "--format", "jsonl"])
        return found.stdout.split(separator: "\n").count
    }

    @Test func exportThenImportIsANoOpAndCarriesEverythingToANewKeychain() throws {
        let sandbox = try Self.sandbox()
        let before = sandbox.run(["export", "--format", "jsonl"]).stdout
        #expect(!before.contains("v_Data") && !before.contains("SECRET"))
        let exported = sandbox.run(["export", "--with-secrets", "--format", "jsonl"])
        #expect(exported.status == 0 && exported.stdout.split(separator: "\n").count == 4, "\(exported.stderr)")
        Thread.sleep(forTimeInterval: 0.01)
        let again = sandbox.run(["import", "--on-conflict", "update", "--format", "json"], stdin: exported.stdoutData)
        #expect(again.status == 0, "\(again.stderr)")
        let report = try #require(try again.json() as? [String: Any])
        #expect((report["unchanged"] as? [Any])?.count == 4 && (report["updated"] as? [Any])?.isEmpty == true)
        #expect(sandbox.run(["export", "--format", "jsonl"]).stdout == before, "a no-op import changed mdat")

        // Into a new keychain: references, dates, attributes and secrets are all kept.
        let other = try Sandbox()
        let document = sandbox.run(["export", "--with-secrets"])
        let imported = other.run(["import", "-"], stdin: document.stdoutData)
        #expect(imported.status == 0 && imported.stdout.hasPrefix("4 added"), "\(imported.stderr)")
        #expect(other.run(["export", "--format", "jsonl"]).stdout == before)
        let secret = other.run(["find", "-s", "binary", "-w"])
        #expect(secret.stdoutData == Data("SECRET\u{0}\u{FF}bytes".utf8))
    }

    @Test func conflictsFollowThePolicyAndFailWritesNothing() throws {
        let sandbox = try Self.sandbox()
        let lines = """
            {"class":"genp","svce":"registry","acct":"ci","v_Data":"\(Data("SECRET-new".utf8).base64EncodedString())"}
            {"class":"genp","svce":"fresh","acct":"one","v_Data":"\(Data("SECRET-fresh".utf8).base64EncodedString())"}

            """
        let failed = sandbox.run(["import", "--input-format", "jsonl"], stdin: Data(lines.utf8))
        #expect(failed.status == 45 && failed.stderr.contains("acct=ci") && !failed.stderr.contains("SECRET"), "\(failed.stderr)")
        #expect(sandbox.run(["find", "-s", "fresh"]).status == 44, "a failed import wrote an item")
        let dry = sandbox.run(["import", "--input-format", "jsonl", "--on-conflict", "update", "--dry-run"], stdin: Data(lines.utf8))
        #expect(dry.status == 0 && dry.stdout.contains("1 added, 1 updated") && dry.stdout.contains("dry run"), "\(dry.stdout)")
        #expect(sandbox.run(["find", "-s", "fresh"]).status == 44)
        let skipped = sandbox.run(["import", "--input-format", "jsonl", "--on-conflict", "skip"], stdin: Data(lines.utf8))
        #expect(skipped.stdout.hasPrefix("1 added, 0 updated, 0 unchanged, 1 skipped"), "\(skipped.stdout)")
        #expect(sandbox.run(["find", "-s", "registry", "-a", "ci", "-w"]).stdout == "SECRET-npm")
        let updated = sandbox.run(["import", "--input-format", "jsonl", "--on-conflict", "update"], stdin: Data(lines.utf8))
        #expect(updated.stdout.hasPrefix("0 added, 1 updated, 1 unchanged"), "\(updated.stdout)")
        #expect(sandbox.run(["find", "-s", "registry", "-a", "ci", "-w"]).stdout == "SECRET-new")
        let replaced = sandbox.run(["import", "--input-format", "jsonl", "--on-conflict", "replace"], stdin: Data(lines.utf8))
        #expect(replaced.stdout.contains("2 replaced"), "\(replaced.stdout)")
    }

    /// jsonl streams: lines cross the reader's 64 KiB reads, CRLF endings and blank lines included.
    @Test func manyLinesAcrossReads() throws {
        let sandbox = try Sandbox()
        var text = ""
        for index in 0..<3_000 {
            let secret = Data("SECRET-\(index)-".utf8 + Array(repeating: UInt8(ascii: "x"), count: index % 97)).base64EncodedString()
            text += #"{"svce":"bulk","acct":"a\#(index)","v_Data":"\#(secret)"}"# + (index % 3 == 0 ? "\r\n" : "\n")
            if index % 500 == 0 { text += "\n" }
        }
        let run = sandbox.run(["import", "--input-format", "jsonl"], stdin: Data(text.utf8))
        #expect(run.status == 0 && run.stdout.hasPrefix("3000 added"), "\(run.stderr)")
        #expect(
            sandbox.run(["find", "-s", "bulk", "-a", "a2999", "-w"]).stdout == "SECRET-2999-" + String(repeating: "x", count: 2_999 % 97))
    }

    @Test func dotenvAndEnvironmentImports() throws {
        let sandbox = try Sandbox()
        let env = sandbox.folder + "/ci.env"
        try "export TOKEN=\"SECRET-a\\nb\"\nPLAIN=SECRET-plain # comment\n".write(toFile: env, atomically: true, encoding: .utf8)
        chmod(env, 0o600)
        let run = sandbox.run(["import", env, "--service", "ci"])
        #expect(run.status == 0 && run.stdout.hasPrefix("2 added"), "\(run.stderr)")
        #expect(sandbox.run(["find", "-s", "ci", "-a", "TOKEN", "-w"]).stdout == "SECRET-a\nb")
        #expect(sandbox.run(["import", env]).status == 64, "dotenv without --service")
        let fromEnv = sandbox.run(
            ["import", "--from-env", "API_KEY", "--service", "ci"], environment: ["API_KEY": "SECRET-from-env"])
        #expect(fromEnv.status == 0)
        #expect(sandbox.run(["find", "-s", "ci", "-a", "API_KEY", "-w"]).stdout == "SECRET-from-env")
        try "A=1\nB=2\nA=3\n".write(toFile: env, atomically: true, encoding: .utf8)
        let duplicate = sandbox.run(["import", env, "--service", "dup"])
        #expect(duplicate.status == 206 && duplicate.stderr.contains("lines 1 and 3"), "\(duplicate.stderr)")
        chmod(env, 0o644)
        try "C=SECRET-c\n".write(toFile: env, atomically: true, encoding: .utf8)
        #expect(sandbox.run(["import", env, "--service", "readable"]).stderr.contains("can be read by other users"))
    }

    /// Every malformed input is refused whole (exit 206 naming where, never a value), truncated
    /// at any byte, nested deep, or huge; nothing is imported.
    @Test func hostileInputImportsNothing() throws {
        let sandbox = try Self.sandbox()
        let good = """
            {"format":"keychainctl-items","version":1,"items":[{"class":"genp","svce":"hostile","acct":"x","v_Data":"U0VDUkVULWg="},{"class":"genp","svce":"hostile","acct":"y","v_Data":"U0VDUkVULWk="}]}
            """
        let bytes = Array(good.utf8)
        for end in stride(from: 0, to: bytes.count, by: 7) {
            let run = sandbox.run(["import", "--input-format", "json"], stdin: Data(bytes[..<end]))
            #expect(run.status == 206, "cut at \(end): \(run.status) \(run.stderr)")
            #expect(!run.stderr.contains("SECRET") && !run.stderr.contains("U0VDUkVU"))
        }
        let cases: [(String, String)] = [
            (String(repeating: "[", count: 100_000), "deeper"),
            (#"[{"svce":"hostile","v_Data":"not base64!"}]"#, "v_Data"),
            (#"[{"svce":"hostile"}]"#, "no v_Data"),
            (#"[{"svce":"hostile","svce":"again","v_Data":"eA=="}]"#, "twice"),
            (#"[{"svce":"hostile","tomb":true,"v_Data":"eA=="}]"#, "tombstone"),
            (#"[{"svce":"hostile","accc":"ak;bio","pdmn":"ak","v_Data":"eA=="}]"#, "access control"),
            (#"[{"svce":"h\u0000x","v_Data":"eA=="}, 1]"#, "not an object"),
            (#"{"format":"other","items":[]}"#, "not a keychainctl-items"),
            ("[\"\u{1}\"]", "control character"),
        ]
        for (text, message) in cases {
            let run = sandbox.run(["import", "--input-format", "json"], stdin: Data(text.utf8))
            #expect(run.status == 206 && run.stderr.contains(message), "\(message): \(run.status) \(run.stderr)")
        }
        let badLine = sandbox.run(
            ["import", "--input-format", "jsonl"],
            stdin: Data("{\"svce\":\"hostile\",\"acct\":\"ok\",\"v_Data\":\"eA==\"}\n{\"svce\":SECRET}\n".utf8))
        #expect(badLine.status == 206 && badLine.stderr.contains("line 2") && !badLine.stderr.contains("SECRET"), "\(badLine.stderr)")
        let huge = sandbox.run(["import", "--input-format", "jsonl"], timeout: 120, stdinPath: "/dev/zero")
        #expect(huge.status == 78 && huge.stderr.contains("line 1 is longer than 24 MiB"), "\(huge.status) \(huge.stderr)")
        #expect(sandbox.run(["import", sandbox.folder + "/missing.jsonl"]).status == 74)
        #expect(sandbox.run(["find", "-s", "hostile"]).status == 44, "something was imported")
        #expect(Self.count(sandbox) == 4)
    }

    /// The turn-5 review's L4: a dotenv file is sourced by shells (`set -a; . ./ci.env`), so a
    /// backtick in a secret must not run a command there; the value reads back exact both in the
    /// shell and through keychainctl's own dotenv reader.
    @Test func aSourcedDotenvFileRunsNothing() throws {
        let sandbox = try Self.sandbox()
        let secret = "tok`touch pwned`en $(touch pwned2) \\` \"q\""
        #expect(sandbox.add(["-s", "ci", "-a", "DEPLOY_TOKEN"], secret: secret).status == 0)
        let env = sandbox.folder + "/ci.env"
        let written = sandbox.run(
            ["export", "--with-secrets", "--format", "dotenv", "--allow-names", "DEPLOY_TOKEN", "-s", "ci", "--output", env])
        #expect(written.status == 0, "\(written.stderr)")
        let sourced = sandbox.run(
            ["-c", "cd \"$(dirname \"$1\")\" && set -a && . \"$1\" && printf '%s' \"$DEPLOY_TOKEN\"", "sh", env], profile: nil,
            executable: "/bin/sh")
        #expect(sourced.status == 0 && sourced.stdout == secret, "\(sourced.stdout) \(sourced.stderr)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.folder + "/pwned"), "the backticks ran")
        #expect(!FileManager.default.fileExists(atPath: sandbox.folder + "/pwned2"))
        let read = sandbox.run(["exec", "--env-file", env, "--mask", "never", "--", "sh", "-c", "printf '%s' \"$DEPLOY_TOKEN\""])
        #expect(read.stdout == secret, "\(read.stdout) \(read.stderr)")
    }

    @Test func exportFormatsAndDestinations() throws {
        let sandbox = try Self.sandbox()
        #expect(sandbox.add(["-s", "quote", "-a", "q"], secret: "SECRET 'it' \"$HOME\" \\ `x`").status == 0)
        // dotenv reads back through import's dotenv reader (a secret with both ' and $ has no
        // dotenv spelling compose and python-dotenv agree on: DotenvRoundTripTests), shell
        // through sh's eval.
        #expect(sandbox.add(["-s", "quote2", "-a", "q"], secret: "SECRET \"$HOME\" \\ `x` #1").status == 0)
        let dotenv = sandbox.run(["export", "--with-secrets", "--format", "dotenv", "--allow-names", "q", "-s", "quote2"])
        #expect(
            dotenv.status == 0
                && sandbox.run(["import", "--input-format", "dotenv", "--service", "copy"], stdin: dotenv.stdoutData).status == 0)
        #expect(sandbox.run(["find", "-s", "copy", "-a", "q", "-w"]).stdout == "SECRET \"$HOME\" \\ `x` #1")
        let shellText = sandbox.run(["export", "--with-secrets", "--format", "shell", "--allow-names", "q", "-s", "quote"])
        let shell = sandbox.run(["-c", "eval \"$1\"; printf '%s' \"$q\"", "sh", shellText.stdout], profile: nil, executable: "/bin/sh")
        #expect(shell.stdout == "SECRET 'it' \"$HOME\" \\ `x`", "\(shell.stdout) \(shell.stderr)")
        let binary = sandbox.run(["export", "--with-secrets", "--format", "dotenv", "--allow-names", "blob", "-s", "binary"])
        #expect(binary.status == 206 && !binary.stderr.contains("SECRET"))
        #expect(sandbox.run(["export", "--format", "dotenv"]).status == 64, "dotenv without --with-secrets")
        let output = sandbox.folder + "/items.json"
        #expect(sandbox.run(["export", "--with-secrets", "--output", output]).status == 0)
        let mode = try FileManager.default.attributesOfItem(atPath: output)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // An existing file is refused, and the way the message names, followed, replaces it.
        let existing = sandbox.run(["export", "--with-secrets", "--output", output])
        #expect(existing.status == 74 && existing.stderr.contains("it exists (use --force to replace it)"), "\(existing.stderr)")
        #expect(sandbox.run(["export", "--with-secrets", "--output", output, "--force", "-s", "quote"]).status == 0)
        #expect(try String(contentsOfFile: output, encoding: .utf8).contains("quote"))
        let githubEnv = sandbox.folder + "/github_env"
        let appended = sandbox.run([
            "export", "--with-secrets", "--format", "github-env", "--allow-names", "tls", "--append-to", githubEnv, "-s", "pem",
        ])
        #expect(appended.stdout == "::add-mask::SECRET-line1\n::add-mask::SECRET-line2\n")
        let block = try String(contentsOfFile: githubEnv, encoding: .utf8)
        #expect(block.hasPrefix("tls<<ghadelim_") && block.contains("\nSECRET-line1\nSECRET-line2\n\n"))
        #expect(sandbox.run(["export", "-s", "nothing-here"]).status == 44)
    }

    /// An import killed at any step of its transaction (its first, middle and last frame written,
    /// the sync after the commit, the checkpoint) leaves all of its items or none: one
    /// transaction. Each item is read back with its exact status.
    @Test(.enabled(if: CrashCheck.canWatch, "machine: root"))
    func killedImportsLeaveAllOrNothing() throws {
        let sandbox = try Sandbox()
        let total = 400
        let text = (0..<total).map { index in
            let data = Data("SECRET-\(index)".utf8).base64EncodedString()
            return #"{"svce":"killed","acct":"a\#(index)","v_Data":"\#(data)"}"#
        }
        let file = sandbox.folder + "/items.jsonl"
        try (text.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o600)
        let check = CrashCheck(
            sandbox: sandbox, arguments: ["import", file, "--on-conflict", "skip", "--profile", Sandbox.profiles + "/app.plist"],
            state: {
                let found = sandbox.run(["find", "-s", "killed", "--limit", "all", "--format", "json", "--return", "data,attributes"])
                let items = (try? found.json() as? [[String: Any]]) ?? []
                let secrets = items.map {
                    "\($0["acct"] ?? "")=\(($0["v_Data"] as? String).flatMap { Data(base64Encoded: $0) }.map { String(decoding: $0, as: UTF8.self) } ?? "?")"
                }
                return
                    "status \(found.status) signal \(found.signal.map(String.init) ?? "none"): \(secrets.sorted().joined(separator: " "))"
            })
        let (trace, old, new) = try check.run()
        // The two states, written apart from what the code printed: none, then every item whole.
        #expect(old == "status 44 signal none: ")
        #expect(new == "status 0 signal none: " + (0..<total).map { "a\($0)=SECRET-\($0)" }.sorted().joined(separator: " "))
        #expect(trace.logWrites.count > 3, "the transaction is several frames, so the middle one is a moment of its own")
    }
}

extension ImportExportTests {
    /// `--group` is the group of every json or jsonl item that names none; an item naming its own
    /// keeps it; a group the profile cannot write is -34018 with nothing imported.
    @Test func groupAppliesToJSONItemsThatNameNone() throws {
        let sandbox = try Sandbox()
        let lines = """
            {"svce":"grouped","acct":"plain","v_Data":"\(Data("one".utf8).base64EncodedString())"}
            {"svce":"grouped","acct":"own","agrp":"SKMME9E2Y8.com.example.app","v_Data":"\(Data("two".utf8).base64EncodedString())"}

            """
        let file = sandbox.folder + "/items.jsonl"
        try lines.write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o600)
        let refused = sandbox.run(["import", file, "--group", "SKMME9E2Y8.com.example.other"])
        #expect(refused.status == 30, "\(refused.stderr)")
        #expect(sandbox.run(["find", "-s", "grouped"]).status == 44, "a refused import left items behind")
        #expect(sandbox.run(["import", file, "--group", "SKMME9E2Y8.com.example.shared"]).status == 0)
        let found = sandbox.run(["find", "-s", "grouped", "--limit", "all", "--format", "json"])
        let groups = ((try? found.json() as? [[String: Any]]) ?? []).reduce(into: [String: String]()) {
            $0[$1["acct"] as? String ?? ""] = $1["agrp"] as? String
        }
        #expect(groups == ["plain": "SKMME9E2Y8.com.example.shared", "own": "SKMME9E2Y8.com.example.app"], "\(groups)")
    }

    /// An item without data and an internet password's data fields survive export and import:
    /// `v_Data` is `null` for the first (a missing one is an export without secrets, refused), and
    /// the fields travel beside the data.
    @Test func itemsWithoutDataAndDataFieldsRoundTrip() throws {
        let sandbox = try Sandbox()
        #expect(sandbox.run(["add", "--no-data", "-s", "empty"]).status == 0)
        let notes = sandbox.folder + "/notes"
        try Data("SECRET-notes".utf8).write(to: URL(fileURLWithPath: notes))
        #expect(
            sandbox.add(["--class", "inet", "--server", "db.example.com", "--data-field", "binn=" + notes], secret: "SECRET-db").status == 0
        )
        let exported = sandbox.run(["export", "--with-secrets", "--format", "jsonl"])
        #expect(exported.status == 0 && exported.stdout.contains("\"v_Data\":null"), "\(exported.stdout)")
        #expect(exported.stdout.contains("\"binn\":\"\(Data("SECRET-notes".utf8).base64EncodedString())\""))
        let other = try Sandbox()
        let imported = other.run(["import", "-"], stdin: exported.stdoutData)
        #expect(imported.status == 0 && imported.stdout.hasPrefix("2 added"), "\(imported.stderr)")
        #expect(other.run(["export", "--with-secrets", "--format", "jsonl"]).stdout == exported.stdout)
        // Without secrets there is no v_Data at all: importing that is refused, nothing added.
        let bare = sandbox.run(["export", "--format", "jsonl", "-s", "empty"])
        let third = try Sandbox()
        let refused = third.run(["import", "-"], stdin: bare.stdoutData)
        #expect(refused.status == 206 && refused.stderr.contains("null for an item without data"), "\(refused.stderr)")
    }
}
