/// SecItemCopyMatching (`SecItemServer.c`, `_SecItemCopyMatching`).
extension Keychain {
    /// One matched item, with its secret when data was asked for.
    package struct FoundItem: Sendable {
        package let item: Item
        package let secret: SecretBytes?
    }

    /// What a find returns: the items and the query that shapes how they are shown.
    package struct FindResult: Sendable {
        package let query: ItemQuery
        package let items: [FoundItem]
    }

    /// Finds items. Check order: no readable group (-34018) → bad request → explicit group
    /// (-34018) → persistent reference with attributes (-50) → none (-25300). A secret is opened
    /// only when data is asked for.
    package func find(_ request: ItemRequest, caller: Caller) throws -> FindResult {
        guard caller.groups.hasReadableGroup else { throw caller.noGroups(writing: false) }
        let query = try ItemQuery(request, defaultLimit: .one, defaultReturns: [.attributes])
        if let group = query.attributes["agrp"]?.stringValue { try caller.check(group: group, writing: false) }
        try Self.checkPersistentRefStandsAlone(query)
        let filter = filter(for: query, caller: caller, writing: false)
        let wantsData = query.returns.contains(.data)
        var found: [FoundItem] = []
        try store.read {
            try store.forEachRow(query.itemClass, filter: filter, limit: query.limit.rowLimit, withSecret: wantsData) {
                _, row in
                let opened = try keys.open(row, itemClass: query.itemClass, withSecret: wantsData)
                found.append(FoundItem(item: opened.item, secret: opened.secret))
            }
        }
        guard !found.isEmpty else { throw notFound(query, filter: filter) }
        return FindResult(query: query, items: found)
    }

    /// A persistent reference together with any other attribute is errSecParam (SEMANTICS §3).
    static func checkPersistentRefStandsAlone(_ query: ItemQuery) throws(KeychainError) {
        if query.persistentRef != nil, query.hasMatchAttributes {
            throw KeychainError(.param, hint: "a persistent reference finds one item by itself; give no other attribute with it.")
        }
    }
}
