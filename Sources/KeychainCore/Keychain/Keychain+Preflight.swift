import KeychainFormats
import KeychainFoundation

/// The SecItem calls.
package enum SecItemOperation: String, Sendable {
    case find, add, update, delete

    /// Whether the call writes (and so uses the writable groups).
    package var writes: Bool { self != .find }
}

/// What a call's checks passed with: the parsed query, and for an add the group its item lands in.
package struct Preflight {
    package let query: ItemQuery
    /// An add's group: the item's own, else the caller's default, allowed for writing; `nil` for
    /// the other operations.
    package let landingGroup: String?
}

extension Keychain {
    /// The checks every SecItem call makes before it reads or writes a row, each operation's
    /// written once in securityd's order (`SecItemServer.c`, pinned by `PrecedenceTests`): the
    /// caller has a group at all (readable for a find, writable otherwise), then the App Clip's
    /// restrictions, then
    /// - find: the query parsed, its group allowed, a persistent reference standing alone;
    /// - add: the App Clip's checks (`makingSynchronizable`: whether the add makes its item
    ///   synchronizable), the query parsed, no persistent reference, the access control's server
    ///   checks (`accessControl`: the flags the client checks passed), the landing group allowed;
    /// - update: the query's group allowed before it is parsed, the App Clip's restrictions on the
    ///   changes, the query parsed (the changes and a persistent reference are checked by update after);
    /// - delete: the query's group allowed, the query parsed, a persistent reference standing alone.
    /// The first refusal is thrown. The operations start with it, and `explain` calls it and
    /// reports what it throws, so an explanation cannot disagree with the call it explains.
    func preflight(
        _ operation: SecItemOperation, _ request: ItemRequest, caller: Caller, makingSynchronizable: Bool = false,
        accessControl flags: AccessControl.Flags? = nil
    ) throws -> Preflight {
        let writes = operation.writes
        guard writes ? caller.groups.hasWritableGroup : caller.groups.hasReadableGroup else { throw caller.noGroups(writing: writes) }
        switch operation {
        case .find:
            try caller.checkAppClip()
            let query = try Self.parse(.find, request)
            try caller.checkPort(query.attributes)
            if let group = query.attributes[Schema.accessGroup]?.stringValue { try caller.check(group: group, writing: false) }
            try Self.checkPersistentRefStandsAlone(query)
            return Preflight(query: query, landingGroup: nil)
        case .add:
            try caller.checkAppClip(makingSynchronizable: makingSynchronizable)
            let query = try Self.parse(.add, request)
            try caller.checkPort(query.attributes)
            guard query.persistentRef == nil else {
                throw KeychainError(.param, hint: "an add cannot name a persistent reference; the keychain assigns one.")
            }
            if flags != nil {
                try AccessControlRequest.check(
                    flags, givenAccessibility: query.attributes[Schema.protection] != nil, itemClass: query.itemClass)
            }
            guard let group = Self.landingGroup(of: query, caller: caller) else {
                throw KeychainError(.missingEntitlement, hint: "profile \(caller.name) has no default access group; pass --group.")
            }
            try caller.check(group: group, writing: true)
            return Preflight(query: query, landingGroup: group)
        case .update, .delete:
            try caller.checkAppClip()
            if let group = request.explicitGroup { try caller.check(group: group, writing: true) }
            if operation == .update { try caller.checkAppClip(makingSynchronizable: makingSynchronizable) }
            let query = try Self.parse(operation, request)
            try caller.checkPort(query.attributes)
            if operation == .delete { try Self.checkPersistentRefStandsAlone(query) }
            return Preflight(query: query, landingGroup: nil)
        }
    }

    /// The group an add of `query` lands in: the item's own, else the caller's default.
    static func landingGroup(of query: ItemQuery, caller: Caller) -> String? {
        query.attributes[Schema.accessGroup]?.stringValue ?? caller.groups.defaultGroup
    }

    /// `request` parsed as `operation` reads it: a find returns one item's attributes unless told
    /// otherwise, the others act on every match, an add stores what it is given.
    static func parse(_ operation: SecItemOperation, _ request: ItemRequest) throws -> ItemQuery {
        switch operation {
        case .find: try ItemQuery(request, defaultLimit: .one, defaultReturns: [.attributes])
        case .add: try ItemQuery(request, defaultLimit: .one, storing: true)
        case .update, .delete: try ItemQuery(request, defaultLimit: .all)
        }
    }
}
