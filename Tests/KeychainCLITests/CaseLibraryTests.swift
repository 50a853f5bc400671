import CommandLineKit
import Foundation
import Testing

/// Every case of `Fixtures/Cases` run through its own `run.sh`, as a developer
/// runs it, against its golden transcript (`KEYCHAINCTL_RECORD=1` re-records them).
@Suite struct CaseLibraryTests {
    static let folder = Sandbox.packageRoot + "/Fixtures/Cases"

    static let cases: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { FileManager.default.fileExists(atPath: "\(folder)/\($0)/command.sh") }.sorted()
    }()

    @Test func theLibraryCoversAtLeastFifteenRootCauseGroups() throws {
        let groups = Set(Self.cases.map { $0.split(separator: "-").first.map(String.init) ?? $0 })
        #expect(groups.count >= 15, "\(groups.sorted())")
        for name in Self.cases {
            let readme = try String(contentsOfFile: "\(Self.folder)/\(name)/README.md", encoding: .utf8)
            for part in ["**Symptom.**", "**Root cause.**", "**Source.**", "**Fix.**"] {
                #expect(readme.contains(part), "\(name) README lacks \(part)")
            }
            let command = try String(contentsOfFile: "\(Self.folder)/\(name)/command.sh", encoding: .utf8)
            #expect(readme.contains(command.trimmingCharacters(in: .whitespacesAndNewlines)), "\(name) README shows another command")
        }
    }

    /// README and docs/DEBUGGING.md count the cases as there are folders, and the guide's table
    /// links every one of them.
    @Test func theDocsCountAndListEveryCase() throws {
        let debugging = try String(contentsOfFile: Sandbox.packageRoot + "/docs/DEBUGGING.md", encoding: .utf8)
        let readme = try String(contentsOfFile: Sandbox.packageRoot + "/README.md", encoding: .utf8)
        #expect(Self.cases.count >= 15)
        #expect(debugging.contains("holds \(Self.cases.count) real cases"))
        #expect(readme.contains("\(Self.cases.count) real cases"))
        for name in Self.cases { #expect(debugging.contains("](../Fixtures/Cases/\(name)/README.md)"), "\(name) is not in the table") }
    }

    @Test(arguments: cases)
    func caseMatchesItsTranscript(_ name: String) throws {
        let sandbox = try Sandbox(initialize: false)
        let run = sandbox.run(
            [Self.folder + "/run.sh", name], profile: nil, environment: ["KEYCHAINCTL": Sandbox.binary], timeout: 120,
            executable: "/bin/sh")
        #expect(run.status == 0, "\(name): \(run.stderr)")
        #expect(run.stderr.isEmpty, "\(name) setup or runner wrote: \(run.stderr)")
        #expect(!run.stdout.contains("keychainctl-e2e-"), "a throwaway path leaked into \(name)'s transcript")
        // Every secret a setup stores is spelled SECRET-…; none may reach the transcript.
        let setup = (try? String(contentsOfFile: "\(Self.folder)/\(name)/setup.sh", encoding: .utf8)) ?? ""
        let stored = setup.components(separatedBy: "printf '").dropFirst()
        #expect(stored.allSatisfy { $0.hasPrefix("SECRET-") }, "\(name)'s setup stores a secret not spelled SECRET-…")
        #expect(!run.stdout.contains("SECRET-"), "a secret reached \(name)'s transcript")
        try GoldenFile.check(GoldenFile.normalized(run.stdout), "\(Self.folder)/\(name)/expected.txt")
    }

    @Test func anUnknownCaseIsAUsageError() throws {
        let run = try Sandbox(initialize: false).run(
            [Self.folder + "/run.sh", "no-such-case"], profile: nil, environment: ["KEYCHAINCTL": Sandbox.binary], timeout: 60,
            executable: "/bin/sh")
        #expect(run.status == 64)
        #expect(run.stderr.contains("no case 'no-such-case'"))
    }
}
