import Foundation
import Security
import SecurityTesting
import Testing

// docs/LIBRARY.md shows this suite as it is: a lease, then app code.
@Suite struct LoginTests {
    let keychain: SecurityTesting.Lease
    init() async throws { keychain = try await SecurityTesting.Lease(inMemory: .accessGroups(["ABCDE12345.com.example.app"])) }

    @Test func theTokenIsKept() throws {
        let token: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "token",
            kSecValueData as String: Data("t0k3n".utf8),
        ]
        #expect(SecItemAdd(token as CFDictionary, nil) == errSecSuccess)
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "token", kSecReturnData as String: true,
        ]
        var result: CFTypeRef?
        #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
        #expect(result as? Data == Data("t0k3n".utf8))
    }
}
