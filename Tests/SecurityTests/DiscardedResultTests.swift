import Foundation
import Security
import SecurityTesting
import Testing

/// Apple's C functions come into Swift with results a caller may drop: keychain code calls
/// `SecItemDelete(query)` and `SecRandomCopyBytes(…)` as statements, and builds with
/// -warnings-as-errors. This target is built so (Package.swift): each call below would fail the
/// build if dropping its result warned.
@Suite struct DiscardedResultTests {
    let keychain: SecurityTesting.Lease

    init() async throws { keychain = try await SecurityTesting.Lease(inMemory: .accessGroups(["SKMME9E2Y8.com.example.app"])) }

    @Test func callsWhoseResultIsDroppedBuildAndRun() throws {
        let query = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "dropped"] as CFDictionary
        SecItemDelete(query)
        var item = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "dropped"] as [String: Any]
        item[kSecValueData as String] = Data("first".utf8)
        SecItemAdd(item as CFDictionary, nil)
        SecItemUpdate(query, [kSecValueData as String: Data("second".utf8)] as CFDictionary)
        var found: CFTypeRef?
        var read = query as! [String: Any]
        read[kSecReturnData as String] = true
        SecItemCopyMatching(read as CFDictionary, &found)
        #expect(found as? Data == Data("second".utf8))
        var bytes = [UInt8](repeating: 0, count: 16)
        SecRandomCopyBytes(kSecRandomDefault, bytes.count, &bytes)
        #expect(bytes != [UInt8](repeating: 0, count: 16))
        SecItemDelete(query)
        #expect(SecItemCopyMatching(query, nil) == errSecItemNotFound)
    }
}
