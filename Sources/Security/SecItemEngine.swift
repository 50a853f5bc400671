import Foundation
import KeychainCore
import TextEscaping

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
    /// the command escapes what it prints).
    private var lastFailure: String?

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

    /// The words of the last failure (the testing API shows them).
    package var lastFailureMessage: String? { lock.withLock { lastFailure } }

    /// Keeps the words of a call the library refused before the engine.
    func recordRefusal(_ message: String) { lock.withLock { lastFailure = message.terminalSafe } }

    /// Runs `body` on the open keychain under the lock; a thrown error becomes its `OSStatus`.
    func perform(ui: Authentication.UI = .allow, _ body: (Keychain, Caller) throws -> Void) -> OSStatus {
        lock.lock()
        defer { lock.unlock() }
        do {
            let opened = try open()
            var authentication = Authentication(ui: ui)
            if let answer = opened.answer { authentication.answer = { _ in answer } }
            opened.keychain.authentication = authentication
            try body(opened.keychain, opened.caller)
            lastFailure = nil
            return errSecSuccess
        } catch {
            let (status, message) = Self.status(of: error)
            let note = status == errSecItemNotFound ? opened?.notFoundNote.map { " " + $0 } ?? "" : ""
            lastFailure = (message + note).terminalSafe
            return status
        }
    }

    /// The open keychain, the caller, and who answers a protected item (nobody: -25308).
    private struct Opened {
        let keychain: Keychain
        let caller: Caller
        let answer: Authentication.Answer?
        /// What a miss adds for a program given no profile, which reads its own group alone.
        var notFoundNote: String? = nil
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
                notFoundNote: settings.profileSource == .builtIn ? Self.programNote(profile) : nil)
        }
        opened = made
        return made
    }

    /// Why a program given no profile misses what a script stored: it is an app of its own.
    private static func programNote(_ profile: Profile) -> String? {
        guard let group = profile.accessGroups.groups.first, let program = BuiltInProfile.program(ofGroup: group) else { return nil }
        return "This program was given no profile, so it is an app of its own and reads only \(group); "
            + "'keychainctl set' keeps a script's secrets in \(BuiltInProfile.group). A script stores one for this program "
            + "with --profile and the profile 'keychainctl profile show --program=\(program)' prints."
    }

    /// The status an error is, and its words: a keychain error its own status; configuration the
    /// library cannot use (a profile, a key file, a variable) errSecNotAvailable, as no keychain.
    private static func status(of error: any Error) -> (OSStatus, String) {
        switch error {
        case let error as KeychainError: (error.status.rawValue, error.hint)
        case let error as SecItemRefusal: (error.status, error.message)
        case let error as ConfigurationError: (errSecNotAvailable, "\(error)")
        case let error as ProfileError: (errSecNotAvailable, "\(error)")
        case let error as StoreError: (errSecDecode, "\(error)")
        default: (errSecInternalComponent, "\(error)")
        }
    }
}

/// A call refused by the library itself, before the engine (a value of a type SecItem does not
/// take, a key it does not provide).
struct SecItemRefusal: Error {
    let status: OSStatus
    let message: String

    static func param(_ message: String) -> SecItemRefusal { SecItemRefusal(status: errSecParam, message: message) }
}
