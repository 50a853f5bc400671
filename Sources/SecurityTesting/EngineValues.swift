package import KeychainCore
package import KeychainFormats

// The one mapping from the testing API's public enums to the engine's own, which a public API
// cannot name. Each is a switch the compiler checks whole: a case added to or removed from either
// side fails the build here, and `LibraryTests` checks that every engine value is reached.

extension SecurityTesting.Platform {
    package var engine: KeychainFormats.Platform {
        switch self {
        case .ios: .ios
        case .macos: .macos
        }
    }
}

extension SecurityTesting.LockState {
    package var engine: DeviceState.Lock {
        switch self {
        case .unlocked: .unlocked
        case .locked: .locked
        case .beforeFirstUnlock: .beforeFirstUnlock
        }
    }
}

extension SecurityTesting.DeviceChange {
    package var engine: Keychain.DeviceAction {
        switch self {
        case .lock: .lock
        case .unlock: .unlock
        case .reboot: .reboot
        case .passcodeSet: .passcodeSet
        case .passcodeRemove: .passcodeRemove
        case .biometryEnroll: .biometryEnroll
        case .biometryChange: .biometryChange
        case .biometryRemove: .biometryRemove
        }
    }
}

extension SecurityTesting.AuthenticationAnswer {
    package var engine: Authentication.Answer {
        switch self {
        case .approve: .approve
        case .cancel: .cancel
        case .fail: .fail
        }
    }
}
