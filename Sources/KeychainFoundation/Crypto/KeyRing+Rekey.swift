/// Re-sealing a row for a new keychain key (`rekey`): the secret is opened with the old ring and
/// sealed anew under a fresh per-item key wrapped by this one, the metadata sealed under this
/// ring's metadata key, and the keyed digests recomputed with its digest key, so nothing of the
/// old sealing is left in the row: whoever took the old key, or an item key under it, opens
/// nothing of the new file. An item behind an application password keeps its inner layer and
/// its secret's box, which only the password opens; the outer layer is re-wrapped without it.
extension KeyRing {
    /// Fresh random class keys, wrapped under `keychainKey`, for each class `old` holds a key for
    /// (a class whose key was destroyed stays without one).
    package static func freshClassKeys(like old: KeyRing, under keychainKey: SecretBytes) -> [String: [UInt8]] {
        let wrapKey = wrapKey(keychainKey, format: old.format)
        var wrapped: [String: [UInt8]] = [:]
        for accessibility in Accessibility.allCases where old.hasClassKey(accessibility) {
            wrapped[accessibility.rawValue] = wrap(SecretBytes.random(count: keyBytes), accessibility, under: wrapKey, format: old.format)
        }
        return wrapped
    }

    /// Whether `opened`'s item key is wrapped twice, the inner layer under an application password.
    package func hasPasswordLayer(_ opened: OpenedRow) -> Bool {
        opened.row.hasAccessControl && AccessControl(stored: opened.row.accessControlText)?.flags.contains(.applicationPassword) == true
    }

    /// Checks the outer layer of a password-protected item key (what opens without the password);
    /// errSecDecode naming the item when it does not open.
    package func checkOuterLayer(_ opened: OpenedRow) throws(KeychainError) {
        let itemClass = opened.item.itemClass
        guard let schema = Schema.of(itemClass), let accessibility = Accessibility(rawValue: opened.row.accessibility),
            let wrapped = opened.row.wrappedItemKey, opened.row.secret != nil,
            AEAD.openPublic(
                wrapped, key: try itemWrapKey(accessibility),
                associatedData: Binding(format, schema, opened.row).associatedData("item key")) != nil
        else { throw DamagedRow.Reason.sealedDataAltered.error(itemClass, uuid: opened.row.uuid) }
    }

    /// `opened` (read with its secret columns, opened by `old`) sealed for this ring.
    package func resealed(_ opened: OpenedRow, from old: KeyRing) throws(KeychainError) -> SealedItem {
        if !hasPasswordLayer(opened), let secret = try old.openSecret(of: opened) {
            return try seal(opened.item, secret: secret)
        }
        let itemClass = opened.item.itemClass
        guard let schema = Schema.of(itemClass), let accessibility = Accessibility(rawValue: opened.row.accessibility) else {
            throw DamagedRow.Reason.malformedColumn.error(itemClass, uuid: opened.row.uuid)
        }
        var sealed = opened.row
        let binding = Binding(format, schema, opened.row)
        let itemKeyData = binding.associatedData("item key")
        if let wrapped = opened.row.wrappedItemKey {
            let oldWrap = try old.itemWrapKey(accessibility)
            let newWrap = try itemWrapKey(accessibility)
            let passwordLayer =
                opened.row.hasAccessControl
                && AccessControl(stored: opened.row.accessControlText)?.flags.contains(.applicationPassword) == true
            if passwordLayer {
                guard let inner = AEAD.openPublic(wrapped, key: oldWrap, associatedData: itemKeyData) else {
                    throw DamagedRow.Reason.sealedDataAltered.error(itemClass, uuid: opened.row.uuid)
                }
                sealed.wrappedItemKey = inner.withUnsafeBytes { AEAD.seal($0, key: newWrap, associatedData: itemKeyData) }
            } else {
                guard AEAD.open(wrapped, into: itemKey, key: oldWrap, associatedData: itemKeyData) else {
                    throw DamagedRow.Reason.sealedDataAltered.error(itemClass, uuid: opened.row.uuid)
                }
                sealed.wrappedItemKey = itemKey.withUnsafeBytes { AEAD.seal($0, key: newWrap, associatedData: itemKeyData) }
            }
        }
        sealed.digests = digests.columns(of: opened.item.attributes, schema: schema)
        let encoded = opened.item.encodedMetadata(tamperCheck: opened.tamperCheck)
        let metadataKey = try metadataKey(accessibility)
        sealed.metadata = encoded.withUnsafeBytes { AEAD.seal($0, key: metadataKey, associatedData: binding.associatedData("metadata")) }
        return sealed
    }
}
