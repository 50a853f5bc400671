import KeychainFormats
import KeychainFoundation

/// Compares rows with a query's own attributes without opening them: by the plaintext protection
/// column and the keyed digests, so rows of a locked class are compared too. Shared by `explain`
/// (which counts the misses) and `matrix` (which keeps the rows with none).
struct AttributeComparer {
    /// The attribute codes compared, in a stable order.
    let codes: [String]
    private let wantedProtection: String?
    /// The query's digest of each digest-kept code, for the class being scanned.
    private var digests: [String: [UInt8]] = [:]

    /// A comparer for `attributes` (neither `agrp` nor `sync`: callers compare those themselves).
    init(_ attributes: [String: AttributeValue]) {
        codes = attributes.keys.sorted()
        wantedProtection = attributes[Schema.protection]?.stringValue
        values = attributes
    }

    private let values: [String: AttributeValue]

    /// Digests are keyed per class: computes the query's once for the class about to be scanned.
    mutating func prepare(for itemClass: ItemClass, keys: KeyRing) {
        let schema = Schema.of(stored: itemClass)
        digests = [:]
        for (code, value) in values where code != Schema.protection {
            guard let attribute = schema.attribute(code) else { continue }
            digests[code] = keys.digests.digest(itemClass, code: code, value: value, kind: attribute.kind)
        }
    }

    /// The codes `row` differs in, in `codes` order.
    func misses(_ row: SealedItem) -> [String] {
        var missed: [String] = []
        for code in codes {
            if code == Schema.protection {
                if let wantedProtection, !wantedProtection.sameBytes(as: row.accessibility) { missed.append(code) }
            } else if let digest = digests[code], row.digests[code] != digest {
                missed.append(code)
            }
        }
        return missed
    }
}
