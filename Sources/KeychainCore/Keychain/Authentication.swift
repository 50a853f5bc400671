import KeychainFormats
import KeychainFoundation

/// How one call answers the authentication a protected item asks for (docs/FIDELITY.md):
/// kSecUseAuthenticationUI, the user's answer, and the
/// application password.
package struct Authentication {
    /// kSecUseAuthenticationUI.
    package enum UI: String, CaseIterable, Sendable {
        /// Ask (the default).
        case allow
        /// Never ask: a protected item is errSecInteractionNotAllowed.
        case fail
        /// Never ask: a find leaves protected items out; any other call is errSecParam.
        case skip

        package static var allNames: String { allCases.map(\.rawValue).joined(separator: ", ") }
    }

    /// What the user does when asked.
    package enum Answer: String, CaseIterable, Sendable {
        case approve
        case cancel
        case fail

        package static var allNames: String { allCases.map(\.rawValue).joined(separator: ", ") }
    }

    /// What the user is asked about.
    package struct Prompt {
        /// The item, by its summary (never its secret).
        package let item: Item
        /// Why: "read" or "change".
        package let purpose: String
        /// What would satisfy it.
        package let constraints: [AccessControl.Constraint]
        /// Whether one of them is enough.
        package let needsAny: Bool

        /// One line naming the item and what it asks for.
        package var text: String {
            let joined = constraints.map(\.name).joined(separator: needsAny ? " or " : " and ")
            return "\(joined) to \(purpose) \(item.summary)"
        }
    }

    package var ui: UI = .allow
    /// Answers a prompt (`--auth`, or the user on the terminal); `nil` when nobody can be asked.
    package var answer: ((Prompt) throws -> Answer)?
    /// The application password for an item (`--application-password-fd`, or a prompt); `nil`
    /// when there is none to be had.
    package var applicationPassword: ((Item) throws -> SecretBytes)?

    package init(ui: UI = .allow, answer: ((Prompt) throws -> Answer)? = nil, applicationPassword: ((Item) throws -> SecretBytes)? = nil) {
        self.ui = ui
        self.answer = answer
        self.applicationPassword = applicationPassword
    }

    /// kSecUseAuthenticationUISkip outside SecItemCopyMatching is errSecParam, checked before
    /// anything else (`SecItem.m:1678-1683`).
    package func checkSkip(allowed: Bool, operation: String) throws(KeychainError) {
        guard ui == .skip, !allowed else { return }
        throw KeychainError(
            .param, hint: "--auth-ui skip is allowed only for find (kSecUseAuthenticationUISkip); \(operation) cannot skip items.")
    }
}
