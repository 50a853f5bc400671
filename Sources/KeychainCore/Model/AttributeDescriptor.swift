/// One attribute as the schema declares it.
package struct AttributeDescriptor: Sendable {
    /// Apple's four-character code, which is also the JSON key.
    package let code: String
    /// The long name shown beside the code in text output.
    package let name: String
    /// The value's type.
    package let kind: ValueKind
    /// Whether the value lives in a plaintext column (Apple keeps `agrp`, `pdmn`, `sync`, `tomb` so)
    /// rather than as a keyed digest plus the sealed metadata.
    package let isPlaintextColumn: Bool

    init(_ code: String, _ name: String, _ kind: ValueKind, plaintext: Bool = false) {
        self.code = code
        self.name = name
        self.kind = kind
        self.isPlaintextColumn = plaintext
    }

    /// The SQL column that holds this attribute: its name, or `h_` + code for a digest.
    package var column: String { isPlaintextColumn ? code : "h_\(code)" }
}
