import Foundation
import Testing

/// `groups` output against golden files beside this test; KEYCHAINCTL_RECORD=1 re-records them.
@Suite struct GroupsGoldenTests {
    static let golden: String = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden").path

    @Test(arguments: [
        ("app.plist", "text", "groups-app.txt"),
        ("app.plist", "json", "groups-app.json"),
        ("macos.provisionprofile.plist", "json", "groups-macos.json"),
        ("token-reader.plist", "text", "groups-token-reader.txt"),
    ])
    func matchesGolden(_ profile: String, _ format: String, _ file: String) throws {
        let sandbox = try Sandbox(initialize: false)
        let run = sandbox.run(["groups", "--format", format], profile: profile)
        #expect(run.status == 0)
        let output = run.stdout.replacingOccurrences(of: Sandbox.profiles + "/", with: "Fixtures/Profiles/")
        let path = Self.golden + "/" + file
        if ProcessInfo.processInfo.environment["KEYCHAINCTL_RECORD"] != nil {
            try FileManager.default.createDirectory(atPath: Self.golden, withIntermediateDirectories: true)
            try output.write(toFile: path, atomically: true, encoding: .utf8)
        }
        let expected = try String(contentsOfFile: path, encoding: .utf8)
        #expect(output == expected)
    }
}
