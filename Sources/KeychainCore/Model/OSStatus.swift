/// The keychain status codes keychainctl returns (SEMANTICS §5), with Apple's messages.
package enum KeychainStatus: Int32, Sendable, CaseIterable {
    case param = -50
    case userCanceled = -128
    case authFailed = -25293
    case notAvailable = -25291
    case duplicateKeychain = -25296
    case duplicateItem = -25299
    case itemNotFound = -25300
    case noSuchAttr = -25303
    case noSuchClass = -25306
    case interactionNotAllowed = -25308
    case decode = -26275
    case missingEntitlement = -34018

    /// Apple's constant name.
    package var name: String {
        switch self {
        case .param: "errSecParam"
        case .userCanceled: "errSecUserCanceled"
        case .authFailed: "errSecAuthFailed"
        case .notAvailable: "errSecNotAvailable"
        case .duplicateKeychain: "errSecDuplicateKeychain"
        case .duplicateItem: "errSecDuplicateItem"
        case .itemNotFound: "errSecItemNotFound"
        case .noSuchAttr: "errSecNoSuchAttr"
        case .noSuchClass: "errSecNoSuchClass"
        case .interactionNotAllowed: "errSecInteractionNotAllowed"
        case .decode: "errSecDecode"
        case .missingEntitlement: "errSecMissingEntitlement"
        }
    }

    /// Apple's message (`SecCopyErrorMessageString`).
    package var message: String {
        switch self {
        case .param: "One or more parameters passed to a function were not valid."
        case .userCanceled: "User canceled the operation."
        case .authFailed: "The user name or passphrase you entered is not correct."
        case .notAvailable: "No keychain is available. You may need to restart your computer."
        case .duplicateKeychain: "A keychain with the same name already exists."
        case .duplicateItem: "The specified item already exists in the keychain."
        case .itemNotFound: "The specified item could not be found in the keychain."
        case .noSuchAttr: "The specified attribute does not exist."
        case .noSuchClass: "The specified item class does not exist."
        case .interactionNotAllowed: "User interaction is not allowed."
        case .decode: "Unable to decode the provided data."
        case .missingEntitlement: "A required entitlement isn't present."
        }
    }

    /// The shell exit status: the status's low byte, as macOS `security` exits.
    package var exitStatus: Int32 { rawValue & 0xFF }
}

/// A keychain status with a hint that explains this case. Never carries secret bytes.
package struct KeychainError: Error, Sendable, Equatable {
    /// The status.
    package let status: KeychainStatus
    /// One line explaining this case (which groups the profile has, what was probably meant).
    package let hint: String
    /// For errSecDecode: the damaged rows it is about.
    package let damaged: [DamagedRow]

    /// A status with its explanation.
    package init(_ status: KeychainStatus, hint: String, damaged: [DamagedRow] = []) {
        self.status = status
        self.hint = hint
        self.damaged = damaged
    }
}
