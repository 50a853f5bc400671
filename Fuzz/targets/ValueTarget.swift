import KeychainCore

/// Fuzz target: the first byte picks what the rest is: a persistent reference (raw bytes,
/// then as base64 text, as an issuer Name to normalise, and as a sealed secret's envelope), a value for each attribute of the
/// schema, a whole query, or an access control (as flag words, and as a stored `accc` value, which
/// must round-trip).
func fuzzValues(_ data: UnsafePointer<UInt8>, _ count: Int) throws(FuzzViolation) {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    guard let selector = bytes.first else { return }
    let rest = Array(bytes.dropFirst())
    let text = String(decoding: rest, as: UTF8.self)
    switch selector % 4 {
    case 0:
        if let reference = PersistentRef(bytes: rest) { try require(PersistentRef(bytes: reference.bytes) == reference) }
        if let decoded = Base64.decode(text) { _ = PersistentRef(bytes: decoded) }
        // The same bytes as an issuer a query names (whole DER Name or its content): normalising
        // never crashes, and what it gives is already normal.
        for normalized in [DistinguishedName.normalizedContent(of: rest), DistinguishedName.normalizedContent(ofContent: rest)] {
            if let normalized { try require(DistinguishedName.normalizedContent(ofContent: normalized) == normalized) }
        }
        // And as a sealed secret's envelope (data and data fields): what opens seals back to the
        // same bytes.
        if let secret = ItemSecret.opening(envelope: SecretBytes(copying: rest), itemClass: .internetPassword) {
            let resealed = secret.sealedForm()
            try require(secret.isBare ? resealed.equals(secret.data!) : resealed.equals(SecretBytes(copying: rest)))
        }
    case 1:
        for attribute in Schema.classes.values.flatMap(\.attributes) {
            if let value = try? AttributeValue.parse(text, for: attribute) { _ = value.displayText + value.canonicalBytes.description }
        }
    case 3:
        if let flags = try? AccessControl.Flags(parsing: text),
            let control = try? AccessControl(protection: .whenUnlocked, flags: flags, biometrySet: Array(rest.prefix(16)))
        {
            _ = control.text
        }
        if let stored = AccessControl(stored: text) { try require(stored.text == text) }
    default:
        let words = rest.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        var request = ItemRequest(words: stride(from: 0, to: words.count - 1, by: 2).map { (words[$0], words[$0 + 1]) })
        request.itemClass = words.first
        request.limit = words.last.map { Given(parsing: $0) }
        _ = try? ItemQuery(request, defaultLimit: .one, defaultReturns: [.attributes])
    }
    return
}
