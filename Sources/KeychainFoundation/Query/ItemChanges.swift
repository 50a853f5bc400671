/// The changes an update makes: attributes to set and, optionally, a new secret.
package struct ItemChanges: Sendable {
    /// Attributes to set, by code (`sync` included as a boolean when changed).
    package let attributes: [String: AttributeValue]
    /// The new secret, if any.
    package let secret: SecretBytes?
    /// New data fields (`binn`…), sealed with the data: each replaces that field, the rest stay.
    package let dataFields: [String: SecretBytes]

    /// Parses `request`'s changes for `schema`. Nothing to change is errSecParam; empty data is a
    /// change like any other (`query_set_data` checks only that the value is data).
    package init(_ request: ChangeRequest, for schema: ClassSchema) throws(KeychainError) {
        let parsed = try AttributeSet(request.attributes, sync: request.sync, for: schema, allowSyncAny: false)
        let secret = request.secret
        guard !parsed.isEmpty || secret != nil || request.accessControl != nil else {
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

/// An update's changes as the caller gave them: attributes to set (words or values, as a request's
/// are), a new sync, a new secret, a new access control.
package struct ChangeRequest: Sendable {
    package var attributes: AttributeInputs = []
    /// kSecAttrSynchronizable, typed; a `sync` word among `attributes` is the same attribute.
    package var sync: SyncFilter?
    /// The new secret, if any.
    package var secret: SecretBytes?
    /// `--set-access-control`: the new access control, bound to the device as an add binds it.
    package var accessControl: AccessControlRequest?

    package init(
        attributes: AttributeInputs = [], sync: SyncFilter? = nil, secret: SecretBytes? = nil, accessControl: AccessControlRequest? = nil
    ) {
        self.attributes = attributes
        self.sync = sync
        self.secret = secret
        self.accessControl = accessControl
    }

    /// Whether the changes make an item synchronizable.
    package var makesSynchronizable: Bool { ItemRequest.makesSynchronizable(attributes, sync: sync) }
}
