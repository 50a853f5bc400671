/// The metadata blob's plaintext: every attribute kept as a digest or as a keychain mark, as
/// `code(4) kind(1) length(4, little-endian) bytes`, sorted by code, plus the tamper-check value.
extension Item {
    /// The code under which the tamper-check value travels inside the metadata.
    package static let tamperCheckCode = "_tck"

    /// Encodes the digest-kept attributes and `tamperCheck`.
    package func encodedMetadata(tamperCheck: [UInt8]) -> [UInt8] {
        Self.encode(attributes, tamperCheck: tamperCheck) { [.digest, .keychainMark].contains(Schema.attribute($0)?.storage) }
    }

    /// Encodes the attributes `including` admits, and `tamperCheck`, in the metadata's field
    /// format (what `decodeMetadata` reads back).
    package static func encode(_ attributes: [String: AttributeValue], tamperCheck: [UInt8], including: (String) -> Bool) -> [UInt8] {
        var out: [UInt8] = []
        func field(_ code: String, _ kind: UInt8, _ bytes: [UInt8]) {
            out += Array(code.utf8)
            out.append(kind)
            withUnsafeBytes(of: UInt32(bytes.count).littleEndian) { out += $0 }
            out += bytes
        }
        field(Self.tamperCheckCode, 0, tamperCheck)
        for (code, value) in attributes.sorted(by: { $0.key < $1.key }) where including(code) {
            field(code, value.kind.rawValue, value.canonicalBytes)
        }
        return out
    }

    /// Decodes metadata plaintext into attributes and the tamper-check value; `nil` if malformed.
    /// `capacity`: how many attributes the caller will hold in the dictionary, so that it is
    /// allocated once.
    package static func decodeMetadata(_ bytes: UnsafeRawBufferPointer, capacity: Int = 0)
        -> (attributes: [String: AttributeValue], tamperCheck: [UInt8])?
    {
        var attributes = [String: AttributeValue](minimumCapacity: max(capacity, bytes.count / 16))
        var tamperCheck: [UInt8] = []
        var offset = 0
        while offset < bytes.count {
            guard offset + 9 <= bytes.count, let code = String(exactly: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + 4]))
            else { return nil }
            let kind = bytes[offset + 4]
            var length: UInt32 = 0
            withUnsafeMutableBytes(of: &length) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset + 5..<offset + 9])) }
            let start = offset + 9
            let end = start + Int(UInt32(littleEndian: length))
            guard end <= bytes.count else { return nil }
            let payload = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
            offset = end
            if code == tamperCheckCode {
                tamperCheck = Array(payload)
                continue
            }
            guard let valueKind = ValueKind(rawValue: kind), let value = AttributeValue(kind: valueKind, canonical: payload)
            else { return nil }
            attributes[code] = value
        }
        return (attributes, tamperCheck)
    }
}

extension AttributeValue {
    /// Rebuilds a value from its kind and canonical bytes, read in place.
    package init?(kind: ValueKind, canonical bytes: UnsafeRawBufferPointer) {
        switch kind {
        case .string:
            guard let text = String(exactly: bytes) else { return nil }
            self = .string(text)
        case .fourCharCode:
            guard let text = String(exactly: bytes) else { return nil }
            self = .fourCharCode(text)
        case .data: self = .data(Array(bytes))
        case .number, .date:
            guard let text = String(exactly: bytes), let value = Int64(text) else { return nil }
            self = kind == .number ? .number(value) : .date(value)
        case .bool: self = .bool(bytes.count == 1 && bytes[0] == 0x31)
        }
    }
}
