import CommandLineKit
import KeychainCore

/// What git's and Docker's credential helpers share for one call: the input read whole into
/// guarded memory, the caller each is (an app of its own, in the group its program name gives,
/// whatever KEYCHAINCTL_PROFILE says), no prompt on the calling program's terminal, and lookups
/// where a miss is no error.
struct CredentialHelperCall {
    /// The most either program sends for one call; anything longer is no credential.
    static let maximumInput = 64 * 1024

    let input: SecretBytes
    let caller: Caller
    private let context: CommandContext

    /// The call of the helper `spec` names (its name is the program's).
    init(_ spec: CommandSpec) throws {
        input = try SecretFiles.readAll(fd: 0, source: "standard input", limit: Self.maximumInput)
        context = try CommandContext(try ParsedArguments([], spec: spec))
        CommandContext.neverPrompt = true
        caller = Caller(try BuiltInProfile.load(platform: nil, group: BuiltInProfile.programGroup(executable: spec.name)))
    }

    /// The keychain, opened with the credential in force (a key file, a cached key; never a prompt).
    func openKeychain() throws -> Keychain { try context.openKeychain() }

    /// The items `request` finds as this helper; none for a miss.
    func find(_ request: ItemRequest, in keychain: Keychain) throws -> [Keychain.FoundItem] {
        do { return try keychain.find(request, caller: caller).items } catch let error as KeychainError where error.status == .itemNotFound
        {
            return []
        }
    }

    /// Deletes `items`, each by its persistent reference.
    func delete(_ items: [Keychain.FoundItem], from keychain: Keychain) throws {
        for found in items { _ = try keychain.delete(ItemRequest(persistentRef: found.item.persistentRef.base64), caller: caller) }
    }
}
