import KeychainCore

/// `keychainctl device`: the keychain's simulated device (lock state and passcode).
struct DeviceCommand: Subcommand {
    static let spec = CommandSpec(
        name: "device",
        abstract: "Show or change the simulated device: locked, unlocked, rebooted, its passcode.",
        discussion: """
            The state lives in the keychain file. Locked: items of the when-unlocked classes (ak, aku, akpu) \
            cannot be read, added or updated (exit 36, errSecInteractionNotAllowed); before the first unlock \
            after a reboot, the after-first-unlock classes (ck, cku) neither. A device without a passcode never \
            locks and has no when-passcode-set-this-device-only (akpu) class: removing the passcode deletes \
            those items for good, after confirmation on a terminal (--yes otherwise). --device-state runs any \
            other command in a state without storing it (status then shows that state; the changes ignore \
            KEYCHAINCTL_DEVICE_STATE and refuse --device-state).
            """,
        sections: [
            ("options", [.flag("yes", "Do not ask before deleting the items a change makes unreadable.")]),
            ("global options", GlobalOptions.specs),
        ],
        actions: [
            ("status", "Print the state, the passcode and the biometry (the default)."),
            ("lock", "Lock the device: the when-unlocked classes become unavailable."),
            ("unlock", "Unlock the device: every class is available."),
            ("reboot", "Restart: before the first unlock, the after-first-unlock classes are unavailable too."),
            ("passcode set", "Set a passcode: the device can lock, and akpu items can be added."),
            ("passcode remove", "Remove the passcode: every akpu item is lost and deleted."),
        ])

    let globals: GlobalOptions
    let action: Keychain.DeviceAction?
    let yes: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        globals = try GlobalOptions(arguments)
        action = arguments.action.flatMap(Keychain.DeviceAction.init(rawValue:))
        yes = arguments.flag("yes")
        if action != nil, globals.deviceState != nil {
            throw UsageError(
                "--device-state runs one call in a state without storing it; 'device \(arguments.action!)' changes the stored state. Give one or the other."
            )
        }
    }

    func run() throws {
        let keychain = try globals.openKeychain()
        guard let action else {
            var out = Self.render(keychain.device, format: globals.resolvedFormat, invalidated: nil)
            if globals.resolvedFormat == .text, try globals.resolvedDeviceState() != nil {
                out +=
                    "(this call's state, from --device-state or KEYCHAINCTL_DEVICE_STATE; stored: \(try keychain.storedDevice().lock.rawValue))\n"
            }
            StandardStreams.out(out)
            return
        }
        let lost = try keychain.invalidatedCount(by: action)
        if lost > 0, !yes {
            let question =
                "Removing the passcode deletes \(lost) item\(lost == 1 ? "" : "s") of class when-passcode-set-this-device-only (akpu), "
                + "in every access group, for good. Continue? [y/N] "
            guard try Confirmation.ask(question) else {
                throw KeychainError(.userCanceled, hint: "nothing was changed.")
            }
        }
        let change = try keychain.changeDevice(action)
        StandardStreams.out(
            Self.render(change.state, format: globals.resolvedFormat, invalidated: action == .passcodeRemove ? change.invalidated : nil))
    }

    /// The state as text lines or as `{"state", "passcode", "biometry"}` (and `invalidated` after a
    /// change that made items unreadable).
    static func render(_ state: DeviceState, format: OutputFormat, invalidated: Int?) -> String {
        let biometry = state.biometrySet == nil ? "none" : "enrolled"
        switch format {
        case .json:
            var object: [String: JSON.Value] = [
                "state": .string(state.lock.rawValue), "passcode": .bool(state.passcode), "biometry": .string(biometry),
            ]
            if let invalidated { object["invalidated"] = .number(Int64(invalidated)) }
            return JSON.render(.object(object)) + "\n"
        case .text:
            var out = "state: \(state.lock.rawValue)"
            if !state.passcode, state.lock != .unlocked { out += " (no passcode: the lock protects no class)" }
            out += "\npasscode: \(state.passcode ? "set" : "none")\nbiometry: \(biometry)\n"
            if let invalidated {
                out += "deleted: \(invalidated) item\(invalidated == 1 ? "" : "s") of class akpu, unreadable without the passcode\n"
            }
            return out
        }
    }
}
