package import KeychainCore

/// What the keychain asks of a context handed to it as kSecUseAuthenticationContext
/// (LocalAuthentication's `LAContext`): how the user already authenticated through it, whether it
/// may ask, and whether it was invalidated.
package protocol SecAuthenticationContext: AnyObject {
    /// The means the context's last successful evaluation used; nil before one.
    var authenticatedMethod: SecAuthenticationMethod? { get }
    /// `LAContext.interactionNotAllowed`: a prompt the context cannot satisfy is not asked.
    var interactionNotAllowed: Bool { get }
    /// `LAContext.invalidate()` was called.
    var isInvalidated: Bool { get }
}

/// How a user authenticated on the simulated device.
package enum SecAuthenticationMethod: Sendable {
    case biometry
    case passcode

    /// Whether this satisfies `constraints` (any one of them with `needsAny`, else all).
    package func satisfies(_ constraints: [AccessControl.Constraint], needsAny: Bool) -> Bool {
        let met = constraints.map { constraint in
            switch (self, constraint) {
            case (_, .userPresence), (.biometry, .biometryAny), (.biometry, .biometryCurrentSet), (.passcode, .devicePasscode): true
            default: false
            }
        }
        return needsAny ? met.contains(true) : !met.contains(false)
    }
}

extension Authentication {
    /// Answers prompts as `context` allows: approved when its evaluation satisfies the item's
    /// constraints, else as `fallback` (the configured answer) says unless the context may not ask.
    static func answering(with context: any SecAuthenticationContext, fallback: Answer?) -> (Prompt) throws -> Answer {
        { prompt in
            if context.isInvalidated {
                throw KeychainError(.authFailed, hint: "kSecUseAuthenticationContext names an LAContext that was invalidated.")
            }
            if let method = context.authenticatedMethod, method.satisfies(prompt.constraints, needsAny: prompt.needsAny) {
                return .approve
            }
            guard !context.interactionNotAllowed, let fallback else {
                throw KeychainError(
                    .interactionNotAllowed,
                    hint: "\(prompt.text) needs authentication the LAContext has not given, and "
                        + (context.interactionNotAllowed
                            ? "its interactionNotAllowed forbids asking."
                            : "nobody answers for the user (SecurityTesting.answerAuthentication or KEYCHAINCTL_AUTH)."))
            }
            return fallback
        }
    }
}
