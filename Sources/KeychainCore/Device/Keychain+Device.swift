import KeychainFormats
import KeychainFoundation

/// The simulated device the keychain belongs to (docs/FIDELITY.md): locking it, rebooting it, its
/// passcode. The state is sealed in the file (schema version 3)
/// and decides which class keys the key ring will unwrap.
extension Keychain {
    /// The device as this call sees it (`--device-state` applied).
    package var device: DeviceState { keys.device }

    /// A change to the stored device state.
    package enum DeviceAction: String, Sendable, CaseIterable {
        case lock
        case unlock
        case reboot
        case passcodeSet = "passcode set"
        case passcodeRemove = "passcode remove"
        case biometryEnroll = "biometry enroll"
        case biometryChange = "biometry change"
        case biometryRemove = "biometry remove"

        /// Whether this change can make items unreadable for good (and reports how many it did).
        package var invalidatesItems: Bool { self == .passcodeRemove || self == .biometryChange || self == .biometryRemove }

        /// The rows this change makes unreadable for good, when the device is as `state` says.
        func invalidates(_ state: DeviceState) -> RowFilter? {
            var filter = RowFilter.everyRow
            switch self {
            case .passcodeRemove where state.passcode:
                filter.accessibility = Accessibility.whenPasscodeSetThisDeviceOnly.rawValue
            case .biometryChange where state.biometrySet != nil, .biometryRemove where state.biometrySet != nil:
                filter.accessControlContaining = "pbioh("
            default: return nil
            }
            return filter
        }
    }

    /// What a change did: the state now, and how many items it made unreadable for good (and
    /// deleted).
    package struct DeviceChange: Sendable {
        package let state: DeviceState
        package let invalidated: Int
    }

    /// How many items (tombstones aside) `action` would make unreadable for good, in every group:
    /// every item of class `akpu` when the passcode goes, every biometry-current-set item when the
    /// enrolled biometry changes or goes.
    package func invalidatedCount(by action: DeviceAction) throws -> Int {
        guard let filter = action.invalidates(try storedDevice()) else { return 0 }
        return try store.read { try rows(filter).reduce(0) { $0 + $1.live } }
    }

    /// Applies `action` to the stored state in one transaction (another process's change in
    /// between is read first). Removing the passcode destroys the `akpu` class key and deletes its
    /// items, as the device does ("Disabling the device passcode will cause all previously protected
    /// items to be deleted", `SecItem.h`); setting one makes a new, empty `akpu` class. Either
    /// leaves the device unlocked, as changing the passcode in Settings does.
    package func changeDevice(_ action: DeviceAction) throws -> DeviceChange {
        try store.write {
            let before = try storedDevice()
            var state = before
            var invalidated = 0
            switch action {
            case .lock: state.lock = .locked
            case .unlock: state.lock = .unlocked
            case .reboot: state.lock = .beforeFirstUnlock
            case .passcodeSet:
                state.lock = .unlocked  // done in Settings, on an unlocked device
                if !state.passcode {
                    let akpu = Accessibility.whenPasscodeSetThisDeviceOnly
                    try store.writeClassKey(akpu.rawValue, keys.newClassKey(akpu))
                    state.passcode = true
                }
            case .passcodeRemove:
                state.lock = .unlocked
                if state.passcode {
                    try store.deleteClassKey(Accessibility.whenPasscodeSetThisDeviceOnly.rawValue)
                    keys.destroyClassKey(.whenPasscodeSetThisDeviceOnly)
                    state.passcode = false
                }
            case .biometryEnroll:
                if state.biometrySet == nil { state.biometrySet = Sodium.randomBytes(DeviceState.biometrySetBytes) }
            case .biometryChange:
                state.biometrySet = Sodium.randomBytes(DeviceState.biometrySetBytes)
            case .biometryRemove:
                state.biometrySet = nil
            }
            if let filter = action.invalidates(before) {
                for (itemClass, rowids, live) in try rows(filter) {
                    for rowid in rowids { try store.delete(itemClass, rowid: rowid) }
                    invalidated += live
                }
            }
            try store.writeDevice(keys.sealDevice(state))
            keys.device = state
            return DeviceChange(state: state, invalidated: invalidated)
        }
    }

    /// Every row `filter` selects, by item class, with how many of them are items (not tombstones).
    private func rows(_ filter: RowFilter) throws -> [(itemClass: ItemClass, rowids: [Int64], live: Int)] {
        try ItemClass.stored.map { itemClass in
            var rowids: [Int64] = []
            var live = 0
            try store.forEachRow(itemClass, filter: filter, withSecret: false) { rowid, row in
                rowids.append(rowid)
                if !row.isTombstone { live += 1 }
                return true
            }
            return (itemClass, rowids, live)
        }
    }
}
