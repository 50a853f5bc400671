/// A validated query: what to match, how many, and what to return (docs/FIDELITY.md).
package struct ItemQuery: Sendable {
    /// The class searched.
    package let itemClass: ItemClass
    /// The class's schema.
    package let schema: ClassSchema
    /// Attributes to match exactly (including `agrp` and `pdmn` when given).
    package let attributes: [String: AttributeValue]
    /// The sync filter: `no` unless the request mentioned `sync` or gave a persistent reference,
    /// which finds its item whatever its sync state (`SecDbQuery.c`, `query_create_with_limit`
    /// adds the implicit `sync = 0` only when the query names neither).
    package let sync: SyncFilter
    /// Whether `sync` was mentioned at all (an add stores `sync=any` as not synchronizable).
    package let mentionsSync: Bool
    /// How many.
    package let limit: MatchLimit
    /// What to return.
    package let returns: ReturnOptions
    /// One item by persistent reference.
    package let persistentRef: PersistentRef?
    /// Data fields an add stores with the data (`ItemSecret`); never matched.
    package let dataFields: [String: [UInt8]]
    /// kSecMatchHostOrSubdomainOfHost, lowercased: an internet password's server must be this host
    /// or end in "." and it (`srvr` is sealed, so the rows are read and checked, not selected by it).
    package let hostOrSubdomainOf: String?

    /// Parses a request. `defaultLimit` is one for find, all for update and delete;
    /// `defaultReturns` is what comes back when `--return` is absent. Only an add (`storing`) may
    /// give data fields: they are sealed with the data and no query can match them (Apple's query
    /// names them as columns its tables do not have).
    package init(_ request: ItemRequest, defaultLimit: MatchLimit, defaultReturns: ReturnOptions = [], storing: Bool = false)
        throws(KeychainError)
    {
        var classText = request.itemClass
        var reference: PersistentRef?
        if let text = request.persistentRef {
            guard let bytes = Base64.decode(text), let parsed = PersistentRef(bytes: bytes) else {
                throw KeychainError(.param, hint: "'\(text)' is not a persistent reference (base64 of 20 bytes: class code and UUID).")
            }
            if let classText, ItemClass(parsing: classText) != parsed.itemClass {
                throw KeychainError(.param, hint: "the persistent reference is a \(parsed.itemClass.rawValue) item, not \(classText).")
            }
            classText = parsed.itemClass.rawValue
            reference = parsed
        }
        let itemClass = try Self.parseClass(classText)
        guard let schema = Schema.of(itemClass) else {
            throw KeychainError(
                .param, hint: "identity items are a join of a certificate and a key; this operation does not take --class idnt.")
        }
        let parsed = try AttributeSet(request.attributes, sync: request.sync, for: schema, allowSyncAny: true)
        let limit: MatchLimit
        switch request.limit {
        case .value(let given)?: limit = given
        case .invalid(let word)?: throw KeychainError(.param, hint: "--limit takes one, all or a positive number, not '\(word)'.")
        case nil: limit = defaultLimit
        }
        var returns: ReturnOptions
        switch request.returns {
        case .value(let given)?: returns = given
        case .invalid(let words)?:
            throw KeychainError(.param, hint: "--return takes attributes, data, persistent-ref and ref, not '\(words)'.")
        case nil: returns = defaultReturns
        }
        if !itemClass.hasReference { returns.remove(.reference) }
        self.itemClass = itemClass
        self.schema = schema
        var values = parsed.values
        var dataFields: [String: [UInt8]] = [:]
        for field in schema.dataFields {
            guard case .data(let bytes)? = values.removeValue(forKey: field.code) else { continue }
            guard storing else {
                throw KeychainError(
                    .param,
                    hint:
                        "\(field.code) (\(field.name)) is sealed with the item's data and cannot be matched; find the item by its other attributes and ask for --return data."
                )
            }
            dataFields[field.code] = bytes
        }
        self.dataFields = dataFields
        self.attributes = Self.normalizingIssuer(values, of: itemClass)
        self.sync = parsed.sync ?? (reference == nil ? .no : .any)
        self.mentionsSync = parsed.sync != nil
        self.limit = limit
        self.returns = returns
        self.persistentRef = reference
        if let host = request.hostOrSubdomainOf {
            guard itemClass == .internetPassword, !storing else {
                throw KeychainError(.param, hint: "a host or subdomain match is for queries of internet passwords (inet).")
            }
            guard !host.isEmpty else { throw KeychainError(.param, hint: "a host or subdomain match needs a host.") }
            hostOrSubdomainOf = host.lowercased()
        } else {
            hostOrSubdomainOf = nil
        }
    }

    /// A certificate query's issuer, normalised as the stored one is (`SecItem.m` normalises it
    /// client-side): given as a whole DER Name or as its content, in any case and spacing a CA
    /// wrote, it matches the certificate. A value that is not a Name is left as given.
    package static func normalizingIssuer(_ values: [String: AttributeValue], of itemClass: ItemClass) -> [String: AttributeValue] {
        guard itemClass == .certificate, case .data(let issuer)? = values[Schema.issuer],
            let normalized = DistinguishedName.normalizedContent(of: issuer) ?? DistinguishedName.normalizedContent(ofContent: issuer)
        else { return values }
        var normalizedValues = values
        normalizedValues[Schema.issuer] = .data(normalized)
        return normalizedValues
    }

    /// A class code or long name; unknown is errSecNoSuchClass. Identity (a join, with no schema
    /// of its own) is routed by each operation before a query is built.
    package static func parseClass(_ text: String?) throws(KeychainError) -> ItemClass {
        guard let itemClass = ItemClass(parsing: text ?? "genp") else {
            throw KeychainError(
                .noSuchClass,
                hint:
                    "'\(text ?? "")' is not an item class; use genp, inet, cert, keys or idnt (or generic-password, internet-password, certificate, key, identity)."
            )
        }
        return itemClass
    }

    /// Whether the query names anything besides a persistent reference (then -50 with one).
    package var hasMatchAttributes: Bool { !attributes.isEmpty || mentionsSync }

    /// Whether `item`, whose bytes the digests already matched, holds each attribute as the kind of
    /// value the query gives (`AttributeValue.matches`): an account stored as data is not found by
    /// the string of its bytes, as in Apple's keychain. Such an item is not a match, and not damaged.
    package func matchesKinds(of item: Item) -> Bool {
        attributes.allSatisfy { code, value in item.attributes[code].map(value.matches) ?? false }
    }

    /// Whether `item`, which the SQL selected, is one the query asks for: its attributes of the
    /// query's kinds, and its server the host or a subdomain of it when the query says so. DNS
    /// names compare without case.
    package func matches(_ item: Item) -> Bool {
        guard matchesKinds(of: item) else { return false }
        guard let host = hostOrSubdomainOf else { return true }
        guard let server = item.attributes[Schema.server]?.stringValue?.lowercased() else { return false }
        return server == host || server.hasSuffix("." + host)
    }
}
