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
    }

    /// Apple's four-character code, which is also the JSON key.
    package let code: String
    /// The long name shown beside the code in text output.
    package let name: String
    /// The value's type.
    package let kind: ValueKind
    /// Where the row keeps it.
    package let storage: Storage

    init(_ code: String, _ name: String, _ kind: ValueKind, plaintext: Bool = false) {
        self.code = code
        self.name = name
        self.kind = kind
        self.storage = plaintext ? .column : .digest
    }

    /// Whether the value lives in a plaintext column rather than as a keyed digest.
    package var isPlaintextColumn: Bool { storage == .column }

    /// The SQL column that holds this attribute: its name, or `h_` + code for a digest.
    package var column: String { isPlaintextColumn ? code : "h_\(code)" }

    /// The column's SQL type: text for strings, integers for numbers and booleans, blobs for digests.
    package var columnType: String {
        guard isPlaintextColumn else { return "BLOB" }
        return kind == .string || kind == .fourCharCode ? "TEXT" : "INTEGER"
    }
}
