import Foundation
import LocalAuthentication
import Security
import SecurityTesting
import Testing

private let app = "SKMME9E2Y8.com.example.app"

/// LAContext as app code calls it, over the simulated device of the leased keychain: what it can
/// evaluate follows the device's passcode and biometry, an evaluation answers as the user does,
/// and an evaluated context opens a protected item through kSecUseAuthenticationContext.
@Suite struct LAContextTests {
    let keychain: SecurityTesting.Lease

    init() async throws { keychain = try await SecurityTesting.Lease(inMemory: .accessGroups([app])) }

    /// LAContext.h: biometryType is set by canEvaluatePolicy; the domain state changes with the
    /// enrolment; no biometry is biometryNotEnrolled, no passcode passcodeNotSet, in LAErrorDomain.
    @Test func whatCanBeEvaluatedFollowsTheDevice() throws {
        let context = LAContext()
        #expect(context.biometryType == .none)
        var error: NSError?
        #expect(context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error) && error == nil)
        #expect(context.biometryType == .faceID)
        let enrolled = try #require(context.evaluatedPolicyDomainState)
        try SecurityTesting.changeDevice(.biometryChange)
        let after = LAContext()
        #expect(after.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: nil))
        #expect(after.evaluatedPolicyDomainState != nil && after.evaluatedPolicyDomainState != enrolled)
        try SecurityTesting.changeDevice(.biometryRemove)
        #expect(!LAContext().canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error))
        #expect(error?.domain == LAErrorDomain && error?.code == LAError.Code.biometryNotEnrolled.rawValue)
        #expect(LAContext().canEvaluatePolicy(.deviceOwnerAuthentication, error: nil), "the passcode is left")
        try SecurityTesting.changeDevice(.passcodeRemove)
        #expect(!LAContext().canEvaluatePolicy(.deviceOwnerAuthentication, error: &error))
        #expect(error?.code == LAError.Code.passcodeNotSet.rawValue)
        #expect(!LAContext().canEvaluatePolicy(.deviceOwnerAuthenticationWithWatch, error: &error))
        #expect(error?.code == LAError.Code.watchNotAvailable.rawValue)
    }

    /// evaluatePolicy answers as whoever answers for the user: nobody (notInteractive), a cancel,
    /// a failed match, an approval; an invalidated context is invalidContext. The reply form too.
    @Test func anEvaluationAnswersAsTheUser() async throws {
        func outcome(_ context: LAContext = LAContext()) async -> LAError.Code? {
            do {
                _ = try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "Unlock your notes")
                return nil
            } catch let error as LAError {
                return error.code
            } catch {
                return .systemCancel
            }
        }
        #expect(await outcome() == .notInteractive)
        SecurityTesting.answerAuthentication(.cancel)
        #expect(await outcome() == .userCancel)
        SecurityTesting.answerAuthentication(.fail)
        do {
            _ = try await LAContext().evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "Sign in")
            Issue.record("a failed match evaluated")
        } catch LAError.authenticationFailed {
            // As app code catches it.
        }
        SecurityTesting.answerAuthentication(.approve)
        #expect(await outcome() == nil)
        let context = LAContext()
        context.invalidate()
        #expect(await outcome(context) == .invalidContext)
        let replied: (Bool, String?) = await withCheckedContinuation { continuation in
            LAContext().evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "Sign in") { success, error in
                continuation.resume(returning: (success, error.map { ($0 as NSError).domain }))
            }
        }
        #expect(replied.0 && replied.1 == nil)
    }

    /// SecItem.h kSecUseAuthenticationContext: an item that needs biometry is not read with nobody
    /// to ask; a context whose biometric evaluation succeeded opens it without asking again; a
    /// context that evaluated nothing and may not ask does not; an invalidated one fails it; a
    /// passcode item is not opened by a biometric evaluation.
    @Test func anEvaluatedContextOpensAProtectedItem() async throws {
        func add(_ account: String, _ flags: SecAccessControlCreateFlags) throws {
            let control = try #require(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, flags, nil))
            let attributes: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: account,
                kSecAttrAccessControl as String: control, kSecValueData as String: Data("secret".utf8),
            ]
            #expect(SecItemAdd(attributes as CFDictionary, nil) == errSecSuccess)
        }
        func read(_ account: String, context: LAContext? = nil) -> OSStatus {
            var query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: account, kSecReturnData as String: true,
            ]
            if let context { query[kSecUseAuthenticationContext as String] = context }
            return SecItemCopyMatching(query as CFDictionary, nil)
        }
        try add("face", .biometryCurrentSet)
        try add("passcode", .devicePasscode)
        #expect(read("face") == errSecInteractionNotAllowed)
        let context = LAContext()
        SecurityTesting.answerAuthentication(.approve)
        #expect(try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "Read"))
        SecurityTesting.answerAuthentication(nil)
        #expect(read("face", context: context) == errSecSuccess)
        #expect(read("passcode", context: context) == errSecInteractionNotAllowed, "biometry is not the passcode")
        let silent = LAContext()
        silent.interactionNotAllowed = true
        SecurityTesting.answerAuthentication(.approve)
        #expect(read("face", context: silent) == errSecInteractionNotAllowed)
        #expect(read("face") == errSecSuccess, "the control: without the context the approval opens it")
        context.invalidate()
        #expect(read("face", context: context) == errSecAuthFailed)
        var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "face"]
        query[kSecUseAuthenticationContext as String] = "not a context"
        #expect(SecItemCopyMatching(query as CFDictionary, nil) == errSecParam)
    }
}
