extension String {
    /// The string with each scalar that `replacement` maps written as what it returns, and every
    /// other scalar kept: the one loop behind the terminal, roff, XML and Markdown escapes.
    /// Inlinable, so each caller's replacement is specialised into it.
    @inlinable public func escaping(_ replacement: (Unicode.Scalar) -> String?) -> String {
        var out = ""
        out.reserveCapacity(utf8.count)
        for scalar in unicodeScalars {
            if let written = replacement(scalar) {
                out += written
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// `value` in uppercase hexadecimal, padded with zeros to `digits` at least.
    @inlinable public static func hex(_ value: UInt32, digits: Int) -> String {
        let hex = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: Swift.max(0, digits - hex.count)) + hex
    }
}
