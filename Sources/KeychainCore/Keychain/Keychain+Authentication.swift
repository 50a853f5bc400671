import KeychainFormats
import KeychainFoundation

/// Access control on the rows a call reaches (docs/FIDELITY.md): a
/// protected item asks for authentication on every read and every change (existence checks and
/// attribute-only finds included), never on delete.
extension Keychain {
    /// What a call does with the rows it matches.
    enum Access {
        case read, change, delete

        var verb: String {
            switch self {
            case .read: "read"
            case .change: "change"
            case .delete: "delete"
            }
        }
    }

    /// Starts a SecItem call named `operation`: kSecUseAuthenticationUISkip anywhere but in a find
    /// is errSecParam before anything else, and no item is authenticated yet.
    func beginCall(_ operation: String) throws(KeychainError) {
        try authentication.checkSkip(allowed: operation == "find", operation: operation)
        authenticatedItems = []
    }

    /// Whether `opened` (row `rowid`) may be used for `access`, asking as `authentication` says:
    /// `false` leaves the row out (kSecUseAuthenticationUISkip, or a biometry-current-set item
    /// whose biometry is gone, which Apple drops). Each item is asked about once per
    /// call. Throws errSecInteractionNotAllowed (no one to ask, or UI fail), errSecUserCanceled,
    /// errSecAuthFailed (failed, not satisfiable on this device, or a wrong application password).
    func authorize(_ opened: OpenedRow, rowid: Int64, access: Access) throws -> Bool {
        guard access != .delete, opened.row.hasAccessControl else { return true }
        let control = opened.item.accessControl
        guard control.guardsReads else { return true }
        let uuid = opened.row.uuid
        if authenticatedItems.contains(where: { $0 == uuid }) { return true }
        if let bound = control.boundBiometrySet, bound != keys.device.biometrySet { return false }
        if authentication.ui == .skip { return false }
        let constraints = control.flags.contains(.privateKeyUsage) ? [] : control.constraints
        if !constraints.isEmpty {
            let prompt = Authentication.Prompt(
                item: opened.item, purpose: access.verb, constraints: constraints, needsAny: control.needsAny)
            guard authentication.ui == .allow, let answer = authentication.answer else {
                throw KeychainError(
                    .interactionNotAllowed,
                    hint: "\(prompt.text) needs authentication, and "
                        + (authentication.ui == .fail
                            ? "--auth-ui fail forbids asking (kSecUseAuthenticationUIFail); the item exists."
                            : "there is no terminal to ask on; pass --auth approve|cancel|fail (or KEYCHAINCTL_AUTH) to answer for the user.")
                )
            }
            let nothing = "nothing was \(access == .read ? "returned" : "changed")"
            switch try answer(prompt) {
            case .cancel:
                throw KeychainError(
                    .userCanceled, hint: "the user cancelled \(prompt.text); \(nothing). --auth approve simulates the user approving.")
            case .fail:
                throw KeychainError(
                    .authFailed,
                    hint: "authentication failed for \(prompt.text) (the face, finger or passcode did not match); \(nothing). "
                        + "--auth approve simulates a match.")
            case .approve: try checkSatisfiable(control, item: opened.item)
            }
        }
        if control.flags.contains(.applicationPassword) {
            try useApplicationPassword(for: opened.item)
            guard let row = try store.row(opened.item.itemClass, rowid: rowid),
                try keys.opensWithApplicationPassword(try opened.withSecretColumns(of: row))
            else {
                throw KeychainError(
                    .authFailed,
                    hint:
                        "the application password does not open \(opened.item.summary); nothing was \(access == .read ? "returned" : "changed")."
                )
            }
        }
        authenticatedItems.append(uuid)
        return true
    }

    /// errSecAuthFailed unless this device can satisfy `control` at all: biometry enrolled (the same
    /// set, for biometry-current-set), a passcode for device-passcode, either for user presence.
    /// An add binds its access control so, without asking anyone (docs/FIDELITY.md).
    func checkSatisfiable(_ control: AccessControl, item: Item) throws(KeychainError) {
        let device = keys.device
        var missing: [String] = []
        for constraint in control.constraints {
            switch constraint {
            case .userPresence where !device.passcode && device.biometrySet == nil:
                missing.append("user presence needs a passcode or enrolled biometry")
            case .biometryAny where device.biometrySet == nil, .biometryCurrentSet where device.biometrySet == nil:
                missing.append("the device has no enrolled biometry ('keychainctl device biometry enroll')")
            case .biometryCurrentSet(let set) where set != device.biometrySet:
                missing.append("the biometry enrolled when the item was added has changed")
            case .devicePasscode where !device.passcode:
                missing.append("the device has no passcode ('keychainctl device passcode set')")
            default: continue
            }
        }
        let satisfied = control.needsAny ? missing.count < control.constraints.count : missing.isEmpty
        guard satisfied else {
            throw KeychainError(
                .authFailed, hint: "\(item.summary), access control \(control.flags.words): \(missing.joined(separator: "; ")).")
        }
    }

    /// Gives the key ring the call's application password, asking for it once per call.
    /// errSecInteractionNotAllowed when there is none to be had.
    func useApplicationPassword(for item: Item) throws {
        guard !keys.hasApplicationPassword else { return }
        guard let supply = authentication.applicationPassword else {
            throw KeychainError(
                .interactionNotAllowed,
                hint: "\(item.summary) is protected by an application password; pass it with --application-password-fd N"
                    + " (or run on a terminal to be asked).")
        }
        let password = try supply(item)
        guard password.count > 0 else { throw KeychainError(.param, hint: "the application password is empty.") }
        try keys.useApplicationPassword(password)
    }
}
