import Foundation
import Testing

/// The certificate and key fixtures are the oracle of the known-answer tests, made once
/// (Fixtures/Certificates/generate.sh cannot make the same files again): each is the file its
/// checksum says, and every file there has one, so none changes, appears or goes unnoticed.
@Suite struct FixtureChecksumTests {
    @Test func everyCertificateFixtureIsTheCommittedOne() throws {
        let folder = Sandbox.packageRoot + "/Fixtures/Certificates"
        let sums = try String(contentsOfFile: folder + "/SHA256SUMS", encoding: .utf8)
        let listed = Set(
            sums.split(separator: "\n").compactMap { $0.split(separator: " ", omittingEmptySubsequences: true).last.map(String.init) })
        let present = Set(try FileManager.default.contentsOfDirectory(atPath: folder)).subtracting(["SHA256SUMS", "generate.sh"])
        #expect(
            listed == present,
            "listed but missing: \(listed.subtracting(present).sorted()); not listed: \(present.subtracting(listed).sorted())")
        #expect(listed.count >= 40, "\(listed.count)")
        let sandbox = try Sandbox(initialize: false)
        let check = sandbox.run(
            ["-c", "cd \"$0\" && sha256sum --check --quiet SHA256SUMS", folder], profile: nil, timeout: 60, executable: "/bin/sh")
        #expect(check.status == 0, "\(check.stdout) \(check.stderr)")
    }
}
