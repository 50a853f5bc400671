#if canImport(Security)
    import Security
#endif

extension TokenStore {
    /// Removes `account`'s token: errSecItemNotFound when there was none.
    @discardableResult
    public func delete(account: String) -> OSStatus {
        SecItemDelete(query(account) as CFDictionary)
    }

    /// Whether this build sees a Security module (true on Apple platforms, and on Linux where
    /// the installed SDK is on the search path).
    public static var hasSecurity: Bool {
        #if canImport(Security)
            true
        #else
            false
        #endif
    }
}
