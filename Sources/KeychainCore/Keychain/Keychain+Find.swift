import KeychainFormats
import KeychainFoundation

/// SecItemCopyMatching (`SecItemServer.c`, `_SecItemCopyMatching`).
extension Keychain {
    /// One matched item, with its secret when data was asked for.
    package struct FoundItem: Sendable {
        package let item: Item
        /// The data when data was asked for; `nil` also for an item that has none.
        package let secret: SecretBytes?
        /// The data fields sealed with the data (`binn`…), when data was asked for.
        package var dataFields: [String: SecretBytes] = [:]
        /// The object as PEM, when `ref` was asked for (`ObjectReference`).
        package var reference: SecretBytes? = nil
        /// An identity's certificate (DER), when `ref` was asked for.
        package var certificate: [UInt8]? = nil

        package init(item: Item, secret: SecretBytes?) {
            self.item = item
            self.secret = secret
        }
    }

    /// What a find returns: the items, the query that shapes how they are shown, and the damaged
    /// rows it met and left out (the caller reports them; docs/SECURITY.md).
    package struct FindResult: Sendable {
        package let query: ItemQuery
        package let items: [FoundItem]
        package let damaged: [DamagedRow]
    }

    /// Finds items. Check order: no readable group (-34018) → bad request → explicit group
    /// (-34018) → persistent reference with attributes (-50) → none (-25300). A secret is opened
    /// only when data is asked for. A damaged row never stops the search and is never returned:
    /// it is listed in the result; when nothing good matched it is errSecDecode, or with
    /// `skipDamaged` errSecItemNotFound.
    package func find(_ request: ItemRequest, caller: Caller, skipDamaged: Bool = false) throws -> FindResult {
        var found: [FoundItem] = []
        let summary = try find(request, caller: caller, skipDamaged: skipDamaged) { found.append($1) }
        return FindResult(query: summary.query, items: found, damaged: summary.damaged)
    }

    /// What a streamed find reports once every item has been handed over.
    package struct FindSummary: Sendable {
        package let query: ItemQuery
        package let count: Int
        package let damaged: [DamagedRow]
        /// Whether the query selects more rows than its limit let through (`find -w` warns).
        package var moreMatched = false
    }

    /// `find`, handing each item (with the parsed query, which says how it is shown) to `each` as
    /// soon as it is opened and checked, so that only one item's secret is in memory at a time. Nothing
    /// is handed over before the query is checked;
    /// errSecItemNotFound and errSecDecode come after the search, when nothing was handed over.
    package func find(
        _ request: ItemRequest, caller: Caller, skipDamaged: Bool = false, each: (ItemQuery, FoundItem) throws -> Void
    ) throws -> FindSummary {
        try find(request, caller: caller, skipDamaged: skipDamaged, checkingExport: true, each: each)
    }

    /// `find`; without `checkingExport` a private key's bytes are handed over whatever the request
    /// allows (an identity find reads its key half so, and checks the joined identities itself).
    func find(
        _ request: ItemRequest, caller: Caller, skipDamaged: Bool, checkingExport: Bool, each: (ItemQuery, FoundItem) throws -> Void
    ) throws -> FindSummary {
        if Self.isIdentity(request) {
            return try findIdentities(request, caller: caller, skipDamaged: skipDamaged, each: each)
        }
        try beginCall("find")
        let query = try preflight(.find, request, caller: caller).query
        let filter = filter(for: query, caller: caller, writing: false)
        let wantsData = query.returns.needsSecret
        var count = 0
        var moreMatched = false
        let damaged = try store.read {
            // While some class is locked, or some match is protected by an access control, one
            // row can fail the whole call (-25308, -128, -25293) with no partial result: a first
            // pass opens the same rows, up to the limit, and asks for every authentication before
            // anything is handed over (the second pass does not ask again). Whether a match is
            // protected is read from its authenticated `accc` column, unopened, by the statement
            // the second pass reuses, and only in a keychain that ever held a protected item (the
            // look cost every find 5%). The same pass refuses a private key's bytes before any
            // item is handed over.
            let checksExport = checkingExport && query.itemClass == .key && wantsData
            if try checksExport || !keys.device.allowsEveryClass
                || (keys.device.hasProtectedItems
                    && store.anyRow(query.itemClass, filter: filter, withSecret: wantsData) { $0.hasAccessControl })
            {
                _ = try forEachMatch(query, filter: filter, withSecret: false, openSecret: false, access: .read) { match, _ in
                    if checksExport,
                        let refusal = ObjectReference.exportRefusal(
                            match.opened.item, returnsData: query.returns.contains(.data),
                            returnsReference: query.returns.contains(.reference), allowed: request.allowPrivateKeyExport)
                    {
                        throw refusal
                    }
                }
            }
            let pass = try forEachMatch(query, filter: filter, withSecret: wantsData, openSecret: wantsData, access: .read, peeking: true) {
                match, secret in
                count += 1
                try each(query, try Self.found(match.opened.item, secret: secret, certificate: nil, query: query, request: request))
            }
            moreMatched = pass.more
            return pass.damaged
        }
        guard count > 0 else {
            if !damaged.isEmpty, !skipDamaged { throw DamagedRow.refusal(damaged, changedNothing: false) }
            throw caller.notFound(notFound(query, filter: filter, skipped: damaged))
        }
        var summary = FindSummary(query: query, count: count, damaged: damaged)
        summary.moreMatched = moreMatched
        return summary
    }

    /// How many items the SQL selects for `request` (the caller's groups, the sync filter and the
    /// matched attributes' digests), counted without opening any: the figure `find -w`'s warning
    /// gives when more than one item matched.
    package func matchCount(_ request: ItemRequest, caller: Caller) throws -> Int {
        let query = try ItemQuery(request, defaultLimit: .all)
        let filter = filter(for: query, caller: caller, writing: false)
        return try store.read { try store.count(query.itemClass, filter: filter) }
    }

    /// How many items the SQL would select for `request` in access groups `caller` does not read
    /// (counted as `matchCount` counts, without opening any): what a miss's message points at
    /// `explain` for. None when the request names its group or the caller reads every group.
    package func matchCountElsewhere(_ request: ItemRequest, caller: Caller) throws -> Int {
        let query = try ItemQuery(request, defaultLimit: .all)
        var filter = filter(for: query, caller: caller, writing: false)
        guard query.attributes[Schema.accessGroup] == nil, filter.groups != nil else { return 0 }
        let everywhere: Int = try store.read {
            let readable = try store.count(query.itemClass, filter: filter)
            filter.groups = nil
            return try store.count(query.itemClass, filter: filter) - readable
        }
        return everywhere
    }

    /// A matched item as it is handed over: its secret when data was asked for, its PEM when its
    /// reference was.
    static func found(_ item: Item, secret opened: ItemSecret?, certificate: [UInt8]?, query: ItemQuery, request: ItemRequest) throws
        -> FoundItem
    {
        let wantsData = query.returns.contains(.data)
        var found = FoundItem(item: item, secret: wantsData ? opened?.data : nil)
        if wantsData { found.dataFields = opened?.fields ?? [:] }
        if query.returns.contains(.reference), let secret = opened?.data {
            found.certificate = certificate
            found.reference = try ObjectReference.pem(
                of: item, secret: secret, certificate: certificate, exportPrivate: request.allowPrivateKeyExport)
        }
        return found
    }

    /// A persistent reference together with any other attribute is errSecParam (docs/FIDELITY.md).
    static func checkPersistentRefStandsAlone(_ query: ItemQuery) throws(KeychainError) {
        if query.persistentRef != nil, query.hasMatchAttributes { throw persistentRefNotAlone }
    }

    /// The refusal of a persistent reference given with other attributes.
    static let persistentRefNotAlone = KeychainError(
        .param, hint: "a persistent reference finds one item by itself; give no other attribute with it.")
}
