import Foundation
package import KeychainCore
internal import TextEscaping

/// The keychain this process calls into: opened on first use (the file opened and the key derived
/// once per process), from the setting variables as the command reads them (`ProcessSettings`),
/// or from what `SecurityTesting` set. Every SecItem call holds its lock: the engine is one
/// connection, and calls from many threads at once take turns, as securityd serves them.
package final class SecItemEngine: @unchecked Sendable {
    package static let shared = SecItemEngine()

    private let lock = NSLock()
    private var opened: Opened?
    /// What `SecurityTesting` chose instead of the environment.
    private var configuration: Configuration?
    /// Why the last failed call failed, in words (never a secret; control characters escaped, as
    /// the command escapes what it prints), for each caller the gate tells apart.
    private var lastFailures: [AnyHashable: String] = [:]
    /// How the testing API tells callers apart and turns away a call that is not the lease
    /// holder's; `nil`: every call is the process's.
    private var gate: Gate?

    /// Who calls (a test, for the testing API), and why a call may not use the keychain in use.
    package struct Gate: Sendable {
        /// The caller's identity; `nil` for a caller the gate cannot tell (the process's slot).
        package var caller: @Sendable () -> AnyHashable?
        /// Why the calling code may not use the keychain in use (another test holds it); `nil`
        /// admits the call.
        package var refusal: @Sendable () -> String?

        package init(caller: @escaping @Sendable () -> AnyHashable?, refusal: @escaping @Sendable () -> String?) {
            self.caller = caller
            self.refusal = refusal
        }
    }

    /// The process's slot of `lastFailures`, for callers the gate does not tell apart.
    private struct Process: Hashable {}

    /// A keychain and caller chosen by the testing API.
    package struct Configuration {
        package var keychainPath: String
        package var credential: KeychainCredential
        package var profile: Profile
        package var deviceState: DeviceState.Lock?
        package var authenticationAnswer: Authentication.Answer?

        package init(
            keychainPath: String, credential: KeychainCredential, profile: Profile, deviceState: DeviceState.Lock? = nil,
            authenticationAnswer: Authentication.Answer? = nil
        ) {
            self.keychainPath = keychainPath
            self.credential = credential
            self.profile = profile
            self.deviceState = deviceState
            self.authenticationAnswer = authenticationAnswer
        }
    }

    /// Uses `configuration` from the next call on (`nil`: the environment again); the open keychain
    /// is closed.
    package func configure(_ configuration: Configuration?) {
        lock.withLock {
            self.configuration = configuration
            opened = nil
        }
    }

    /// Tells callers apart and admits them with `gate` from the next call on (`nil`: one caller).
    package func install(_ gate: Gate?) { lock.withLock { self.gate = gate } }

    /// The words of the calling code's last failure (the testing API shows them).
    package var lastFailureMessage: String? {
        let caller = callerKey()
        return lock.withLock { lastFailures[caller] }
    }

    /// Forgets what `caller`'s calls left (a lease that ends).
    package func forgetFailures(of caller: AnyHashable) { _ = lock.withLock { lastFailures.removeValue(forKey: caller) } }

    /// The calling code's slot, as `gate` tells it.
    private static func callerKey(_ gate: Gate?) -> AnyHashable { gate?.caller() ?? AnyHashable(Process()) }

    /// The calling code's slot, as the installed gate tells it.
    private func callerKey() -> AnyHashable { Self.callerKey(lock.withLock { gate }) }

    /// Keeps the words of a call the library refused before the engine.
    func recordRefusal(_ message: String) {
        let caller = callerKey()
        lock.withLock { lastFailures[caller] = message.terminalSafe }
    }

    /// Runs `body` on the open keychain under the lock; a thrown error becomes its `OSStatus`. A
    /// call the gate turns away is errSecNotAvailable: it reaches no keychain.
    func perform(
        ui: Authentication.UI = .allow, context: (any SecAuthenticationContext)? = nil, _ body: (Keychain, Caller) throws -> Void
    ) -> OSStatus {
        // The gate runs outside the lock (it may record a test issue); read once for both questions.
        let gate = lock.withLock { self.gate }
        let caller = Self.callerKey(gate)
        let refusal = gate?.refusal()
        lock.lock()
        defer { lock.unlock() }
        var lastFailure: String?
        defer { lastFailures[caller] = lastFailure }
        if let refusal {
            lastFailure = refusal.terminalSafe
            return errSecNotAvailable
        }
        do {
            let opened = try open()
            var authentication = Authentication(ui: ui)
            if let context {
                authentication.answer = Authentication.answering(with: context, fallback: opened.answer)
            } else if let answer = opened.answer {
                authentication.answer = { _ in answer }
            }
            opened.keychain.authentication = authentication
            try body(opened.keychain, opened.caller)
            lastFailure = nil
            return errSecSuccess
        } catch {
            let (status, message) = Self.status(of: error)
            let note = opened?.program.flatMap { Self.note(status, program: $0) }.map { " " + $0 } ?? ""
            lastFailure = (message + note).terminalSafe
            return status
        }
    }

    /// What LocalAuthentication asks of the simulated device: whether a passcode is set, the
    /// enrolled biometry's identity, and who answers for the user (nobody: nil), or why the
    /// keychain that keeps them could not be opened.
    package func device() -> Result<(passcode: Bool, biometrySet: [UInt8]?, answer: Authentication.Answer?), KeychainError> {
        lock.withLock {
            do {
                let opened = try open()
                let state = opened.keychain.device
                return .success((state.passcode, state.biometrySet, opened.answer))
            } catch {
                return .failure(KeychainError(.notAvailable, hint: Self.status(of: error).1))
            }
        }
    }

    /// The open keychain, the caller, and who answers a protected item (nobody: -25308).
    private struct Opened {
        let keychain: Keychain
        let caller: Caller
        let answer: Authentication.Answer?
        /// The program's own group and name when it was given no profile (an app of its own).
        var program: (group: String, name: String)? = nil
    }

    /// Opens what the testing API chose, else what the environment names (only then read).
    private func open() throws -> Opened {
        if let opened { return opened }
        let made: Opened
        if let configuration {
            made = Opened(
                keychain: try Keychain(
                    path: configuration.keychainPath, credential: configuration.credential, deviceState: configuration.deviceState),
                caller: Caller(configuration.profile), answer: configuration.authenticationAnswer)
        } else {
            let settings = try ProcessSettings.fromEnvironment()
            try settings.ensureKeychain()
            let profile = try settings.loadProfile()
            made = Opened(
                keychain: try Keychain(
                    path: settings.keychainPath, source: try settings.credentialSource(), deviceState: settings.deviceState),
                caller: Caller(profile), answer: settings.authenticationAnswer,
                program: settings.profileSource == .builtIn ? Self.program(profile) : nil)
        }
        opened = made
        return made
    }

    /// The group and name of a program given no profile, from its built-in profile.
    private static func program(_ profile: Profile) -> (group: String, name: String)? {
        guard let group = profile.accessGroups.groups.first, let name = BuiltInProfile.program(ofGroup: group) else { return nil }
        return (group, name)
    }

    /// What a failure adds for a program given no profile, which is an app of its own: why it
    /// misses what a script stored, and how it acts as the app whose groups it names.
    private static func note(_ status: OSStatus, program: (group: String, name: String)) -> String? {
        let own = "This program was given no profile, so it is an app of its own whose one group is \(program.group)"
        switch status {
        case errSecItemNotFound:
            return own + "; 'keychainctl set' keeps a script's secrets in \(BuiltInProfile.group). A script stores one for this program "
                + "with --profile and the profile 'keychainctl profile show --program=\(program.name)' prints."
        case errSecMissingEntitlement:
            return own + ". To act as your app, give it the app's entitlements or what Xcode built: KEYCHAINCTL_PROFILE=PATH "
                + "(and KEYCHAINCTL_TEAM_ID when they spell $(AppIdentifierPrefix))."
        default:
            return nil
        }
    }

    /// The status an error is, and its words: the library's own refusals as they are, everything
    /// else as the engine's one table says (`FailureOutcome`), the same one the command reports from.
    private static func status(of error: any Error) -> (OSStatus, String) {
        if let refusal = error as? SecItemRefusal { return (refusal.status, refusal.message) }
        let outcome = FailureOutcome(error)
        if case .keychain = outcome.kind { return (outcome.osStatus, outcome.hint) }
        return (outcome.osStatus, outcome.message)
    }
}

/// A call refused by the library itself, before the engine (a value of a type SecItem does not
/// take, a key it does not provide).
struct SecItemRefusal: Error {
    let status: OSStatus
    let message: String

    static func param(_ message: String) -> SecItemRefusal { SecItemRefusal(status: errSecParam, message: message) }

    /// A key on a token or in the Secure Enclave (kSecAttrTokenID), which Linux has not.
    static let noToken = SecItemRefusal(
        status: errSecUnimplemented, message: "kSecAttrTokenID: there is no Secure Enclave or token on Linux")
}
