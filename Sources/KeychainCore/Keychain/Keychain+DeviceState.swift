import KeychainFoundation

/// What every item operation asks of the simulated device's state (sealed in the file): whether it
/// locks a row's class, and the note that protected items exist. The operations that change the
/// state (locking, rebooting, the passcode) are the Device room's, above this one.
extension Keychain {
    /// Records, inside the caller's write transaction, that `sealed` (about to be written) has an
    /// access control, the first time one is written: finds then look for protected matches.
    func noteAccessControl(of sealed: SealedItem) throws {
        guard sealed.hasAccessControl, !keys.device.hasProtectedItems else { return }
        var stored = try storedDevice()
        stored.hasProtectedItems = true
        try store.writeDevice(keys.sealDevice(stored))
        keys.device.hasProtectedItems = true
    }

    /// Whether the device's state locks the class of `row` (read from its plaintext column; a row
    /// whose class is not one is left for opening to report as damaged).
    func isLocked(_ row: SealedItem) -> Bool {
        guard let accessibility = Accessibility(rawValue: row.accessibility) else { return false }
        return !keys.device.allows(accessibility)
    }

    /// The state the file holds now, whatever `--device-state` says for this call.
    package func storedDevice() throws -> DeviceState {
        guard let record = try store.deviceRecord() else {
            throw KeychainError(
                .notAvailable, hint: "this keychain file cannot be written, so it was not upgraded to hold a device state.")
        }
        guard let state = keys.openDevice(record) else {
            throw StoreError("\(store.connection.path)'s device state does not open: the file was edited without its key")
        }
        return state
    }
}
