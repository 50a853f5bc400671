import KeychainFoundation

/// Whose keychain rules apply.
package enum Platform: String, Sendable {
    case ios
    case macos
}
