import Foundation
import Testing

/// The `Security` module's public API, every declaration with its signature, is the committed
/// `Fixtures/API/Security.swiftinterface`: a change to the surface apps call (a symbol added,
/// removed, or its signature changed) fails here until the file is regenerated, so it shows in
/// review as that file's diff.
@Suite struct PublicAPITests {
    static let committed = Sandbox.packageRoot + "/Fixtures/API/Security.swiftinterface"

    /// The build's interface, as Scripts/public-api.sh prints it.
    static func built() throws -> String {
        let bin = URL(fileURLWithPath: Sandbox.binary).deletingLastPathComponent().path
        let sandbox = try Sandbox(initialize: false)
        let run = sandbox.run([Sandbox.packageRoot + "/Scripts/public-api.sh", bin], profile: nil, timeout: 60, executable: "/bin/sh")
        #expect(run.status == 0, "\(run.stderr)")
        return run.stdout
    }

    @Test func theBuildsPublicAPIIsTheCommittedOne() throws {
        let built = try Self.built()
        let committed = try String(contentsOfFile: Self.committed, encoding: .utf8)
        #expect(built.contains("public func SecItemCopyMatching(_ query: Security.CFDictionary"), "\(built.prefix(300))")
        let changed = Set(built.split(separator: "\n")).symmetricDifference(committed.split(separator: "\n"))
        #expect(
            built == committed,
            "the public API of Security changed: review it, then run 'Scripts/public-api.sh > Fixtures/API/Security.swiftinterface'. Lines: \(changed.sorted().prefix(20))"
        )
    }
}
