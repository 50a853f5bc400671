/// What a row's sealed secret holds: the item's data (kSecValueData), absent for an item added
/// without any, and the data fields Apple keeps beside it (the internet-password notes, history and
/// client fields `binn`, `bini`, `bin0`–`bin3`: `kSecDbReturnDataFlag` attributes in
/// `SecItemSchema.c`, sealed with the data and returned only with it).
///
/// An item with data and no field is sealed as the data's bytes alone, as every row was before
/// fields existed; any other is sealed as an envelope under its own authenticated purpose, so a
/// row cannot be made to read one way as the other.
package struct ItemSecret: Sendable {
    /// The data; `nil` for an item that has none (Apple returns no `v_Data` for it).
    package var data: SecretBytes?
    /// The data fields, by code.
    package var fields: [String: SecretBytes]

    package init(data: SecretBytes?, fields: [String: SecretBytes] = [:]) {
        self.data = data
        self.fields = fields
    }

    /// Whether the sealed form is the data's bytes alone.
    package var isBare: Bool { data != nil && fields.isEmpty }

    /// The envelope's code for the data itself (Apple's column name for it).
    private static let dataCode = "data"

    /// The bytes that are sealed: the data alone when bare, else `code(4) length(4, little-endian)
    /// bytes` per part, the data first and the fields in code order. Built in guarded memory.
    package func sealedForm() -> SecretBytes {
        if isBare, let data { return data }
        let out = SecretBytes(count: 0)
        func part(_ code: String, _ value: SecretBytes) {
            Array(code.utf8).withUnsafeBytes { out.append($0) }
            withUnsafeBytes(of: UInt32(value.count).littleEndian) { out.append($0) }
            value.withUnsafeBytes { out.append($0) }
        }
        if let data { part(Self.dataCode, data) }
        for code in fields.keys.sorted() { part(code, fields[code]!) }
        return out
    }

    /// The secret an envelope holds; `nil` when `sealed` is not one this build writes (a code
    /// that is not four bytes or not a data field, a part out of order or given twice, a length
    /// past the end). Only reached for bytes that opened under the envelope's purpose.
    package static func opening(envelope sealed: SecretBytes, itemClass: ItemClass) -> ItemSecret? {
        let known = Set(Schema.of(itemClass)?.dataFields.map(\.code) ?? [])
        return sealed.withUnsafeBytes { bytes -> ItemSecret? in
            var secret = ItemSecret(data: nil)
            var offset = 0
            var previous = ""
            while offset < bytes.count {
                guard bytes.count - offset >= 8, let code = String(validating: bytes[offset..<offset + 4], as: UTF8.self) else {
                    return nil
                }
                var length: UInt32 = 0
                withUnsafeMutableBytes(of: &length) {
                    $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset + 4..<offset + 8]))
                }
                let start = offset + 8
                guard Int(UInt32(littleEndian: length)) <= bytes.count - start else { return nil }
                let end = start + Int(UInt32(littleEndian: length))
                let value = SecretBytes(copying: UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
                if code == dataCode, offset == 0 {
                    secret.data = value
                } else {
                    guard known.contains(code), code > previous else { return nil }
                    secret.fields[code] = value
                    previous = code
                }
                offset = end
            }
            return secret
        }
    }

    /// This secret with `changes` applied: a new data replaces the data, each given field replaces
    /// that field, the rest stays.
    package func merging(data newData: SecretBytes?, fields newFields: [String: SecretBytes]) -> ItemSecret {
        var merged = self
        if let newData { merged.data = newData }
        for (code, value) in newFields { merged.fields[code] = value }
        return merged
    }

    /// Whether both hold the same bytes.
    package func equals(_ other: ItemSecret) -> Bool {
        guard fields.keys.sorted() == other.fields.keys.sorted() else { return false }
        switch (data, other.data) {
        case (nil, nil): break
        case (let mine?, let theirs?): guard mine.equals(theirs) else { return false }
        default: return false
        }
        return fields.allSatisfy { other.fields[$0.key]!.equals($0.value) }
    }
}
