import KeychainFoundation

/// What a failure is, for both front ends, decided once: the command turns its kind into an exit
/// status and a report, the library into the OSStatus it returns. A new kind of error is a new case
/// here, which both switches over `Kind` must then answer (the compiler sees to it), so the two
/// cannot disagree about an error again.
package struct FailureOutcome: Sendable {
    package enum Kind: Sendable, Equatable {
        /// A keychain status, Apple's.
        case keychain(KeychainStatus)
        /// A profile (entitlements, provisioning profile, bundle) that cannot be used.
        case profileUnusable
        /// Configuration that cannot be used: a variable, a key file, a folder.
        case configurationUnusable
        /// The keychain file: unreadable, not a keychain, damaged.
        case keychainFileUnusable
        /// An input or output file that cannot be read or written.
        case inputUnreadable
        /// An input over its cap.
        case inputTooLarge
        /// Anything else: a bug.
        case internalError
    }

    package let kind: Kind
    /// What happened, in keychainctl's words (for a keychain status, the status's message).
    package let message: String
    /// What to do about it; empty when the message says it all.
    package let hint: String

    package init(_ error: any Error) {
        switch error {
        case let error as KeychainError: (kind, message, hint) = (.keychain(error.status), error.status.message, error.hint)
        case let error as ProfileError: (kind, message, hint) = (.profileUnusable, error.message, "")
        case let error as ConfigurationError: (kind, message, hint) = (.configurationUnusable, error.message, "")
        case let error as StoreError: (kind, message, hint) = (.keychainFileUnusable, error.message, "")
        case let error as InputError: (kind, message, hint) = (.inputUnreadable, error.description, "")
        case let error as InputTooLarge: (kind, message, hint) = (.inputTooLarge, error.description, "")
        default: (kind, message, hint) = (.internalError, "internal error: \(error)", "")
        }
    }

    /// Its name in JSON error reports: Apple's constant for a status, keychainctl's own otherwise.
    package var name: String {
        switch kind {
        case .keychain(let status): status.name
        case .profileUnusable: "profileUnusable"
        case .configurationUnusable: "configurationUnusable"
        case .keychainFileUnusable: "keychainFileUnusable"
        case .inputUnreadable: "inputUnreadable"
        case .inputTooLarge: "inputTooLarge"
        case .internalError: "internalError"
        }
    }

    /// The OSStatus the library returns: a status as it is; configuration the library cannot use
    /// (a profile, a key file, a variable) errSecNotAvailable, as no keychain; a damaged file
    /// errSecDecode; an input over its cap errSecParam; a file it cannot read errSecIO.
    package var osStatus: Int32 {
        switch kind {
        case .keychain(let status): status.rawValue
        case .profileUnusable, .configurationUnusable: KeychainStatus.notAvailable.rawValue
        case .keychainFileUnusable: KeychainStatus.decode.rawValue
        case .inputUnreadable: Self.errSecIO
        case .inputTooLarge: KeychainStatus.param.rawValue
        case .internalError: Self.errSecInternalComponent
        }
    }

    /// Statuses the engine's own enum does not name, from Apple's table of them.
    private static let errSecIO = AppleStatuses.row(named: "errSecIO")?.status ?? KeychainStatus.param.rawValue
    private static let errSecInternalComponent =
        AppleStatuses.row(named: "errSecInternalComponent")?.status ?? KeychainStatus.param.rawValue
}
