import KeychainFormats
import KeychainFoundation

/// The SecItem calls.
package enum SecItemOperation: String, Sendable {
    case find, add, update, delete

    /// Whether the call writes (and so uses the writable groups).
    package var writes: Bool { self != .find }
}

extension Keychain {
    /// The checks every SecItem call makes before it reads or writes a row, each operation's
    /// written once in securityd's order (`SecItemServer.c`, pinned by `PrecedenceTests`): the
    /// caller has a group at all (readable for a find, writable otherwise), then the App Clip's
    /// restrictions, then
    /// - find: the query parsed, its group allowed, a persistent reference standing alone;
    /// - add (`preflightAdd`, which also returns the group): the App Clip's checks
    ///   (`makingSynchronizable`: whether the add makes its item synchronizable), the query parsed,
    ///   no persistent reference, the access control's server checks
    ///   (`accessControl`: the flags the client checks passed), the group the item lands in (its
    ///   own, else the default) allowed;
    /// - update: the query's group allowed before it is parsed, the App Clip's restrictions on the
    ///   changes (`writing`), the query parsed (the changes and a persistent reference are checked
    ///   by update after);
    /// - delete: the query's group allowed, the query parsed, a persistent reference standing alone.
    /// The first refusal is thrown; the parsed query is returned. The operations start with it, and
    /// `explain` calls it and reports what it throws, so an explanation cannot disagree with the
    /// call it explains.
    func preflight(
        _ operation: SecItemOperation, _ request: ItemRequest, caller: Caller, makingSynchronizable: Bool = false,
        accessControl flags: AccessControl.Flags? = nil
    ) throws -> ItemQuery {
        if operation == .add {
            return try preflightAdd(request, caller: caller, makingSynchronizable: makingSynchronizable, accessControl: flags).query
        }
        let writes = operation.writes
        guard writes ? caller.groups.hasWritableGroup : caller.groups.hasReadableGroup else { throw caller.noGroups(writing: writes) }
        switch operation {
        case .find:
            try caller.checkAppClip()
            let query = try Self.parse(.find, request)
            try caller.checkPort(query.attributes)
            if let group = query.attributes[Schema.accessGroup]?.stringValue { try caller.check(group: group, writing: false) }
            try Self.checkPersistentRefStandsAlone(query)
            return query
        case .update, .delete, .add:  // (an add returned above, from preflightAdd)
            try caller.checkAppClip()
            if let group = request.explicitGroup { try caller.check(group: group, writing: true) }
            if operation == .update { try caller.checkAppClip(makingSynchronizable: makingSynchronizable) }
            let query = try Self.parse(operation, request)
            try caller.checkPort(query.attributes)
            if operation == .delete { try Self.checkPersistentRefStandsAlone(query) }
            return query
        }
    }

    /// An add's checks (`preflight(.add, …)`), and the group the item lands in: its own, else the
    /// caller's default, allowed for writing.
    func preflightAdd(
        _ request: ItemRequest, caller: Caller, makingSynchronizable: Bool, accessControl flags: AccessControl.Flags?
    ) throws -> (query: ItemQuery, group: String) {
        guard caller.groups.hasWritableGroup else { throw caller.noGroups(writing: true) }
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
        guard let group = query.attributes[Schema.accessGroup]?.stringValue ?? caller.groups.defaultGroup else {
            throw KeychainError(.missingEntitlement, hint: "profile \(caller.name) has no default access group; pass --group.")
        }
        try caller.check(group: group, writing: true)
        return (query, group)
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
