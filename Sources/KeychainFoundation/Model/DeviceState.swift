/// The simulated device a keychain file belongs to (docs/FIDELITY.md): its
/// lock state, whether it has a passcode, and its enrolled biometry. Which class keys exist follows
/// from it, as Apple's keybag decides:
///
/// | state | class A (`ak aku akpu`) | class C (`ck cku`) | class D (`dk dku`) |
/// |---|---|---|---|
/// | unlocked | available | available | available |
/// | locked (after first unlock) | gone | available | available |
/// | before first unlock | gone | gone | available |
/// | no passcode (never locks) | available, but no `akpu` | available | available |
package struct DeviceState: Sendable, Equatable {
    /// The lock state.
    package enum Lock: String, Sendable, CaseIterable {
        case unlocked
        case locked
        case beforeFirstUnlock = "before-first-unlock"

        /// The accepted words, for usage errors.
        package static var allNames: String { allCases.map(\.rawValue).joined(separator: ", ") }
    }

    package var lock: Lock
    /// Whether a passcode is set. A device without one never locks, and has no `akpu` class.
    package var passcode: Bool
    /// The enrolled biometry set's identity (random, changed by every re-enrolment), or `nil` when
    /// none is enrolled.
    package var biometrySet: [UInt8]?
    /// Whether an item with an access control was ever written to this keychain: not the device's
    /// but the keychain's, sealed with the state so that a find on a keychain that never held
    /// one does not look for one (set by the first such write, never cleared).
    package var hasProtectedItems = false

    /// Bytes of a biometry set identity.
    package static let biometrySetBytes = 16

    /// A new keychain's device: unlocked, with a passcode and enrolled biometry.
    package static func fresh() -> DeviceState {
        DeviceState(lock: .unlocked, passcode: true, biometrySet: Sodium.randomBytes(biometrySetBytes))
    }

    /// Whether the class key of `accessibility` is available in this state.
    package func allows(_ accessibility: Accessibility) -> Bool {
        if accessibility == .whenPasscodeSetThisDeviceOnly, !passcode { return false }
        guard passcode else { return true }
        switch lock {
        case .unlocked: return true
        case .locked: return !accessibility.isClassA
        case .beforeFirstUnlock: return accessibility.isClassD
        }
    }

    /// Whether every class that can hold items is available: unlocked, or no passcode (whose only
    /// missing class, `akpu`, lost its items when the passcode went).
    package var allowsEveryClass: Bool { !passcode || lock == .unlocked }

    /// The error for using a class this state does not allow: errSecInteractionNotAllowed naming the
    /// state, the class and the fix, or, for `akpu` with no passcode, errSecAuthFailed.
    package func refusal(_ accessibility: Accessibility) -> KeychainError {
        if accessibility == .whenPasscodeSetThisDeviceOnly, !passcode {
            return KeychainError(
                .authFailed,
                hint: "the device has no passcode, so the class when-passcode-set-this-device-only (akpu) does not exist; "
                    + "set one with 'keychainctl device passcode set'.")
        }
        let state = lock == .locked ? "is locked" : "has not been unlocked since it restarted (before first unlock)"
        let readable = lock == .locked ? "after-first-unlock (ck) or always (dk)" : "always (dk)"
        return KeychainError(
            .interactionNotAllowed,
            hint: "the device \(state), and items of class \(accessibility.longName) (\(accessibility.rawValue)) "
                + "cannot be read or written until it is unlocked. Code that runs in this state (a widget, a background "
                + "task, a notification extension) needs items stored as \(readable); "
                + "'keychainctl device unlock' unlocks the simulated device.")
    }

    /// The state as stored, sealed by the key ring: a format byte (2), the lock, the passcode
    /// flag, the protected-items flag and the biometry set (empty for none). Format 1, written
    /// before access controls, had no protected-items flag.
    package var encoded: [UInt8] {
        let lockByte: UInt8 =
            switch lock {
            case .unlocked: 0
            case .locked: 1
            case .beforeFirstUnlock: 2
            }
        return [2, lockByte, passcode ? 1 : 0, hasProtectedItems ? 1 : 0] + (biometrySet ?? [])
    }

    /// Parses `encoded` (format 1 or 2); `nil` for anything else.
    package init?(encoded bytes: [UInt8]) {
        guard let format = bytes.first, format == 1 || format == 2 else { return nil }
        let header = format == 1 ? 3 : 4
        guard bytes.count == header || bytes.count == header + Self.biometrySetBytes, bytes[2] <= 1, bytes[header - 1] <= 1
        else { return nil }
        switch bytes[1] {
        case 0: lock = .unlocked
        case 1: lock = .locked
        case 2: lock = .beforeFirstUnlock
        default: return nil
        }
        passcode = bytes[2] == 1
        hasProtectedItems = format == 2 && bytes[3] == 1
        biometrySet = bytes.count == header ? nil : Array(bytes[header...])
    }

    package init(lock: Lock, passcode: Bool, biometrySet: [UInt8]?) {
        self.lock = lock
        self.passcode = passcode
        self.biometrySet = biometrySet
    }
}

extension Accessibility {
    /// Class A: available only while the device is unlocked.
    package var isClassA: Bool { self == .whenUnlocked || self == .whenUnlockedThisDeviceOnly || self == .whenPasscodeSetThisDeviceOnly }
    /// Class D: always available.
    package var isClassD: Bool { self == .always || self == .alwaysThisDeviceOnly }
}
