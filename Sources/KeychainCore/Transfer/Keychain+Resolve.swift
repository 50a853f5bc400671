import KeychainFormats
import KeychainFoundation
import TextEscaping

/// Resolving `exec`'s secret references: every one before the command starts, in one read, each
/// naming exactly one item (docs/CI.md).
extension Keychain {
    /// One reference: what it is for (a variable or file name, shown in errors), the query, and
    /// whether it takes every item it matches (`--env-from`) rather than exactly one.
    package struct SecretReference: Sendable {
        package let name: String
        package let request: ItemRequest
        package let every: Bool
        /// The stored name a bare reference gives (`keychain:NAME`): a miss then reads as `get
        /// NAME`'s does.
        package let storedName: String?

        package init(name: String, request: ItemRequest, every: Bool = false, storedName: String? = nil) {
            self.name = name
            self.request = request
            self.every = every
            self.storedName = storedName
        }
    }

    /// Resolves every reference in one read transaction, so that all of them see one state of the
    /// keychain. `groups`, when given, restricts every reference to those access groups even if
    /// the profile may read more (each must be one the profile may read: -34018 otherwise). A
    /// reference matching nothing is errSecItemNotFound; one matching several when it must name
    /// one is errSecParam naming their persistent references (determinism over SecItem's "first
    /// match"). Each result holds the items with their secrets, in keychain order.
    package func resolve(_ references: [SecretReference], caller: Caller, groups: [String]?) throws -> [[FoundItem]] {
        for group in groups ?? [] { try caller.check(group: group, writing: false) }
        return try store.read {
            try references.map { reference in
                let found: [FoundItem]
                do { found = try matches(reference, caller: caller, groups: groups) } catch let error as KeychainError
                    where error.status == .itemNotFound && reference.storedName != nil
                {
                    // As get says it: the name, where it looked, and where the stored names are listed.
                    let looked = (groups ?? caller.groups.readable).map(\.terminalSafe).joined(separator: ", ")
                    throw KeychainError(
                        .itemNotFound,
                        hint: "\(reference.name): no secret for service '\(reference.storedName!.terminalSafe)' in \(looked); "
                            + "'keychainctl ls' lists the stored ones. Nothing was run.")
                }
                if !reference.every, found.count > 1 {
                    // Named as get names them: by account and group.
                    throw KeychainError(
                        .param,
                        hint: "\(reference.name): \(found.count) items match: "
                            + found.prefix(5).map(\.item.accountAndGroup).joined(separator: ", ")
                            + (found.count > 5 ? ", …" : "") + "; name one with account=ACCOUNT (and group=GROUP when one "
                            + "account is in two groups). Nothing was run.")
                }
                return found
            }
        }
    }

    /// Every item `reference` matches, with its secret, within `groups` when given.
    private func matches(_ reference: SecretReference, caller: Caller, groups: [String]?) throws -> [FoundItem] {
        var request = reference.request
        request.limit = .value(.all)
        request.returns = .value([.attributes, .data, .persistentRef])
        guard let groups else { return try findAll(request, caller: caller, name: reference.name) }
        if let explicit = request.explicitGroup {
            guard groups.contains(where: { $0.sameBytes(as: explicit) }) else {
                throw KeychainError(
                    .missingEntitlement,
                    hint:
                        "\(reference.name): group \(explicit.terminalSafe) is outside --group \(groups.joined(separator: ", ")); nothing was run."
                )
            }
            return try findAll(request, caller: caller, name: reference.name)
        }
        // A persistent reference names one item by itself (a group beside it is errSecParam): it is
        // found, then held to --group.
        if request.persistentRef != nil {
            let found = try findAll(request, caller: caller, name: reference.name)
            for item in found where !groups.contains(where: { $0.sameBytes(as: item.item.accessGroup) }) {
                throw KeychainError(
                    .missingEntitlement,
                    hint:
                        "\(reference.name): the item is in group \(item.item.accessGroup.terminalSafe), outside --group \(groups.joined(separator: ", ")); nothing was run."
                )
            }
            return found
        }
        var found: [FoundItem] = []
        var lastMiss: KeychainError?
        for group in groups {
            var scoped = request
            scoped.attributes.append((code: Schema.accessGroup, input: .word(group)))
            do { found += try findAll(scoped, caller: caller, name: reference.name) } catch let error as KeychainError
                where error.status == .itemNotFound
            {
                lastMiss = error
            }
        }
        if found.isEmpty, let lastMiss { throw Self.named(reference.name, lastMiss) }
        return found
    }

    private func findAll(_ request: ItemRequest, caller: Caller, name: String) throws -> [FoundItem] {
        do {
            let result = try find(request, caller: caller)
            // Fail closed: a damaged row among the matches may be the item meant.
            if !result.damaged.isEmpty { throw DamagedRow.refusal(result.damaged, changedNothing: true) }
            return result.items
        } catch let error as KeychainError { throw Self.named(name, error) }
    }

    /// `error` with the reference it came from named first, and find's sync advice in the query's
    /// own words (a reference is name=value pairs, not options).
    private static func named(_ name: String, _ error: KeychainError) -> KeychainError {
        let hint = error.hint.replacing(syncAdvice, with: "(synchronizable ones need sync=yes or sync=any in the query)")
        return KeychainError(error.status, hint: "\(name): \(hint)", damaged: error.damaged)
    }
}
