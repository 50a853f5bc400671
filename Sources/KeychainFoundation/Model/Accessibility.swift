import TextEscaping

/// Accessibility classes (`kSecAttrAccessible`, attribute `pdmn`).
package enum Accessibility: String, Sendable, CaseIterable {
    case whenUnlocked = "ak"
    case afterFirstUnlock = "ck"
    case always = "dk"
    case whenPasscodeSetThisDeviceOnly = "akpu"
    case whenUnlockedThisDeviceOnly = "aku"
    case afterFirstUnlockThisDeviceOnly = "cku"
    case alwaysThisDeviceOnly = "dku"

    /// The CLI's long name.
    package var longName: String {
        switch self {
        case .whenUnlocked: "when-unlocked"
        case .afterFirstUnlock: "after-first-unlock"
        case .always: "always"
        case .whenPasscodeSetThisDeviceOnly: "when-passcode-set-this-device-only"
        case .whenUnlockedThisDeviceOnly: "when-unlocked-this-device-only"
        case .afterFirstUnlockThisDeviceOnly: "after-first-unlock-this-device-only"
        case .alwaysThisDeviceOnly: "always-this-device-only"
        }
    }

    /// Parses a code (`ak`) or long name (`when-unlocked`).
    package init?(parsing text: String) {
        if let value = Accessibility(rawValue: text) {
            self = value
        } else if let value = Accessibility.allCases.first(where: { $0.longName == text }) {
            self = value
        } else {
            return nil
        }
    }

    /// Whether the class never leaves the device: not restored to another one, never synced (CKKS
    /// carries only `ak`, `ck` and `dk`).
    package var isThisDeviceOnly: Bool { rawValue.hasSuffix("u") }

    /// The default when an add names none: `dk` for certificates, `ak` otherwise (docs/FIDELITY.md).
    package static func defaultFor(_ itemClass: ItemClass) -> Accessibility {
        itemClass == .certificate ? .always : .whenUnlocked
    }

    /// Every accepted spelling, long names first (for completion).
    package static var spellings: [String] { allCases.map(\.longName) + allCases.map(\.rawValue) }

    /// Every accepted spelling, for error hints.
    package static var allNames: String {
        allCases.map { "\($0.longName) (\($0.rawValue))" }.joined(separator: ", ")
    }

    /// errSecParam for `text` given as a protection that is none (printed escaped).
    package static func notAClass(_ text: String) -> KeychainError {
        KeychainError(.param, hint: "'\(text.terminalSafe)' is not an accessibility class; use one of \(allNames).")
    }
}
