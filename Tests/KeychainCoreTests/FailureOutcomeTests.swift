import KeychainFoundation
import Testing

@testable import KeychainCore

/// The one table that decides what a failure is for the command and the library alike.
@Suite struct FailureOutcomeTests {
    struct Unexpected: Error {}

    @Test func everyErrorHasItsKindNameAndLibraryStatus() {
        let cases: [(any Error, FailureOutcome.Kind, String, Int32)] = [
            (KeychainError(.itemNotFound, hint: "h"), .keychain(.itemNotFound), "errSecItemNotFound", -25300),
            (ProfileError("p"), .profileUnusable, "profileUnusable", -25291),
            (ConfigurationError("c"), .configurationUnusable, "configurationUnusable", -25291),
            (StoreError("s"), .keychainFileUnusable, "keychainFileUnusable", -26275),
            (InputError("i"), .inputUnreadable, "inputUnreadable", -36),
            (InputTooLarge(source: "standard input", limit: 16), .inputTooLarge, "inputTooLarge", -50),
            (Unexpected(), .internalError, "internalError", -2070),
        ]
        for (error, kind, name, status) in cases {
            let outcome = FailureOutcome(error)
            #expect(outcome.kind == kind && outcome.name == name && outcome.osStatus == status, "\(error): \(outcome)")
        }
        let keychain = FailureOutcome(KeychainError(.itemNotFound, hint: "the hint"))
        #expect(keychain.hint == "the hint" && keychain.message == KeychainStatus.itemNotFound.message)
        #expect(FailureOutcome(ConfigurationError("words")).message == "words")
    }
}
