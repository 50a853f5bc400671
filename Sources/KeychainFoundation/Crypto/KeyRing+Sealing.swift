/// Sealing and opening items (docs/SECURITY.md).
extension KeyRing {
    /// What binds the sealed halves of a row to that row: the file's identity (v2), the class, the
    /// persistent reference, and every plaintext column the schema declares. Built once per row;
    /// each half's authenticated data is this followed by its purpose.
    package struct Binding {
        package let format: SealFormat
        package let prefix: [UInt8]

        package init(_ format: SealFormat, _ schema: ClassSchema, _ row: SealedItem) {
            self.format = format
            switch format {
            case .v1:
                prefix =
                    Array("kc1\0\(schema.table)\0".utf8) + row.uuid
                    + Array("\0\(row.accessGroup)\0\(row.isSynchronizable ? 1 : 0)\0\(row.accessibility)\0".utf8)
            case .v2(let id):
                // Written field by field into one buffer, as `SealFormat.lengthPrefixed` would lay
                // out the list: every opened row builds this.
                var out: [UInt8] = []
                out.reserveCapacity(256)
                SealFormat.appendField("kc2".utf8, to: &out)
                SealFormat.appendField(id, to: &out)
                SealFormat.appendField(schema.table.utf8, to: &out)
                SealFormat.appendField(row.uuid, to: &out)
                // An access control that is the protection alone is not bound: it repeats `pdmn`,
                // which is, and rows sealed before the column existed stay valid. Any other value
                // is bound, so adding, removing or changing one breaks the row.
                let bindsAccessControl = row.hasAccessControl
                for attribute in schema.plaintextAttributes where attribute.code != Schema.accessControl || bindsAccessControl {
                    SealFormat.appendField(attribute.code.utf8, to: &out)
                    Self.appendCanonical(row.plaintext[attribute.code], to: &out)
                }
                prefix = out
            }
        }

        /// Appends `value`'s canonical bytes (none when absent) as one field, without building
        /// them apart for text and data.
        private static func appendCanonical(_ value: AttributeValue?, to out: inout [UInt8]) {
            switch value {
            case .string(let text), .fourCharCode(let text): SealFormat.appendField(text.utf8, to: &out)
            case .data(let bytes): SealFormat.appendField(bytes, to: &out)
            case let value?: SealFormat.appendField(value.canonicalBytes, to: &out)
            case nil: SealFormat.appendField(EmptyCollection(), to: &out)
            }
        }

        /// The authenticated data of the half sealed for `purpose`, followed by `suffix`.
        package func associatedData(_ purpose: String, then suffix: [UInt8] = []) -> [UInt8] {
            var out = prefix
            out.reserveCapacity(prefix.count + 4 + purpose.utf8.count + suffix.count)
            switch format {
            case .v1: out.append(contentsOf: purpose.utf8)
            case .v2: SealFormat.appendField(purpose.utf8, to: &out)
            }
            out.append(contentsOf: suffix)
            return out
        }
    }

    /// Seals `item` and its `secret` for storage. With `keepingSecretOf` (an opened row read with
    /// its secret columns) and no new `secret`, the item keeps that row's secret: its sealed form is
    /// reused when the identity bound into the authenticated data is unchanged (an attribute-only
    /// change), and it is opened and sealed anew when the identity changed (a group, sync or
    /// accessibility move, or a copy).
    package func seal(_ item: Item, secret: ItemSecret?, keepingSecretOf previous: OpenedRow? = nil)
        throws(KeychainError) -> SealedItem
    {
        let schema = Schema.of(stored: item.itemClass)
        let accessibility = item.accessibility
        var plaintext: [String: AttributeValue] = [:]
        for attribute in schema.plaintextAttributes { plaintext[attribute.code] = item.attributes[attribute.code] }
        plaintext[Schema.protection] = .string(accessibility.rawValue)
        let accessControl = item.accessControl
        plaintext[Schema.accessControl] = .string(accessControl.text)
        var sealed = SealedItem(
            uuid: item.uuid, plaintext: plaintext, digests: digests.columns(of: item.attributes, schema: schema),
            metadata: [], wrappedItemKey: nil, secret: nil)
        var check = Sodium.randomBytes(16)
        var secret = secret
        if secret == nil, let previous {
            if previous.row.hasSameIdentity(as: sealed) {
                guard previous.row.secretPresent == (previous.row.secret != nil) else {
                    throw DamagedRow.Reason.missingSecret.error(item.itemClass, uuid: item.uuid)
                }
                check = previous.tamperCheck
                sealed.wrappedItemKey = previous.row.wrappedItemKey
                sealed.secret = previous.row.secret
            } else {
                secret = try openSecret(
                    previous.row, schema: schema, tamperCheck: previous.tamperCheck, binding: Binding(format, schema, previous.row))
            }
        }
        let binding = Binding(format, schema, sealed)
        if sealed.secret == nil, let secret, !item.isTombstone {
            itemKey.fillRandom()
            let wrapKey = try itemWrapKey(accessibility)
            let wrap = { (key: UnsafeRawBufferPointer) in AEAD.seal(key, key: wrapKey, associatedData: binding.associatedData("item key")) }
            sealed.wrappedItemKey =
                accessControl.flags.contains(.applicationPassword)
                ? try wrapUnderApplicationPassword(itemKey, associatedData: binding.associatedData("application password"))
                    .withUnsafeBytes(wrap)
                : itemKey.withUnsafeBytes(wrap)
            sealed.secret = secret.sealedForm().withUnsafeBytes {
                AEAD.seal($0, key: itemKey, associatedData: binding.associatedData(Self.secretPurpose(bare: secret.isBare), then: check))
            }
        }
        sealed.secretPresent = sealed.secret != nil
        let encoded = item.encodedMetadata(tamperCheck: check)
        let metadataKey = try metadataKey(accessibility)
        sealed.metadata = encoded.withUnsafeBytes {
            AEAD.seal($0, key: metadataKey, associatedData: binding.associatedData("metadata"))
        }
        return sealed
    }

    /// Opens the attributes of a row of class `itemClass`; errSecDecode names the item when any
    /// column of the row is not what was sealed.
    package func openRow(_ sealed: SealedItem, itemClass: ItemClass) throws(KeychainError) -> OpenedRow {
        let schema = Schema.of(stored: itemClass)
        return try openRow(sealed, schema: schema, binding: Binding(format, schema, sealed))
    }

    private func openRow(_ sealed: SealedItem, schema: ClassSchema, binding: Binding, known: [DigestedAttribute] = [])
        throws(KeychainError) -> OpenedRow
    {
        let opened = try openMetadata(sealed, schema: schema, binding: binding, known: known)
        return OpenedRow(row: sealed, item: opened.item, tamperCheck: opened.tamperCheck)
    }

    /// The attributes of `rows` (all of `itemClass`, none of a locked class), opened on every
    /// core; `nil` for a row that does not open (damaged). The workers only read the key ring:
    /// each class's metadata key is derived here first, and a row of a class whose key cannot be
    /// had is opened here, after them.
    package func openAll(_ rows: [SealedItem], itemClass: ItemClass) -> [Item?] {
        var ready: [String] = []
        for row in rows where !ready.contains(row.accessibility) {
            if let protection = Accessibility(rawValue: row.accessibility), (try? metadataKey(protection)) != nil {
                ready.append(row.accessibility)
            }
        }
        var items = [Item?](repeating: nil, count: rows.count)
        let workers = min(ParallelWork.processors, 8, (rows.count + 1023) / 1024)
        items.withUnsafeMutableBufferPointer { buffer in
            nonisolated(unsafe) let out = buffer
            ParallelWork.run(workers) { worker in
                for index in stride(from: worker, to: rows.count, by: max(1, workers)) where ready.contains(rows[index].accessibility) {
                    out[index] = try? self.openRow(rows[index], itemClass: itemClass).item
                }
            }
        }
        for index in rows.indices where !ready.contains(rows[index].accessibility) {
            items[index] = try? openRow(rows[index], itemClass: itemClass).item
        }
        return items
    }

    /// The authenticated purpose of a sealed secret: the data's bytes alone, or an envelope of
    /// data and fields (`ItemSecret`). Which one a row holds is known only by which one opens it.
    private static func secretPurpose(bare: Bool) -> String { bare ? "secret" : "secret envelope" }

    /// The secret of an opened row read with its secret columns; `nil` for a tombstone.
    package func openSecret(of opened: OpenedRow) throws(KeychainError) -> ItemSecret? {
        let schema = Schema.of(stored: opened.item.itemClass)
        return try openSecret(opened.row, schema: schema, tamperCheck: opened.tamperCheck, binding: Binding(format, schema, opened.row))
    }

    /// Opens a row's attributes and, with `withSecret`, its secret (`nil` for a tombstone), opening
    /// the metadata once for both and building the row's binding once for both.
    package func open(_ sealed: SealedItem, itemClass: ItemClass, withSecret: Bool, known: [DigestedAttribute] = [])
        throws(KeychainError) -> (opened: OpenedRow, secret: ItemSecret?)
    {
        let schema = Schema.of(stored: itemClass)
        let binding = Binding(format, schema, sealed)
        let opened = try openRow(sealed, schema: schema, binding: binding, known: known)
        return (opened, withSecret ? try openSecret(sealed, schema: schema, tamperCheck: opened.tamperCheck, binding: binding) : nil)
    }

    /// Opens the secret of a row whose metadata gave `tamperCheck`; `nil` for a tombstone.
    private func openSecret(_ sealed: SealedItem, schema: ClassSchema, tamperCheck: [UInt8], binding: Binding)
        throws(KeychainError) -> ItemSecret?
    {
        guard let wrapped = sealed.wrappedItemKey, let box = sealed.secret else {
            if sealed.isTombstone { return nil }
            throw DamagedRow.Reason.missingSecret.error(schema.itemClass, uuid: sealed.uuid)
        }
        guard let accessibility = Accessibility(rawValue: sealed.accessibility),
            try unwrapItemKey(wrapped, of: sealed, binding: binding, wrapKey: try itemWrapKey(accessibility))
        else { throw DamagedRow.Reason.sealedDataAltered.error(schema.itemClass, uuid: sealed.uuid) }
        if let data = AEAD.open(
            box, key: itemKey, associatedData: binding.associatedData(Self.secretPurpose(bare: true), then: tamperCheck))
        {
            return ItemSecret(data: data)
        }
        guard
            let envelope = AEAD.open(
                box, key: itemKey, associatedData: binding.associatedData(Self.secretPurpose(bare: false), then: tamperCheck)),
            let secret = ItemSecret.opening(envelope: envelope, itemClass: schema.itemClass)
        else { throw DamagedRow.Reason.sealedDataAltered.error(schema.itemClass, uuid: sealed.uuid) }
        return secret
    }

    /// Unwraps a row's item key into `itemKey`; `false` when the row was altered. An item with an
    /// application password has its key wrapped twice, under the password's key inside: that
    /// layer failing is a wrong password (errSecAuthFailed), or none given (errSecInteractionNotAllowed).
    private func unwrapItemKey(_ wrapped: [UInt8], of sealed: SealedItem, binding: Binding, wrapKey: SecretBytes)
        throws(KeychainError) -> Bool
    {
        guard sealed.hasAccessControl, AccessControl(stored: sealed.accessControlText)?.flags.contains(.applicationPassword) == true
        else { return AEAD.open(wrapped, into: itemKey, key: wrapKey, associatedData: binding.associatedData("item key")) }
        guard let inner = AEAD.openPublic(wrapped, key: wrapKey, associatedData: binding.associatedData("item key")) else { return false }
        try unwrapUnderApplicationPassword(inner, into: itemKey, associatedData: binding.associatedData("application password"))
        return true
    }

    /// Whether this call's application password opens `opened`'s item key (read with its secret
    /// columns); errSecDecode when the row itself was altered.
    package func opensWithApplicationPassword(_ opened: OpenedRow) throws(KeychainError) -> Bool {
        let schema = Schema.of(stored: opened.item.itemClass)
        guard let wrapped = opened.row.wrappedItemKey, let accessibility = Accessibility(rawValue: opened.row.accessibility) else {
            throw DamagedRow.Reason.missingSecret.error(schema.itemClass, uuid: opened.row.uuid)
        }
        let wrapKey = try itemWrapKey(accessibility)
        let opens: Bool
        do {
            opens = try unwrapItemKey(wrapped, of: opened.row, binding: Binding(format, schema, opened.row), wrapKey: wrapKey)
        } catch {
            guard error.status == .authFailed else { throw error }
            return false
        }
        guard opens else { throw DamagedRow.Reason.sealedDataAltered.error(schema.itemClass, uuid: opened.row.uuid) }
        return true
    }

    /// Opens the metadata and checks the rest of the row against it: the plaintext columns through
    /// the authenticated data, the digest columns by recomputing them, the secret's presence by the
    /// tombstone flag.
    private func openMetadata(_ sealed: SealedItem, schema: ClassSchema, binding: Binding, known: [DigestedAttribute])
        throws(KeychainError) -> (item: Item, tamperCheck: [UInt8])
    {
        let itemClass = schema.itemClass
        if sealed.malformed != nil { throw DamagedRow.Reason.malformedColumn.error(itemClass, uuid: sealed.uuid) }
        guard sealed.isTombstone == (sealed.secretPresent == false) else {
            throw (sealed.isTombstone ? DamagedRow.Reason.tombstoneWithSecret : .missingSecret).error(itemClass, uuid: sealed.uuid)
        }
        guard let accessibility = Accessibility(rawValue: sealed.accessibility),
            let plain = AEAD.openPublic(
                sealed.metadata, key: try metadataKey(accessibility),
                associatedData: binding.associatedData("metadata")),
            let decoded = plain.withUnsafeBytes({ Item.decodeMetadata($0, capacity: 8 + sealed.plaintext.count) })
        else { throw DamagedRow.Reason.sealedDataAltered.error(itemClass, uuid: sealed.uuid) }
        guard digests.match(sealed.digests, of: decoded.attributes, schema: schema, known: known) else {
            throw DamagedRow.Reason.digestMismatch.error(itemClass, uuid: sealed.uuid)
        }
        if sealed.hasAccessControl, AccessControl(stored: sealed.accessControlText)?.protection.rawValue != sealed.accessibility {
            throw DamagedRow.Reason.malformedColumn.error(itemClass, uuid: sealed.uuid)
        }
        var attributes = decoded.attributes
        attributes.reserveCapacity(attributes.count + sealed.plaintext.count)
        for (code, value) in sealed.plaintext { attributes[code] = value }
        return (Item(itemClass: itemClass, uuid: sealed.uuid, attributes: attributes), decoded.tamperCheck)
    }
}
