import CSodium

/// Standard base64 (RFC 4648, with padding) of public bytes, by libsodium: persistent references,
/// `base64:` attribute values and JSON data. Secrets use `SecretBytes.base64()` instead.
package enum Base64 {
    /// Encodes bytes.
    package static func encode(_ bytes: [UInt8]) -> String {
        precondition(Sodium.ready)
        let variant = sodium_base64_VARIANT_ORIGINAL
        let length = sodium_base64_encoded_len(bytes.count, variant)  // includes the NUL
        var out = [CChar](repeating: 0, count: length)
        _ = sodium_bin2base64(&out, length, bytes, bytes.count, variant)
        return String(decoding: out.prefix(length - 1).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Decodes text, ignoring white space around and inside it; `nil` when it is not base64
    /// (padding included) through to its end.
    package static func decode(_ text: String) -> [UInt8]? {
        precondition(Sodium.ready)
        let input = Array(text.utf8)
        var out = [UInt8](repeating: 0, count: max(input.count, 1))
        var length = 0
        let status = input.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) {
                sodium_base642bin(&out, out.count, $0.baseAddress, $0.count, " \t\r\n", &length, nil, sodium_base64_VARIANT_ORIGINAL)
            }
        }
        guard status == 0 else { return nil }
        return Array(out.prefix(length))
    }
}

/// Lowercase hexadecimal, two digits a byte (fingerprints, keyring names, cloud record names).
package enum Hex {
    package static func lowercase(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
    }

    /// The bytes of lowercase or uppercase hex `text`; `nil` for an odd length or a non-hex digit.
    package static func decode(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case 0x30...0x39: digit - 0x30
            case 0x41...0x46: digit - 0x37
            case 0x61...0x66: digit - 0x57
            default: nil
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count / 2)
        for index in stride(from: 0, to: utf8.count, by: 2) {
            guard let high = value(utf8[index]), let low = value(utf8[index + 1]) else { return nil }
            out.append(high << 4 | low)
        }
        return out
    }
}
