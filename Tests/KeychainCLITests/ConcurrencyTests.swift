import Foundation
import Testing

/// Several processes on one keychain file: WAL, busy timeout, `BEGIN IMMEDIATE`, atomic creation.
@Suite struct ConcurrencyTests {
    /// `count` shell workers on `sandbox`'s keychain, as the app (`Sandbox.parallelShells`).
    func parallelShells(_ count: Int, sandbox: Sandbox, _ script: String) throws -> [Int32] {
        let environment = sandbox.baseEnvironment.merging(["KEYCHAINCTL_PROFILE": Sandbox.profiles + "/app.plist"]) { $1 }
        return try Sandbox.parallelShells(Array(repeating: environment, count: count), script)
    }

    @Test func eightWritersOfFiftyItemsLoseNothing() throws {
        let sandbox = try Sandbox()
        let statuses = try parallelShells(
            8, sandbox: sandbox, "i=0; while [ $i -lt 50 ]; do printf s | \"$KC\" add -s \"w$W\" -a \"$i\" || exit 1; i=$((i+1)); done")
        #expect(statuses == Array(repeating: 0, count: 8))
        let all = try sandbox.run(["find", "--limit", "all", "--format", "json"]).json() as? [[String: Any]]
        #expect(all?.count == 400)
        #expect(Set(all?.compactMap { "\($0["svce"] ?? "")/\($0["acct"] ?? "")" } ?? []).count == 400)
    }

    @Test func fourRacersForOneItemGiveOneSuccessAndThreeDuplicates() throws {
        for _ in 0..<3 {
            let sandbox = try Sandbox()
            let statuses = try parallelShells(4, sandbox: sandbox, "printf \"$W\" | \"$KC\" add -s race -a one")
            #expect(statuses.sorted() == [0, 45, 45, 45])
            #expect(
                sandbox.run(["find", "-s", "race", "--limit", "all", "--format", "json"]).stdout.components(separatedBy: "\"race\"").count
                    == 2)
        }
    }

    @Test func racingCreatorsMakeExactlyOneWorkingKeychain() throws {
        let sandbox = try Sandbox(initialize: false)
        let statuses = try parallelShells(4, sandbox: sandbox, "\"$KC\" init --generate-key-file \"$HOME/key$W\" --keychain \"$HOME/k.db\"")
        #expect(statuses.sorted() == [0, 48, 48, 48])
        let winner = statuses.firstIndex(of: 0)!
        let environment = ["KEYCHAINCTL_KEYCHAIN": sandbox.folder + "/k.db", "KEYCHAINCTL_KEY_FILE": sandbox.folder + "/key\(winner)"]
        #expect(sandbox.run(["add", "-s", "x"], stdin: Data("y".utf8), environment: environment).status == 0)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: sandbox.folder).filter {
            $0.contains("creating") || $0.hasPrefix("key")
        }
        #expect(leftovers == ["key\(winner)"])
    }
}
