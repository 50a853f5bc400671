/// Sealing and opening items (SEMANTICS §6).
extension KeyRing {
    /// What binds a sealed half of a row to that row: the file's identity (v2), the class, the
    /// persistent reference, and every plaintext column the schema declares.
    private func associatedData(_ schema: ClassSchema, _ row: SealedItem, purpose: String) -> [UInt8] {
        switch format {
        case .v1:
            return Array("kc1\0\(schema.table)\0".utf8) + row.uuid
                + Array("\0\(row.accessGroup)\0\(row.sync ? 1 : 0)\0\(row.accessibility)\0\(purpose)".utf8)
        case .v2(let id):
            var fields = [Array("kc2".utf8), id, Array(schema.table.utf8), row.uuid]
            for attribute in schema.plaintextAttributes {
                fields.append(Array(attribute.code.utf8))
                fields.append(row.plaintext[attribute.code]?.canonicalBytes ?? [])
            }
            fields.append(Array(purpose.utf8))
            return SealFormat.lengthPrefixed(fields)
        }
    }

    /// Seals `item` and its `secret` for storage. With `keepingSecretOf` and no new `secret`, the
    /// item keeps the previous row's secret: its sealed form is reused when the identity bound into
    /// the authenticated data is unchanged (an attribute-only change), and it is opened and sealed
    /// anew when the identity changed (a group, sync or accessibility move, or a copy).
    package func seal(_ item: Item, secret: SecretBytes?, keepingSecretOf previous: SealedItem? = nil)
        throws(KeychainError) -> SealedItem
    {
        let schema = Schema.of(item.itemClass)!
        let accessibility = item.accessibility
        var plaintext: [String: AttributeValue] = [:]
        for attribute in schema.plaintextAttributes { plaintext[attribute.code] = item.attributes[attribute.code] }
        plaintext["pdmn"] = .string(accessibility.rawValue)
        var sealed = SealedItem(
            uuid: item.uuid, plaintext: plaintext, digests: digests.columns(of: item.attributes, schema: schema),
            metadata: [], wrappedItemKey: nil, secret: nil)
        var check = Sodium.randomBytes(16)
        var secret = secret
        if secret == nil, let previous {
            let opened = try openMetadata(previous, schema: schema)
            if previous.hasSameIdentity(as: sealed) {
                check = opened.tamperCheck
                sealed.wrappedItemKey = previous.wrappedItemKey
                sealed.secret = previous.secret
            } else {
                secret = try openSecret(previous, schema: schema, tamperCheck: opened.tamperCheck)
            }
        }
        if sealed.secret == nil, let secret, !item.isTombstone {
            itemKey.fillRandom()
            let wrapKey = try itemWrapKey(accessibility)
            sealed.wrappedItemKey = itemKey.withUnsafeBytes {
                AEAD.seal($0, key: wrapKey, associatedData: associatedData(schema, sealed, purpose: "item key"))
            }
            sealed.secret = secret.withUnsafeBytes {
                AEAD.seal($0, key: itemKey, associatedData: associatedData(schema, sealed, purpose: "secret") + check)
            }
        }
        sealed.secretPresent = sealed.secret != nil
        let encoded = item.encodedMetadata(tamperCheck: check)
        let metadataKey = try metadataKey(accessibility)
        sealed.metadata = encoded.withUnsafeBytes {
            AEAD.seal($0, key: metadataKey, associatedData: associatedData(schema, sealed, purpose: "metadata"))
        }
        return sealed
    }

    /// Opens the attributes of a row of class `itemClass`; errSecDecode names the item when any
    /// column of the row is not what was sealed.
    package func openItem(_ sealed: SealedItem, itemClass: ItemClass) throws(KeychainError) -> Item {
        try openMetadata(sealed, schema: Schema.of(itemClass)!).item
    }

    /// Opens a row's attributes and, with `withSecret`, its secret (`nil` for a tombstone), opening
    /// the metadata once for both.
    package func open(_ sealed: SealedItem, itemClass: ItemClass, withSecret: Bool) throws(KeychainError)
        -> (item: Item, secret: SecretBytes?)
    {
        let schema = Schema.of(itemClass)!
        let opened = try openMetadata(sealed, schema: schema)
        let secret = withSecret ? try openSecret(sealed, schema: schema, tamperCheck: opened.tamperCheck) : nil
        return (opened.item, secret)
    }

    /// Opens the secret of a row whose metadata gave `tamperCheck`; `nil` for a tombstone.
    private func openSecret(_ sealed: SealedItem, schema: ClassSchema, tamperCheck: [UInt8]) throws(KeychainError)
        -> SecretBytes?
    {
        guard let wrapped = sealed.wrappedItemKey, let box = sealed.secret else {
            if sealed.tombstone { return nil }
            throw DamagedRow.Reason.missingSecret.error(schema.itemClass, uuid: sealed.uuid)
        }
        guard let accessibility = Accessibility(rawValue: sealed.accessibility),
            AEAD.open(
                wrapped, into: itemKey, key: try itemWrapKey(accessibility),
                associatedData: associatedData(schema, sealed, purpose: "item key")),
            let secret = AEAD.open(box, key: itemKey, associatedData: associatedData(schema, sealed, purpose: "secret") + tamperCheck)
        else { throw DamagedRow.Reason.sealedDataAltered.error(schema.itemClass, uuid: sealed.uuid) }
        return secret
    }

    /// Opens the metadata and checks the rest of the row against it: the plaintext columns through
    /// the authenticated data, the digest columns by recomputing them, the secret's presence by the
    /// tombstone flag.
    private func openMetadata(_ sealed: SealedItem, schema: ClassSchema) throws(KeychainError)
        -> (item: Item, tamperCheck: [UInt8])
    {
        let itemClass = schema.itemClass
        if sealed.malformed != nil { throw DamagedRow.Reason.malformedColumn.error(itemClass, uuid: sealed.uuid) }
        guard sealed.tombstone == (sealed.secretPresent == false) else {
            throw (sealed.tombstone ? DamagedRow.Reason.tombstoneWithSecret : .missingSecret).error(itemClass, uuid: sealed.uuid)
        }
        guard let accessibility = Accessibility(rawValue: sealed.accessibility),
            let plain = AEAD.openPublic(
                sealed.metadata, key: try metadataKey(accessibility),
                associatedData: associatedData(schema, sealed, purpose: "metadata")),
            let decoded = plain.withUnsafeBytes({ Item.decodeMetadata($0) })
        else { throw DamagedRow.Reason.sealedDataAltered.error(itemClass, uuid: sealed.uuid) }
        guard digests.columns(of: decoded.attributes, schema: schema) == sealed.digests else {
            throw DamagedRow.Reason.digestMismatch.error(itemClass, uuid: sealed.uuid)
        }
        var attributes = decoded.attributes
        for (code, value) in sealed.plaintext { attributes[code] = value }
        return (Item(itemClass: itemClass, uuid: sealed.uuid, attributes: attributes), decoded.tamperCheck)
    }
}
