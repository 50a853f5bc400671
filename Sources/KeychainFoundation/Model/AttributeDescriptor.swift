/// One attribute as the schema declares it.
package struct AttributeDescriptor: Sendable {
    /// Where a row keeps the attribute, which also decides how it is authenticated.
    package enum Storage: Sendable {
        /// A plaintext column (Apple keeps `agrp`, `pdmn`, `sync`, `tomb` so), bound into the
        /// authenticated data of every sealed half of the row: an edit makes the row fail to open.
        case column
        /// A keyed digest column plus the sealed metadata; on opening, the digest is recomputed
        /// from the metadata and must equal the column, so an edited or swapped digest is caught.
        case digest
        /// No column: sealed with the item's data and returned only with it (`ItemSecret`), as
        /// Apple keeps its `kSecDbReturnDataFlag` attributes. It cannot be matched.
        case withData
        /// No column: kept inside the sealed metadata alone. For the keychain's own marks (`clip`),
        /// which a caller never gives, matches or gets back.
        case keychainMark
    }

    /// Apple's four-character code, which is also the JSON key.
    package let code: String
    /// The long name shown beside the code in text output.
    package let name: String
    /// The value's type.
    package let kind: ValueKind
    /// Where the row keeps it.
    package let storage: Storage

    package init(_ code: String, _ name: String, _ kind: ValueKind, plaintext: Bool = false, storage: Storage? = nil) {
        self.code = code
        self.name = name
        self.kind = kind
        self.storage = storage ?? (plaintext ? .column : .digest)
    }

    /// Whether the value lives in a plaintext column rather than as a keyed digest.
    package var isPlaintextColumn: Bool { storage == .column }

    /// Whether a find returns it among the attributes (Apple's `kSecDbReturnAttrFlag`): not a
    /// data field (returned with the data) nor a keychain mark.
    package var isReturnedAsAttribute: Bool { storage != .withData && storage != .keychainMark }

    /// Whether the value is sealed with the item's data rather than with its attributes.
    package var isDataField: Bool { storage == .withData }

    /// The SQL column that holds this attribute: its name, or `h_` + code for a digest.
    package var column: String { isPlaintextColumn ? code : "h_" + code }

    /// The column's SQL type: text for strings, integers for numbers and booleans, blobs for digests.
    package var columnType: String {
        guard isPlaintextColumn else { return "BLOB" }
        return kind == .string || kind == .fourCharCode ? "TEXT" : "INTEGER"
    }
}
