import KeychainCore
import KeychainFoundation

/// The tests' shorthand for an update whose changes are words, as the command line gives them:
/// one `ChangeRequest` built from them, so each test reads as the command it mirrors.
extension Keychain {
    func update(
        _ request: ItemRequest, changes words: [(code: String, value: String)], syncChange: SyncFilter? = nil, secret: SecretBytes?,
        caller: Caller, dryRun: Bool = false, skipDamaged: Bool = false, accessControl: AccessControlRequest? = nil
    ) throws -> ChangeResult {
        try update(
            request,
            changes: ChangeRequest(
                attributes: AttributeInputs(words: words), sync: syncChange, secret: secret, accessControl: accessControl),
            caller: caller, dryRun: dryRun, skipDamaged: skipDamaged)
    }
}
