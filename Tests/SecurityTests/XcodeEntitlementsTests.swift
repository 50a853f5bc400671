import Foundation
import KeychainCore
import Security
import SecurityTesting
import Testing

/// A test acts as the app Xcode signs, from its `.entitlements` as written: `$(AppIdentifierPrefix)`
/// and `$(TeamIdentifierPrefix)` take the Team ID the lease is given, or KEYCHAINCTL_TEAM_ID; with
/// neither, the error says which parameter takes it.
@Suite(.serialized) struct XcodeEntitlementsTests {
    static let entitlements = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/Profiles/source-variables.entitlements").path

    /// Adds an item with no group (it lands in the default, the first group) and returns its group.
    static func addedGroup() -> String? {
        let item: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "xcode", kSecValueData as String: Data("v".utf8),
            kSecReturnAttributes as String: true,
        ]
        var added: CFTypeRef?
        guard SecItemAdd(item as CFDictionary, &added) == errSecSuccess else { return nil }
        return (added as? [String: Any])?[kSecAttrAccessGroup as String] as? String
    }

    @Test func theTeamIDResolvesTheEntitlementsAsXcodeWouldSignThem() async throws {
        do {
            let lease = try await SecurityTesting.Lease(inMemory: .profile(path: Self.entitlements, teamID: "SKMME9E2Y8"))
            #expect(Self.addedGroup() == "SKMME9E2Y8.com.example.shared")
            _ = lease
        }
        // The variable as this test's environment alone holds it (`Environment.overlay`): a
        // `setenv` would race with the suites running beside this one.
        try await Environment.$overlay.withValue(Environment.Overlay(["KEYCHAINCTL_TEAM_ID": "ABCDE12345"])) {
            let fromEnvironment = try await SecurityTesting.Lease(inMemory: .profile(path: Self.entitlements))
            #expect(Self.addedGroup() == "ABCDE12345.com.example.shared")
            _ = fromEnvironment
        }
    }

    @Test func withoutATeamIDTheErrorNamesTheParameter() async throws {
        do {
            _ = try await Environment.$overlay.withValue(Environment.Overlay()) {
                try await SecurityTesting.Lease(inMemory: .profile(path: Self.entitlements))
            }
            Issue.record("the entitlements loaded without a Team ID")
        } catch {
            let said = String(describing: error)
            #expect(
                said.contains(".profile(path:teamID:)") && said.contains("KEYCHAINCTL_TEAM_ID") && !said.contains("--team-id"), "\(said)")
        }
    }
}
