import KeychainFoundation

/// Whose keychain rules apply.
package enum Platform: String, Sendable, CaseIterable {
    case ios
    case macos
}
