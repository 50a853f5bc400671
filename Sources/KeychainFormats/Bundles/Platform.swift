import KeychainFoundation

/// Whose keychain rules apply.
package enum Platform: String, Sendable, CaseIterable {
    case ios
    case macos
}

extension Platform {
    /// As Apple writes it: iOS, macOS.
    package var displayName: String {
        switch self {
        case .ios: "iOS"
        case .macos: "macOS"
        }
    }
}
