import Foundation

// Only Foundation is imported here: on Apple platforms its SecItem names come along with it.

/// Keeps one token per account in the keychain, as a small app wrapper does.
public struct TokenStore {
    public let service: String

    public init(service: String) { self.service = service }

    /// Stores `token` for `account`, replacing what was there.
    @discardableResult
    public func save(_ token: String, account: String) -> OSStatus {
        SecItemDelete(query(account) as CFDictionary)
        var item = query(account)
        item[kSecValueData as String] = Data(token.utf8)
        item[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlock
        return SecItemAdd(item as CFDictionary, nil)
    }

    /// The token stored for `account`, if any.
    public func token(account: String) -> String? {
        var found = query(account)
        found[kSecReturnData as String] = true
        found[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        guard SecItemCopyMatching(found as CFDictionary, &result) == errSecSuccess, let data = result as? Data else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    func query(_ account: String) -> [String: Any] {
        [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service, kSecAttrAccount as String: account]
    }
}
