import CCrypto

/// Apple's normalised X.501 name (`createNormalizedX501Name`, `SecCertificate.c:1466-1673`): the
/// content of the Name SEQUENCE (no outer tag and length) with every PrintableString value
/// upper-cased (ASCII a–z only) and its runs of blanks collapsed to one space, leading and
/// trailing blanks removed; every other value, and the order of names and attributes, untouched.
/// This is what `issr` and `subj` hold, so that a query's issuer matches whatever case and spacing
/// a CA wrote.
///
/// The DER is walked and re-encoded with OpenSSL's own header reader and writer
/// (`ASN1_get_object`, `ASN1_put_object`), never with lengths computed here.
package enum DistinguishedName {
    /// The normalised content of `name` (a whole Name: SEQUENCE OF SET OF AttributeTypeAndValue);
    /// `nil` when it is not one (an empty RDN, an attribute without a type, trailing bytes).
    package static func normalizedContent(of name: [UInt8]) -> [UInt8]? {
        name.withUnsafeBufferPointer { bytes -> [UInt8]? in
            guard let outer = DERHeader.read(bytes, at: 0, limit: bytes.count), outer.tag == V_ASN1_SEQUENCE,
                outer.tagClass == V_ASN1_UNIVERSAL, outer.constructed, outer.content.upperBound == bytes.count
            else { return nil }
            return normalize(content: bytes, outer.content)
        }
    }

    /// A Name's content (what `issr` and `subj` hold) as a whole Name again, its SEQUENCE header
    /// put back (`SecCertificateCopyNormalizedIssuerSequence`).
    package static func sequence(ofContent content: [UInt8]) -> [UInt8] {
        DERHeader.bytes(constructed: true, length: content.count, tag: V_ASN1_SEQUENCE) + content
    }

    /// The normalised form of `content`, a Name without its SEQUENCE header (what `issr` and
    /// `subj` hold, normalised or not); `nil` when it is not one. The empty Name (no RDN, as in
    /// a certificate whose subject is empty) is its own normal form, as `normalizedContent(of:)`
    /// gives it (found by fuzz-values: normalising must be idempotent).
    package static func normalizedContent(ofContent content: [UInt8]) -> [UInt8]? {
        content.withUnsafeBufferPointer { normalize(content: $0, 0..<$0.count) }
    }

    /// The normalised content of a Name whose content is `bytes[range]`.
    package static func normalize(content bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> [UInt8]? {
        var result: [UInt8] = []
        var offset = range.lowerBound
        while offset < range.upperBound {
            guard let rdn = DERHeader.read(bytes, at: offset, limit: range.upperBound), rdn.tag == V_ASN1_SET,
                rdn.tagClass == V_ASN1_UNIVERSAL, rdn.constructed, !rdn.content.isEmpty
            else { return nil }
            var attributes: [UInt8] = []
            var inner = rdn.content.lowerBound
            while inner < rdn.content.upperBound {
                guard let pair = DERHeader.read(bytes, at: inner, limit: rdn.content.upperBound),
                    pair.tag == V_ASN1_SEQUENCE, pair.constructed, let normalized = attribute(bytes, pair.content)
                else { return nil }
                attributes += DERHeader.bytes(constructed: true, length: normalized.count, tag: V_ASN1_SEQUENCE)
                attributes += normalized
                inner = pair.content.upperBound
            }
            result += DERHeader.bytes(constructed: true, length: attributes.count, tag: V_ASN1_SET)
            result += attributes
            offset = rdn.content.upperBound
        }
        return result
    }

    /// One AttributeTypeAndValue's content, normalised: its type (a non-empty OBJECT IDENTIFIER)
    /// kept, its value rewritten when it is a PrintableString.
    private static func attribute(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> [UInt8]? {
        guard let type = DERHeader.read(bytes, at: range.lowerBound, limit: range.upperBound),
            type.tag == V_ASN1_OBJECT, !type.content.isEmpty,
            let value = DERHeader.read(bytes, at: type.content.upperBound, limit: range.upperBound),
            value.content.upperBound == range.upperBound
        else { return nil }
        let typeBytes = Array(bytes[range.lowerBound..<type.content.upperBound])
        guard value.tag == V_ASN1_PRINTABLESTRING, value.tagClass == V_ASN1_UNIVERSAL, !value.constructed else {
            return typeBytes + Array(bytes[type.content.upperBound..<range.upperBound])
        }
        let text = collapse(bytes[value.content])
        return typeBytes + DERHeader.bytes(constructed: false, length: text.count, tag: V_ASN1_PRINTABLESTRING) + text
    }

    /// Upper case for ASCII a–z, one space for each run of blanks (space or tab, C's `isblank`),
    /// none at either end.
    package static func collapse(_ characters: some Sequence<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        var pendingBlank = false
        for character in characters {
            if character == 0x20 || character == 0x09 {
                pendingBlank = !out.isEmpty
                continue
            }
            if pendingBlank { out.append(0x20) }
            pendingBlank = false
            out.append((0x61...0x7A).contains(character) ? character - 0x20 : character)
        }
        return out
    }
}
