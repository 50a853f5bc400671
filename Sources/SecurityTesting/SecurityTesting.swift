import Foundation
import Glibc
package import KeychainCore
package import KeychainFormats
import Security

/// Points the `Security` library at a keychain and a caller from a test, with no environment
/// variable: a fresh keychain in memory for fast unit tests, or an existing keychain file; the
/// caller's entitlements as a profile file (a built `.app`/`.appex`, an `.entitlements` plist) or
/// as a list of access groups; and the simulated device (lock state, passcode, biometry).
///
/// ```swift
/// try SecurityTesting.useInMemoryKeychain(.accessGroups(["ABCDE12345.com.example.app"]))
/// ```
public enum SecurityTesting {
    /// A caller's entitlements.
    public enum Entitlements: Sendable {
        /// A profile file, as `keychainctl --profile` takes it. An Xcode `.entitlements` spelling
        /// `$(AppIdentifierPrefix)` or `$(TeamIdentifierPrefix)` takes its Team ID from `teamID`,
        /// else from KEYCHAINCTL_TEAM_ID, as the command's `--team-id` gives it.
        case profile(path: String, teamID: String? = nil)
        /// An app whose `keychain-access-groups` are `accessGroups` (the first is its default),
        /// whose application identifier is `applicationIdentifier` (default: the first group), on
        /// `platform`, whose rules apply (iOS's by default).
        case accessGroups([String], applicationIdentifier: String? = nil, platform: Platform = .ios)
    }

    /// Whose SecItem rules a caller gets.
    public enum Platform: String, Sendable, CaseIterable {
        case ios, macos
    }

    /// The simulated device's lock state for the calls that follow (Apple's lock states).
    public enum LockState: String, Sendable, CaseIterable {
        case unlocked
        case locked
        case beforeFirstUnlock = "before-first-unlock"
    }

    /// A change to the simulated device, as `keychainctl device` makes it.
    public enum DeviceChange: String, Sendable, CaseIterable {
        case lock, unlock, reboot
        case passcodeSet = "passcode set"
        case passcodeRemove = "passcode remove"
        case biometryEnroll = "biometry enroll"
        case biometryChange = "biometry change"
        case biometryRemove = "biometry remove"
    }

    /// How a protected item's authentication is answered (nobody, by default: errSecInteractionNotAllowed).
    public enum AuthenticationAnswer: String, Sendable, CaseIterable {
        case approve, cancel, fail
    }

    /// Every SecItem call from now on uses a new, empty keychain held in memory (a private folder
    /// on tmpfs when the system has one, removed by `reset` and at exit) as `entitlements`.
    public static func useInMemoryKeychain(_ entitlements: Entitlements) throws {
        let folder = try MemoryFolder.make()
        let path = folder + "/keychain.db"
        let key = SecretBytes.random(count: KeyRing.keyBytes)
        try Keychain.create(path: path, credential: .key(key))
        try use(path: path, credential: .key(key), entitlements: entitlements, folder: folder)
    }

    /// Every SecItem call from now on uses the keychain at `path`, opened by the key in `keyFile`
    /// (as `keychainctl init --generate-key-file` writes it), as `entitlements`.
    public static func useKeychain(at path: String, keyFile: String, _ entitlements: Entitlements) throws {
        try use(path: path, credential: try SecretFiles.key(fromFile: keyFile), entitlements: entitlements, folder: nil)
    }

    /// Calls from now on run as `entitlements` on the same keychain: an app and its extension take
    /// turns, as two processes share one keychain on a device.
    public static func actAs(_ entitlements: Entitlements) throws {
        let profile = try load(entitlements)
        guard State.shared.current?.configuration != nil else {
            throw TestingError.noKeychain
        }
        State.shared.update { $0.configuration?.profile = profile }
    }

    /// Calls from now on run as if the device were in `state`, changing nothing stored (as
    /// `keychainctl --device-state`).
    public static func setLockState(_ state: LockState?) {
        State.shared.update { $0.configuration?.deviceState = state?.engine }
    }

    /// Changes the simulated device of the keychain in use, as `keychainctl device` does: a
    /// passcode removed or a biometry change invalidates the items bound to them.
    public static func changeDevice(_ change: DeviceChange) throws {
        guard let configuration = State.shared.current?.configuration else { throw TestingError.noKeychain }
        let keychain = try Keychain(path: configuration.keychainPath, credential: configuration.credential)
        _ = try keychain.changeDevice(change.engine)
        SecItemEngine.shared.configure(configuration)
    }

    /// How protected items are answered from now on.
    public static func answerAuthentication(_ answer: AuthenticationAnswer?) {
        State.shared.update { $0.configuration?.authenticationAnswer = answer?.engine }
    }

    /// Back to the environment's keychain and caller; an in-memory keychain is removed.
    public static func reset() {
        State.shared.replace(with: nil)
    }

    /// Why the last SecItem call that failed failed, in words (never a secret): what the
    /// status alone does not say, such as which groups the caller has.
    public static var lastFailure: String? { SecItemEngine.shared.lastFailureMessage }

    private static func use(path: String, credential: KeychainCredential, entitlements: Entitlements, folder: String?) throws {
        let profile = try load(entitlements)
        State.shared.replace(
            with: .init(configuration: .init(keychainPath: path, credential: credential, profile: profile), folder: folder))
    }

    private static func load(_ entitlements: Entitlements) throws -> Profile {
        switch entitlements {
        case .profile(let file, let teamID):
            let team = teamID ?? SettingVariable.teamID.value
            let loaded: Profile
            do { loaded = try Profile.load(path: file, teamID: team, platform: nil, allowWildcard: false) } catch {
                // The command's advice names its option; a test gives the Team ID here.
                let said = String(describing: error)
                guard said.contains(BuildVariables.teamIDAdvice) else { throw error }
                throw TestingError(
                    said.replacingOccurrences(
                        of: BuildVariables.teamIDAdvice, with: "pass .profile(path:teamID:) (or set KEYCHAINCTL_TEAM_ID)"))
            }
            return loaded
        case .accessGroups(let groups, let applicationIdentifier, let platform):
            return try Profile.decode(
                Array(EntitlementsPlist.render(groups: groups, applicationIdentifier: applicationIdentifier ?? groups.first ?? "").utf8),
                path: "SecurityTesting", teamID: nil, platform: platform.engine, allowWildcard: false)
        }
    }
}

/// A misuse of the testing API.
public struct TestingError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }

    /// A call that changes the keychain in use, made before one was chosen.
    static let noKeychain = TestingError("no keychain is in use: call useInMemoryKeychain or useKeychain first")
}

/// The testing API's choice and the in-memory folder it made, handed to the engine on each change.
final class State: @unchecked Sendable {
    static let shared = State()
    struct Current {
        var configuration: SecItemEngine.Configuration?
        var folder: String?
    }

    private let lock = NSLock()
    private(set) var current: Current?

    func replace(with new: Current?) {
        lock.withLock {
            // The engine lets the old keychain go before its folder goes.
            SecItemEngine.shared.configure(new?.configuration)
            if let folder = current?.folder, folder != new?.folder { MemoryFolder.remove(folder) }
            current = new
        }
    }

    func update(_ change: (inout Current) -> Void) {
        lock.withLock {
            guard var changed = current else { return }
            change(&changed)
            current = changed
            SecItemEngine.shared.configure(changed.configuration)
        }
    }
}
