extension Array where Element == String {
    /// The strings with `separator` between them, as `joined(separator:)` makes them, written out
    /// for arrays so that it is compiled where it is called. The standard library's is a generic of
    /// `BidirectionalCollection` that this binary calls unspecialised: its first call looks up an
    /// associated type by its mangled name, 110,000 instructions of a find's 2.4 million. The
    /// commands' everyday paths use this one.
    package func joinedText(_ separator: String = "") -> String {
        var text = ""
        text.reserveCapacity(reduce(0) { $0 + $1.utf8.count + separator.utf8.count })
        for (index, part) in enumerated() {
            if index > 0 { text += separator }
            text += part
        }
        return text
    }
}
