/// An item as it lies in its row: plaintext columns, keyed digests, and the two sealed halves
/// (docs/SECURITY.md). Every column is authenticated: the plaintext columns and the persistent reference
/// are bound into both halves' authenticated data, the digests must equal those recomputed from the
/// opened metadata, a row holds a secret exactly when it is not a tombstone, and a tamper-check
/// value shared by the halves stops an old secret being paired with newer metadata.
package struct SealedItem: Sendable {
    package var uuid: [UInt8]
    /// The plaintext columns (`agrp`, `pdmn`, `sync`, `tomb`: the schema's `.column` attributes).
    package var plaintext: [String: AttributeValue]
    /// Keyed digest of each digest-kept attribute, by code; absent attributes have none.
    package var digests: [String: [UInt8]]
    /// Sealed metadata (every attribute and the tamper check).
    package var metadata: [UInt8]
    /// The per-item key wrapped by the class key; `nil` for a tombstone.
    package var wrappedItemKey: [UInt8]?
    /// The sealed secret; `nil` for a tombstone.
    package var secret: [UInt8]?
    /// Whether the row holds a secret and its per-item key (known even when they were not read).
    package var secretPresent = false
    /// Why the row cannot be an item whatever the key says (a column of the wrong type or size),
    /// found while reading it; `nil` for a well-formed row.
    package var malformed: String? = nil

    package var accessGroup: String { PolicyAttributes.accessGroup(plaintext) }
    package var accessibility: String { plaintext[Schema.protection]?.stringValue ?? "" }
    package var isSynchronizable: Bool { PolicyAttributes.isSynchronizable(plaintext) }
    package var isTombstone: Bool { PolicyAttributes.isTombstone(plaintext) }
    /// The `accc` column (the protection alone for most items).
    package var accessControlText: String { plaintext[Schema.accessControl]?.stringValue ?? accessibility }
    /// Whether the row's access control says more than its protection: reading it asks for
    /// authentication (known from the authenticated column, before anything is opened).
    package var hasAccessControl: Bool { !accessControlText.sameBytes(as: accessibility) }

    /// Whether `other` has the identity bound into the authenticated data (so its sealed secret
    /// stays valid for this row).
    package func hasSameIdentity(as other: SealedItem) -> Bool { uuid == other.uuid && plaintext == other.plaintext }
}

/// A row whose metadata opened and checked out: the item, and the tamper check its sealed secret is
/// bound to. Re-sealing needs that check, so a row opened once to be matched is not opened again to
/// be rewritten.
package struct OpenedRow: Sendable {
    /// The row as read (with or without its sealed secret columns).
    package let row: SealedItem
    package let item: Item
    package let tamperCheck: [UInt8]

    /// The same row read again with its sealed secret columns (in the transaction that opened
    /// it). errSecDecode when `reread` is not the row that was opened.
    package func withSecretColumns(of reread: SealedItem) throws(KeychainError) -> OpenedRow {
        guard reread.uuid == row.uuid, reread.metadata == row.metadata, reread.plaintext == row.plaintext,
            reread.digests == row.digests, reread.secretPresent == row.secretPresent, reread.malformed == nil
        else { throw DamagedRow.Reason.queryMismatch.error(item.itemClass, uuid: reread.uuid) }
        return OpenedRow(row: reread, item: item, tamperCheck: tamperCheck)
    }
}
