/// The changes an update makes: attributes to set and, optionally, a new secret.
package struct ItemChanges: Sendable {
    /// Attributes to set, by code (`sync` included as a boolean when changed).
    package let attributes: [String: AttributeValue]
    /// The new secret, if any.
    package let secret: SecretBytes?
    /// New data fields (`binn`…), sealed with the data: each replaces that field, the rest stay.
    package let dataFields: [String: SecretBytes]

    /// Parses changes (`typed`: values the `Security` library binds, not parsed) for `schema`.
    /// Nothing to change is errSecParam; empty data is a change like any other (`query_set_data`
    /// checks only that the value is data). `accessControl` says a new access control is among
    /// the changes.
    package init(
        _ pairs: [(code: String, value: String)], typed: [(code: String, value: AttributeValue)] = [], sync: SyncFilter? = nil,
        secret: SecretBytes?, for schema: ClassSchema, accessControl: Bool = false
    ) throws(KeychainError) {
        let parsed = try AttributeSet(parsing: pairs, typed: typed, sync: sync, for: schema, allowSyncAny: false)
        guard !parsed.isEmpty || secret != nil || accessControl else {
            throw KeychainError(.param, hint: "nothing to change: give a --set-… option or a new secret.")
        }
        var values = parsed.values
        var dataFields: [String: SecretBytes] = [:]
        for field in schema.dataFields {
            if case .data(let bytes)? = values.removeValue(forKey: field.code) { dataFields[field.code] = SecretBytes(copying: bytes) }
        }
        self.dataFields = dataFields
        if let sync = parsed.sync { values[Schema.synchronizable] = .bool(sync == .yes) }
        self.attributes = values
        self.secret = secret
    }
}
