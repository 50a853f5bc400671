import Foundation
package import KeychainCore
public import Security

/// What a policy asks the user for (LAPublicDefines.h).
public enum LAPolicy: Int, Sendable {
    /// Face ID or Touch ID.
    case deviceOwnerAuthenticationWithBiometrics = 1
    /// Biometry, or the passcode when there is no biometry.
    case deviceOwnerAuthentication = 2
    /// An Apple Watch (macOS): there is none.
    case deviceOwnerAuthenticationWithWatch = 3
    /// Biometry or an Apple Watch (macOS): biometry.
    case deviceOwnerAuthenticationWithBiometricsOrWatch = 4
}

/// The kind of biometry a device has.
public enum LABiometryType: Int, Sendable {
    case none = 0
    case touchID = 1
    case faceID = 2
    case opticID = 4
}

/// The longest `touchIDAuthenticationAllowableReuseDuration` Apple allows, in seconds.
// swift-format-ignore: AlwaysUseLowerCamelCase
public let LATouchIDAuthenticationMaximumAllowableReuseDuration: TimeInterval = 300

/// A context for authenticating the user, as `LocalAuthentication` declares it, answering from the
/// simulated device of the keychain the `Security` library uses (the passcode, the enrolled
/// biometry: `keychainctl device`, or `SecurityTesting`'s device) and from whoever answers for the
/// user there (`SecurityTesting.answerAuthentication`, or `KEYCHAINCTL_AUTH`); with nobody to
/// answer, an evaluation fails with `LAError.notInteractive`. The device is a Face ID one.
///
/// Handed to a SecItem call as `kSecUseAuthenticationContext`, a context whose evaluation succeeded
/// answers the item's access control: biometry satisfies `.biometryAny`, `.biometryCurrentSet` and
/// `.userPresence`, the passcode `.devicePasscode` and `.userPresence`; what it does not satisfy is
/// asked as without it, unless `interactionNotAllowed` (then errSecInteractionNotAllowed). An
/// invalidated context fails the item (errSecAuthFailed).
open class LAContext: NSObject, SecAuthenticationContext, @unchecked Sendable {
    private let lock = NSLock()
    private var method: SecAuthenticationMethod?
    private var invalidated = false
    private var type = LABiometryType.none
    private var domainState: Data?

    /// Why the app authenticates, shown by the keychain's own prompts.
    open var localizedReason: String = ""
    open var localizedFallbackTitle: String?
    open var localizedCancelTitle: String?
    open var touchIDAuthenticationAllowableReuseDuration: TimeInterval = 0
    /// Whether an evaluation (and a keychain prompt through this context) may not ask the user.
    open var interactionNotAllowed: Bool = false

    public override init() { super.init() }

    /// The device's biometry, once `canEvaluatePolicy` has been called (`.none` before, as on Apple platforms).
    open var biometryType: LABiometryType { lock.withLock { type } }

    /// The enrolled biometry's state, once `canEvaluatePolicy` succeeded for a biometric policy:
    /// it changes when the enrolment does (`keychainctl device biometry change`).
    open var evaluatedPolicyDomainState: Data? { lock.withLock { domainState } }

    /// Whether `policy` can be evaluated on this device now; else false with `error` saying why
    /// (passcodeNotSet, biometryNotEnrolled, watchNotAvailable, invalidContext).
    open func canEvaluatePolicy(_ policy: LAPolicy, error: UnsafeMutablePointer<NSError?>?) -> Bool {
        switch check(policy) {
        case .success:
            error?.pointee = nil
            return true
        case .failure(let failure):
            error?.pointee = failure as NSError
            return false
        }
    }

    /// Evaluates `policy`: the user (whoever answers for them) authenticates, or not; `reply` is
    /// called on another queue with the outcome.
    open func evaluatePolicy(_ policy: LAPolicy, localizedReason: String, reply: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        DispatchQueue.global().async {
            switch self.evaluate(policy, reason: localizedReason) {
            case .success: reply(true, nil)
            case .failure(let error): reply(false, error)
            }
        }
    }

    /// Evaluates `policy`: true, or throws the LAError saying why not.
    open func evaluatePolicy(_ policy: LAPolicy, localizedReason: String) async throws -> Bool {
        try evaluate(policy, reason: localizedReason).get()
        return true
    }

    /// Ends the context: every evaluation after fails with invalidContext, and a keychain item
    /// handed it fails.
    open func invalidate() { lock.withLock { invalidated = true } }

    package var authenticatedMethod: SecAuthenticationMethod? { lock.withLock { method } }
    package var isInvalidated: Bool { lock.withLock { invalidated } }

    /// The device's answer to `policy` (how the user would authenticate, and who answers for
    /// them), and what it records (the biometry type and domain state).
    private func check(_ policy: LAPolicy) -> Result<(method: SecAuthenticationMethod, answer: Authentication.Answer?), LAError> {
        if isInvalidated { return .failure(LAError(.invalidContext, "the context was invalidated")) }
        if policy == .deviceOwnerAuthenticationWithWatch { return .failure(LAError(.watchNotAvailable, "there is no Apple Watch")) }
        let device: (passcode: Bool, biometrySet: [UInt8]?, answer: Authentication.Answer?)
        switch SecItemEngine.shared.device() {
        case .success(let found): device = found
        case .failure(let error): return .failure(LAError(.notInteractive, "the simulated device cannot be read: \(error.hint)"))
        }
        lock.withLock {
            type = .faceID
            if policy != .deviceOwnerAuthentication { domainState = device.biometrySet.map { Data($0) } }
        }
        guard device.passcode else { return .failure(LAError(.passcodeNotSet, "no passcode is set on the device")) }
        if device.biometrySet != nil { return .success((.biometry, device.answer)) }
        guard policy == .deviceOwnerAuthentication else {
            return .failure(LAError(.biometryNotEnrolled, "no biometry is enrolled ('keychainctl device biometry enroll')"))
        }
        return .success((.passcode, device.answer))
    }

    private func evaluate(_ policy: LAPolicy, reason: String) -> Result<Void, LAError> {
        guard !reason.isEmpty else { return .failure(LAError(.invalidContext, "the localized reason is empty")) }
        let method: SecAuthenticationMethod
        let answer: Authentication.Answer?
        switch check(policy) {
        case .success(let found): (method, answer) = found
        case .failure(let error): return .failure(error)
        }
        guard !interactionNotAllowed else { return .failure(LAError(.notInteractive, "interactionNotAllowed forbids asking")) }
        guard let answer else {
            return .failure(
                LAError(.notInteractive, "nobody answers for the user: SecurityTesting.answerAuthentication or KEYCHAINCTL_AUTH"))
        }
        switch answer {
        case .approve:
            lock.withLock { self.method = method }
            return .success(())
        case .cancel: return .failure(LAError(.userCancel, "the user cancelled"))
        case .fail: return .failure(LAError(.authenticationFailed, "the face, finger or passcode did not match"))
        }
    }
}
