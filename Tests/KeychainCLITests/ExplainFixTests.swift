import Foundation
import Testing

/// Every fix `explain` prints for a case of the library, followed literally on that case's keychain:
/// a query fix ("query with acct=…", "query with --sync any") is the same call with that changed,
/// and the item it is about is then found; the others (update instead, run unlocked, narrow with
/// --accessible, migrate before a transfer) are run as they read.
@Suite struct ExplainFixTests {
    static let cases = Sandbox.packageRoot + "/Fixtures/Cases"

    /// The library's cases whose command is an explain.
    static let explainCases: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: cases)) ?? []
        return names.sorted().filter { name in
            let command = (try? String(contentsOfFile: "\(cases)/\(name)/command.sh", encoding: .utf8)) ?? ""
            return command.hasPrefix("keychainctl explain ")
        }
    }()

    /// A case's keychain, made by its setup.sh in a sandbox, and its explain's arguments with the
    /// profiles' paths made absolute.
    static func prepared(_ name: String) throws -> (sandbox: Sandbox, arguments: [String]) {
        let sandbox = try Sandbox()
        let folder = "\(cases)/\(name)"
        let path = try sandbox.pathWithKeychainctl()
        if FileManager.default.fileExists(atPath: folder + "/setup.sh") {
            let setup = sandbox.run(
                ["-c", "cd \"$0\" && sh -eu ./setup.sh", folder], profile: nil,
                environment: ["PATH": path], executable: "/bin/sh")
            try #require(setup.status == 0, "\(name) setup: \(setup.stderr)")
        }
        let command = try String(contentsOfFile: folder + "/command.sh", encoding: .utf8)
        let arguments = try shellWords(command).dropFirst().map {
            $0.replacingOccurrences(of: "../../Profiles/", with: Sandbox.profiles + "/")
        }
        return (sandbox, Array(arguments))
    }

    /// `text` split as the shell splits a simple command (single quotes only, as the cases use).
    static func shellWords(_ text: String) throws -> [String] {
        var words: [String] = []
        var word: String? = nil
        var quoted = false
        for character in text {
            if quoted {
                if character == "'" { quoted = false } else { word!.append(character) }
            } else if character == "'" {
                quoted = true
                word = word ?? ""
            } else if character.isWhitespace {
                if let done = word { words.append(done) }
                word = nil
            } else {
                word = (word ?? "") + String(character)
            }
        }
        try #require(!quoted, "an unbalanced quote in \(text)")
        if let word { words.append(word) }
        return words
    }

    /// The options that set each attribute, as the cases spell them.
    static let attributeOptions: [String: [String]] = [
        "acct": ["-a", "--account"], "svce": ["-s", "--service"], "agrp": ["-g", "--group"], "labl": ["-l", "--label"],
    ]

    /// `arguments` with `option value` set (any earlier value of it replaced).
    static func setting(_ options: [String], to value: String, in arguments: [String], as option: String) -> [String] {
        var result: [String] = []
        var skip = false
        for argument in arguments {
            if skip {
                skip = false
                continue
            }
            if options.contains(argument) {
                skip = true
                continue
            }
            result.append(argument)
        }
        return result + [option, value]
    }

    /// The call a query fix describes: `acct="refresh"` sets that attribute, `--sync any` that option.
    static func following(_ fix: String, _ arguments: [String]) throws -> [String] {
        let words = String(fix.dropFirst("query with ".count).components(separatedBy: ", or ")[0])
        if words.hasPrefix("--") {
            let parts = words.split(separator: " ", maxSplits: 1).map(String.init)
            return setting([parts[0]], to: parts[1], in: arguments, as: parts[0])
        }
        let pair = words.split(separator: "=", maxSplits: 1).map(String.init)
        let code = pair[0]
        let value = try #require(pair.count == 2 && pair[1].hasPrefix("\"") ? String(pair[1].dropFirst().dropLast()) : nil, "\(fix)")
        return setting(attributeOptions[code] ?? [], to: "\(code)=\(value)", in: arguments, as: "--attr")
    }

    static func explain(_ sandbox: Sandbox, _ arguments: [String]) throws -> [String: Any] {
        let run = sandbox.run(arguments + ["--format", "json"], profile: nil)
        try #require(run.status == 0, "\(arguments): \(run.stderr)")
        return try #require(try run.json() as? [String: Any])
    }

    static func candidates(_ explanation: [String: Any]) -> [[String: Any]] {
        explanation["candidates"] as? [[String: Any]] ?? []
    }

    static func reference(_ candidate: [String: Any]) -> String? {
        (candidate["item"] as? [String: Any])?["v_PersistentRef"] as? String
    }

    /// The fixes that are not query changes, each followed by its own test below.
    static let otherFixes = [
        "update it instead (or add -U)", "run the call unlocked", "before a transfer, move the items with migrate-group",
    ]

    /// The cases print query fixes to follow (so the test below cannot pass by finding none).
    @Test func theLibraryHasExplainCasesWithQueryFixes() throws {
        #expect(Self.explainCases.count >= 8, "\(Self.explainCases)")
        var queryFixes = 0
        for name in Self.explainCases {
            let (sandbox, arguments) = try Self.prepared(name)
            let fixes = Self.candidates(try Self.explain(sandbox, arguments)).flatMap { $0["fixes"] as? [String] ?? [] }
            queryFixes += fixes.filter { $0.hasPrefix("query with ") }.count
        }
        #expect(queryFixes >= 6, "\(queryFixes) query fixes")
    }

    @Test(arguments: explainCases)
    func everyQueryFixFindsTheItemItIsAbout(_ name: String) throws {
        let (sandbox, arguments) = try Self.prepared(name)
        let explanation = try Self.explain(sandbox, arguments)
        for candidate in Self.candidates(explanation) {
            for fix in candidate["fixes"] as? [String] ?? [] {
                guard fix.hasPrefix("query with ") else {
                    #expect(Self.otherFixes.contains { fix.hasPrefix($0) }, "\(name): no test follows \(fix)")
                    continue
                }
                let followed = try Self.following(fix, arguments)
                let after = try Self.explain(sandbox, followed)
                let same = Self.candidates(after).first { Self.reference($0) == Self.reference(candidate) }
                #expect(same?["verdict"] as? String == "visible", "\(name): \(followed) after \(fix): \(same ?? [:])")
                #expect((after["predicted"] as? [String: Any])?["status"] as? Int == 0, "\(name): \(fix): \(after["predicted"] ?? "")")
            }
        }
    }

    /// g15: "update it instead (or add -U)": the update succeeds, and so does the add with -U.
    @Test func anAddsTwinIsUpdatedInstead() throws {
        let (sandbox, arguments) = try Self.prepared("g15-duplicate-after-not-found")
        let fixes = Self.candidates(try Self.explain(sandbox, arguments)).flatMap { $0["fixes"] as? [String] ?? [] }
        #expect(fixes.contains { $0.hasPrefix("update it instead (or add -U)") })
        // The explained add, with -U, as the fix says.
        let add = Array(arguments.drop { $0 != "-a" })
        let update = sandbox.run(["add", "-U"] + add, profile: nil, stdin: Data("SECRET-new".utf8))
        #expect(update.status == 0, "\(update.stderr)")
        let found = sandbox.run(["find", "-a", "alice", "-s", "api", "-l", "new label", "-w"] + arguments.suffix(2), profile: nil)
        #expect(found.status == 0 && found.stdout.trimmingCharacters(in: .newlines) == "SECRET-new", "\(found.stderr)")
        // And explain agrees: an update of it now succeeds.
        let explained = try Self.explain(sandbox, ["explain", "--operation", "update", "-a", "alice", "-s", "api"] + arguments.suffix(2))
        #expect((explained["predicted"] as? [String: Any])?["status"] as? Int == 0)
    }

    /// g2: "run the call unlocked, narrow the query with --accessible so it misses this item, or
    /// store it after-first-unlock (ck)": each of the three, followed, succeeds.
    @Test func aLockedItemsThreeFixes() throws {
        let (sandbox, arguments) = try Self.prepared("g2-locked-in-background")
        let fixes = Self.candidates(try Self.explain(sandbox, arguments)).flatMap { $0["fixes"] as? [String] ?? [] }
        #expect(fixes.contains { $0.hasPrefix("run the call unlocked, narrow the query with --accessible") })
        let unlocked = Array(arguments.filter { $0 != "--device-state" && $0 != "locked" })
        #expect((try Self.explain(sandbox, unlocked)["predicted"] as? [String: Any])?["status"] as? Int == 0)
        let narrowed = arguments + ["--accessible", "after-first-unlock"]
        #expect((try Self.explain(sandbox, narrowed)["predicted"] as? [String: Any])?["status"] as? Int == 0)
        // Stored after-first-unlock: the item bob's secret moves to ck, and the locked call succeeds.
        let profile = Array(arguments.suffix(2))
        let moved = sandbox.run(
            ["update", "-a", "bob", "-s", "sync-service", "--set-accessible", "after-first-unlock"] + profile, profile: nil)
        #expect(moved.status == 0, "\(moved.stderr)")
        #expect((try Self.explain(sandbox, arguments)["predicted"] as? [String: Any])?["status"] as? Int == 0)
    }

    /// g6: the plan explain prints for a team change, run as printed by the old team's build,
    /// leaves the item where the new team's build finds it.
    @Test func theTeamChangePlanRunAsPrintedKeepsTheItem() throws {
        let (sandbox, arguments) = try Self.prepared("g6-app-transfer")
        let text = sandbox.run(arguments, profile: nil)
        #expect(text.stdout.contains("fix: before a transfer, move the items with migrate-group"))
        let plan = try #require(text.stdout.components(separatedBy: "\n").first { $0.hasPrefix("    keychainctl migrate-group ") })
        let words = try Self.shellWords(plan).dropFirst().map {
            $0.replacingOccurrences(of: "../../Profiles/", with: Sandbox.profiles + "/")
        }
        let migrated = sandbox.run(Array(words), profile: nil)
        #expect(migrated.status == 0, "\(plan): \(migrated.stderr)")
        let after = try Self.explain(sandbox, arguments)
        let wallet = Self.candidates(after).first {
            ($0["item"] as? [String: Any])?["acct"] as? String == "wallet" && $0["verdict"] as? String == "visible"
        }
        #expect(wallet != nil, "after the plan: \(Self.candidates(after))")
    }
}
