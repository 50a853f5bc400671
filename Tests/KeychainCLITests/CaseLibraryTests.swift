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

    /// What each case's transcript must show, written from its README (the root cause's status and
    /// items, the fix's command or value) and not from what the code printed: a re-recorded
    /// transcript that lost the diagnosis fails here.
    static let diagnoses: [String: [String]] = [
        "g10-sync-filter": ["errSecItemNotFound (-25300)", "sync=yes", "HIDDEN", "fix: query with --sync any"],
        "g11-doubled-prefix": ["error[KC004]", "has the App ID prefix twice", #"fix: write "SKMME9E2Y8.com.example.shared"."#, "exit: 65"],
        "g12-app-group-with-prefix": ["errSecMissingEntitlement (-34018)", #"fix: query with agrp="group.com.example""#],
        "g13-simulated-entitlements": [
            "[KC011]", "com.apple.security.application-groups", "Widget.appex-Simulated.xcent", "Signing & Capabilities",
        ],
        "g14-this-device-only": ["acct=seed svce=wallet", "pdmn=aku", "not restored to another device", "pdmn=ck"],
        "g15-duplicate-after-not-found": [
            "errSecDuplicateItem (-25299)", "labl=old label", "(acct, svce, agrp, sync)", "update it instead",
        ],
        "g16-wildcard-group": ["error[KC010]", #""*""#, "wildcard", "with its Team ID prefix", "exit: 65"],
        "g17-token-group-on-ios": ["errSecMissingEntitlement (-34018)", "com.apple.token", "(ios)"],
        "g1a-macos-unsigned-add": ["(macos)", "errSecMissingEntitlement (-34018)", "writes nothing", "com.apple.token"],
        "g2-locked-in-background": ["errSecInteractionNotAllowed (-25308)", "pdmn=ak", "BLOCKED", "--accessible", "after-first-unlock"],
        "g3-widget-default-group": ["SKMME9E2Y8.com.example.app.widget", "visible to widget only; hidden from app"],
        "g4-group-without-prefix": ["errSecMissingEntitlement (-34018)", #"fix: query with agrp="SKMME9E2Y8.com.example.shared""#],
        "g6-app-transfer": ["ZZZZZ99999", "migrate-group", "--copy --from SKMME9E2Y8.com.example.app --to group.com.example"],
        "g7-source-not-signed": ["[KC011]", "App-Debug.xcent", "SKMME9E2Y8.com.example.shared", "CODE_SIGN_ENTITLEMENTS"],
        "g8-group-not-in-profile": ["error[KC009]", "group.im.vector", "group.com.example.fork", "exit: 65"],
        "g9-service-is-bundle-id": ["NEAR MISS  svce (service) differs", #"fix: query with svce="com.example.app""#],
    ]

    @Test func everyCaseHasADiagnosisWrittenApart() {
        #expect(Set(Self.diagnoses.keys) == Set(Self.cases), "\(Set(Self.cases).symmetricDifference(Self.diagnoses.keys))")
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
        for phrase in Self.diagnoses[name] ?? [] { #expect(run.stdout.contains(phrase), "\(name) no longer shows: \(phrase)") }
    }

    @Test func anUnknownCaseIsAUsageError() throws {
        let run = try Sandbox(initialize: false).run(
            [Self.folder + "/run.sh", "no-such-case"], profile: nil, environment: ["KEYCHAINCTL": Sandbox.binary], timeout: 60,
            executable: "/bin/sh")
        #expect(run.status == 64)
        #expect(run.stderr.contains("no case 'no-such-case'"))
    }
}
