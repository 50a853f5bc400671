/// What a query returns (`kSecReturnData`, `kSecReturnAttributes`, `kSecReturnPersistentRef`,
/// `kSecReturnRef`).
package struct ReturnOptions: OptionSet, Sendable {
    package let rawValue: Int
    package init(rawValue: Int) { self.rawValue = rawValue }

    /// A literal (`[.data, .attributes]`), made here rather than by SetAlgebra's generic
    /// initialiser, which other modules cannot specialise: through it one find's `[.attributes]`
    /// cost 115,000 instructions.
    package init(arrayLiteral elements: ReturnOptions...) {
        var raw = 0
        for element in elements { raw |= element.rawValue }
        self.init(rawValue: raw)
    }

    package static let data = ReturnOptions(rawValue: 1)
    package static let attributes = ReturnOptions(rawValue: 2)
    package static let persistentRef = ReturnOptions(rawValue: 4)
    /// The item as an object (`kSecReturnRef`): a certificate or public key as PEM. A password has
    /// none, and Apple returns nothing for it (docs/FIDELITY.md).
    package static let reference = ReturnOptions(rawValue: 8)

    /// Parses the CLI words.
    package init?(parsing words: [String]) {
        var options: ReturnOptions = []
        for word in words {
            switch word {
            case "data": options.insert(.data)
            case "attributes", "attrs": options.insert(.attributes)
            case "persistent-ref", "persistent-reference": options.insert(.persistentRef)
            case "ref", "reference": options.insert(.reference)
            default: return nil
            }
        }
        self = options
    }

    /// Whether the result is one bare value rather than a dictionary: exactly one of data,
    /// persistent reference or reference (docs/FIDELITY.md).
    package var isBareValue: Bool { self == .data || self == .persistentRef || self == .reference }

    /// Whether the item's secret must be opened: for its data, or to build its reference.
    package var needsSecret: Bool { contains(.data) || contains(.reference) }
}
