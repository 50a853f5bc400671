/// What a query returns (`kSecReturnData`, `kSecReturnAttributes`, `kSecReturnPersistentRef`).
package struct ReturnOptions: OptionSet, Sendable {
    package let rawValue: Int
    package init(rawValue: Int) { self.rawValue = rawValue }

    package static let data = ReturnOptions(rawValue: 1)
    package static let attributes = ReturnOptions(rawValue: 2)
    package static let persistentRef = ReturnOptions(rawValue: 4)

    /// Parses the CLI words; `ref` is accepted and, as Apple does for passwords, returns nothing.
    init?(parsing words: [String]) {
        var options: ReturnOptions = []
        for word in words {
            switch word {
            case "data": options.insert(.data)
            case "attributes", "attrs": options.insert(.attributes)
            case "persistent-ref", "persistent-reference": options.insert(.persistentRef)
            case "ref": break
            default: return nil
            }
        }
        self = options
    }

    /// Whether the result is one bare value rather than a dictionary: exactly one of data or
    /// persistent reference (SEMANTICS §3).
    package var isBareValue: Bool { self == .data || self == .persistentRef }
}
