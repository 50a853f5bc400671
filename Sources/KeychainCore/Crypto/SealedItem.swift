/// An item as it lies in its row: plaintext identity columns, keyed digests, and the two sealed
/// halves (SEMANTICS §6). Its identity (class, persistent reference, `agrp`, `sync`, `pdmn`) is
/// bound into both halves' authenticated data, and a tamper-check value shared by the halves stops
/// an old secret being paired with newer metadata.
package struct SealedItem: Sendable {
    package var uuid: [UInt8]
    package var accessGroup: String
    package var accessibility: String
    package var sync: Bool
    package var tombstone: Bool
    /// Keyed digest of each digest-kept attribute, by code; absent attributes have none.
    package var digests: [String: [UInt8]]
    /// Sealed metadata (every attribute and the tamper check).
    package var metadata: [UInt8]
    /// The per-item key wrapped by the class key; `nil` for a tombstone.
    package var wrappedItemKey: [UInt8]?
    /// The sealed secret; `nil` for a tombstone.
    package var secret: [UInt8]?

    /// Whether `other` has the identity bound into the authenticated data (so its sealed secret
    /// stays valid for this row).
    func hasSameIdentity(as other: SealedItem) -> Bool {
        uuid == other.uuid && accessGroup == other.accessGroup && accessibility == other.accessibility
            && sync == other.sync
    }
}

/// Sealing and opening items.
extension KeyRing {
    private static func identity(
        _ itemClass: ItemClass, uuid: [UInt8], group: String, sync: Bool, pdmn: String, purpose: String
    ) -> [UInt8] {
        Array("kc1\0\(itemClass.rawValue)\0".utf8) + uuid + Array("\0\(group)\0\(sync ? 1 : 0)\0\(pdmn)\0\(purpose)".utf8)
    }

    /// Seals `item` and its `secret` for storage. With `keepingSecretOf` and no new `secret`, the
    /// item keeps the previous row's secret: its sealed form is reused when the identity bound into
    /// the authenticated data is unchanged (an attribute-only change), and it is opened and sealed
    /// anew when the identity changed (a group, sync or accessibility move, or a copy).
    package func seal(_ item: Item, secret: SecretBytes?, keepingSecretOf previous: SealedItem? = nil)
        throws(KeychainError) -> SealedItem
    {
        let accessibility = item.accessibility
        let schema = Schema.of(item.itemClass)!
        var digests: [String: [UInt8]] = [:]
        for attribute in schema.digestAttributes {
            if let value = item.attributes[attribute.code] {
                digests[attribute.code] = self.digests.digest(code: attribute.code, value: value.canonicalBytes)
            }
        }
        var sealed = SealedItem(
            uuid: item.uuid, accessGroup: item.accessGroup, accessibility: accessibility.rawValue,
            sync: item.isSynchronizable, tombstone: item.isTombstone, digests: digests, metadata: [],
            wrappedItemKey: nil, secret: nil)
        func context(_ purpose: String) -> [UInt8] {
            Self.identity(
                item.itemClass, uuid: item.uuid, group: sealed.accessGroup, sync: sealed.sync,
                pdmn: sealed.accessibility, purpose: purpose)
        }
        var check = Sodium.randomBytes(16)
        var secret = secret
        if secret == nil, let previous {
            let opened = try openMetadata(previous, itemClass: item.itemClass)
            if previous.hasSameIdentity(as: sealed) {
                check = opened.tamperCheck
                sealed.wrappedItemKey = previous.wrappedItemKey
                sealed.secret = previous.secret
            } else {
                secret = try openSecret(previous, itemClass: item.itemClass, tamperCheck: opened.tamperCheck)
            }
        }
        if sealed.secret == nil, let secret, !item.isTombstone {
            itemKey.fillRandom()
            let classKey = try classKey(accessibility)
            sealed.wrappedItemKey = itemKey.withUnsafeBytes {
                AEAD.seal($0, key: classKey, associatedData: context("item key"))
            }
            sealed.secret = secret.withUnsafeBytes {
                AEAD.seal($0, key: itemKey, associatedData: context("secret") + check)
            }
        }
        let plaintext = item.encodedMetadata(tamperCheck: check)
        let metadataKey = try metadataKey(accessibility)
        sealed.metadata = plaintext.withUnsafeBytes {
            AEAD.seal($0, key: metadataKey, associatedData: context("metadata"))
        }
        return sealed
    }

    /// Opens the attributes of a row of class `itemClass`; errSecDecode names the item when it fails.
    package func openItem(_ sealed: SealedItem, itemClass: ItemClass) throws(KeychainError) -> Item {
        try openMetadata(sealed, itemClass: itemClass).item
    }

    /// Opens a row's attributes and, with `withSecret`, its secret (`nil` for a tombstone), opening
    /// the metadata once for both.
    package func open(_ sealed: SealedItem, itemClass: ItemClass, withSecret: Bool) throws(KeychainError)
        -> (item: Item, secret: SecretBytes?)
    {
        let opened = try openMetadata(sealed, itemClass: itemClass)
        let secret = withSecret ? try openSecret(sealed, itemClass: itemClass, tamperCheck: opened.tamperCheck) : nil
        return (opened.item, secret)
    }

    /// Opens the secret of a row whose metadata gave `tamperCheck`; `nil` for a tombstone.
    private func openSecret(_ sealed: SealedItem, itemClass: ItemClass, tamperCheck: [UInt8]) throws(KeychainError)
        -> SecretBytes?
    {
        guard let wrapped = sealed.wrappedItemKey, let box = sealed.secret else { return nil }
        guard let accessibility = Accessibility(rawValue: sealed.accessibility) else {
            throw damaged(sealed, itemClass)
        }
        let context = { (purpose: String) in
            Self.identity(
                itemClass, uuid: sealed.uuid, group: sealed.accessGroup, sync: sealed.sync,
                pdmn: sealed.accessibility, purpose: purpose)
        }
        guard AEAD.open(wrapped, into: itemKey, key: try classKey(accessibility), associatedData: context("item key")),
            let secret = AEAD.open(box, key: itemKey, associatedData: context("secret") + tamperCheck)
        else { throw damaged(sealed, itemClass) }
        return secret
    }

    private func openMetadata(_ sealed: SealedItem, itemClass: ItemClass) throws(KeychainError)
        -> (item: Item, tamperCheck: [UInt8])
    {
        guard let accessibility = Accessibility(rawValue: sealed.accessibility) else {
            throw damaged(sealed, itemClass)
        }
        let context = Self.identity(
            itemClass, uuid: sealed.uuid, group: sealed.accessGroup, sync: sealed.sync,
            pdmn: sealed.accessibility, purpose: "metadata")
        guard let plain = AEAD.openPublic(sealed.metadata, key: try metadataKey(accessibility), associatedData: context),
            let decoded = plain.withUnsafeBytes({ Item.decodeMetadata($0) })
        else { throw damaged(sealed, itemClass) }
        var attributes = decoded.attributes
        attributes["agrp"] = .string(sealed.accessGroup)
        attributes["pdmn"] = .string(sealed.accessibility)
        attributes["sync"] = .bool(sealed.sync)
        attributes["tomb"] = .bool(sealed.tombstone)
        return (Item(itemClass: itemClass, uuid: sealed.uuid, attributes: attributes), decoded.tamperCheck)
    }

    private func damaged(_ sealed: SealedItem, _ itemClass: ItemClass) -> KeychainError {
        let ref = PersistentRef(itemClass: itemClass, uuid: sealed.uuid).base64
        return KeychainError(
            .decode,
            hint:
                "item \(ref) does not open: its sealed data was altered or moved from another item. The row is kept; delete it with --persistent-ref \(ref) if it cannot be restored."
        )
    }
}
