import CommandLineKit
import KeychainCore
import TextEscaping

/// `keychainctl device`: the keychain's simulated device (lock state and passcode).
struct DeviceCommand: Subcommand {
    static let name = "device"

    static let spec = CommandSpec(
        name: name,
        abstract: "Show or change the simulated device: locked, unlocked, rebooted, its passcode and biometry.",
        discussion: """
            The state lives in the keychain file. Locked: items of the when-unlocked classes (ak, aku, akpu) \
            cannot be read, added or updated (exit 36, errSecInteractionNotAllowed); before the first unlock \
            after a reboot, the after-first-unlock classes (ck, cku) neither. A device without a passcode never \
            locks and has no when-passcode-set-this-device-only (akpu) class: removing the passcode deletes \
            those items for good, after confirmation on a terminal (--yes otherwise); changing or removing the \
            enrolled biometry does the same to items protected by biometry-current-set. --device-state runs any \
            other command in a state without storing it (status then shows that state; the changes ignore \
            KEYCHAINCTL_DEVICE_STATE and refuse --device-state).
            """,
        sections: [("options", [Self.yes.spec, Self.appID.spec, Self.parent.spec]), GlobalOptions.section],
        actions: [
            ("status", "Print the state, the passcode and the biometry (the default)."),
            ("lock", "Lock the device: the when-unlocked classes become unavailable."),
            ("unlock", "Unlock the device: every class is available."),
            ("reboot", "Restart: before the first unlock, the after-first-unlock classes are unavailable too."),
            ("passcode set", "Set a passcode: the device can lock, and akpu items can be added."),
            ("passcode remove", "Remove the passcode: every akpu item is lost and deleted."),
            ("biometry enroll", "Enrol biometry when none is (already enrolled: nothing changes)."),
            ("biometry change", "Re-enrol (a finger added or removed): every biometry-current-set item is lost and deleted."),
            (
                "biometry remove",
                "Remove biometry: biometry-current-set items are lost; biometry-any items fail (exit 51) until enrolled again."
            ),
            (appClipRemove, "Uninstall an App Clip: every item it added is deleted (items others put in its group stay)."),
            (
                appClipPromote,
                "Install the App Clip's full app (--parent): the clip's items move to the app's application identifier, then the clip goes."
            ),
        ],
        examples: [
            Example(
                "keychainctl device lock && keychainctl device unlock",
                "Lock the simulated device (when-unlocked items become unreadable), then unlock it."
            ),
            Example(
                "keychainctl get db admin --device-state before-first-unlock || echo \"not before the first unlock\"",
                "Try one call as a widget would run right after a reboot."
            ),
        ])

    static let yes = Flag("yes", "Do not ask before deleting the items a change makes unreadable.")
    static let appID = Option.text(
        "app-id", "identifier", "app-clip actions: the App Clip's application identifier (default: the --profile's).")
    static let parent = Option.text(
        "parent", "identifier", "app-clip promote: the full app's application identifier, the group the App Clip's items move to.")

    /// The App Clip actions: they act for the App Clip that --profile names, not on the state.
    static let appClipRemove = "app-clip remove"
    static let appClipPromote = "app-clip promote"

    let context: CommandContext

    func validate() throws(UsageError) {
        if appClipAction == nil, context[Self.appID] != nil {
            throw UsageError("--app-id goes with 'device app-clip remove' and 'device app-clip promote'.")
        }
        if (appClipAction == Self.appClipPromote) != (context[Self.parent] != nil) {
            throw UsageError("--parent PATH (the full app's profile) goes with 'device app-clip promote', and only with it.")
        }
        if let action = context.arguments.action, Keychain.DeviceAction(rawValue: action) != nil, context[GlobalOptions.deviceState] != nil
        {
            throw UsageError(
                "--device-state runs one call in a state without storing it; 'device \(action)' changes the stored state. Give one or the other."
            )
        }
    }

    /// `app-clip remove` or `app-clip promote`, when one was given.
    private var appClipAction: String? { [Self.appClipRemove, Self.appClipPromote].first { $0 == context.arguments.action } }

    func run() throws {
        if let appClipAction { return try runAppClip(appClipAction) }
        let keychain = try context.openKeychain()
        guard let action = context.arguments.action.flatMap(Keychain.DeviceAction.init(rawValue:)) else {
            var out = Self.render(keychain.device, format: context.resolvedFormat, invalidated: nil)
            if context.resolvedFormat == .text, try context.resolvedDeviceState() != nil {
                out +=
                    "(this call's state, from --device-state or KEYCHAINCTL_DEVICE_STATE; stored: \(try keychain.storedDevice().lock.rawValue))\n"
            }
            StandardStreams.out(out)
            return
        }
        let lost = try keychain.invalidatedCount(by: action)
        if lost > 0, !context[Self.yes] {
            let question =
                "\(action == .passcodeRemove ? "Removing the passcode" : "Changing the enrolled biometry") deletes \(lost) "
                + "item\(lost == 1 ? "" : "s") \(Self.invalidatedKind(action)), in every access group, for good. Continue? [y/N] "
            guard try Confirmation.ask(question) else {
                throw KeychainError(.userCanceled, hint: "nothing was changed.")
            }
        }
        let change = try keychain.changeDevice(action)
        StandardStreams.out(
            Self.render(
                change.state, format: context.resolvedFormat,
                invalidated: action.invalidatesItems ? (change.invalidated, Self.invalidatedKind(action)) : nil))
        if action == .lock, context.resolvedFormat == .text {
            StandardStreams.err(
                "(this is the simulated device's lock state; the key cached by 'keychainctl unlock' is untouched: 'keychainctl lock' removes it)\n"
            )
        }
    }

    /// Removes or promotes the App Clip's items, and says how many.
    private func runAppClip(_ appClipAction: String) throws {
        let parent = context[Self.parent]
        guard let clip = try context[Self.appID] ?? context.loadProfile().accessGroups.applicationIdentifier else {
            throw UsageError("name the App Clip: --app-id IDENTIFIER, or a --profile that claims an application identifier.")
        }
        let keychain = try context.openKeychain()
        var counts: [(String, Int)]
        if let parent {
            let promotion = try keychain.promoteAppClip(clip, to: parent)
            counts = [("promoted", promotion.promoted), ("replaced", promotion.replaced), ("deleted", promotion.lost)]
        } else {
            counts = [("deleted", try keychain.removeAppClip(clip))]
        }
        switch context.resolvedFormat {
        case .json:
            StandardStreams.out(JSON.render(.object(Dictionary(uniqueKeysWithValues: counts.map { ($0, .number(Int64($1))) }))) + "\n")
        case .text:
            let explained = [
                "promoted": "moved to \((parent ?? "").terminalSafe)",
                "replaced": "of the app's own, replaced by the clip's with the same primary key",
                "deleted": parent == nil ? "the App Clip added" : "left behind (protected by an access control)",
            ]
            StandardStreams.out(
                counts.map { "\($0): \($1) item\($1 == 1 ? "" : "s") \(explained[$0]!)\n" }.joined())
        }
    }

    /// Which items `action` makes unreadable, for messages.
    static func invalidatedKind(_ action: Keychain.DeviceAction) -> String {
        action == .passcodeRemove
            ? "of class when-passcode-set-this-device-only (akpu), unreadable without the passcode"
            : "protected by biometry-current-set, bound to the biometry enrolled before"
    }

    /// The state as text lines or as `{"state", "passcode", "biometry"}` (and `invalidated` after a
    /// change that made items unreadable).
    static func render(_ state: DeviceState, format: OutputFormat, invalidated: (count: Int, kind: String)?) -> String {
        let biometry = state.biometrySet == nil ? "none" : "enrolled"
        switch format {
        case .json:
            var object: [String: JSON.Value] = [
                "state": .string(state.lock.rawValue), "passcode": .bool(state.passcode), "biometry": .string(biometry),
            ]
            if let invalidated { object["invalidated"] = .number(Int64(invalidated.count)) }
            return JSON.render(.object(object)) + "\n"
        case .text:
            var out = "state: \(state.lock.rawValue)"
            if !state.passcode, state.lock != .unlocked { out += " (no passcode: the lock protects no class)" }
            out += "\npasscode: \(state.passcode ? "set" : "none")\nbiometry: \(biometry)\n"
            if let invalidated {
                out += "deleted: \(invalidated.count) item\(invalidated.count == 1 ? "" : "s") \(invalidated.kind)\n"
            }
            return out
        }
    }
}
