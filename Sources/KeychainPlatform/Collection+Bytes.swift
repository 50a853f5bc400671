extension Collection where Element == UInt8 {
    /// Where `pattern` first occurs, compared byte for byte. The standard library's `firstRange(of:)`
    /// and `contains(_:)` for strings live in `_StringProcessing`, whose protocol conformances alone
    /// made every conformance lookup at start-up a fifth slower. Inlinable, so each module that
    /// calls it specialises it for its collection (the plist reader's slices).
    @inlinable package func firstRange(ofBytes pattern: some Collection<UInt8>) -> Range<Index>? {
        guard let first = pattern.first else { return startIndex..<startIndex }
        var start = startIndex
        while let candidate = self[start...].firstIndex(of: first) {
            var position = candidate
            var matched = true
            for byte in pattern {
                guard position != endIndex, self[position] == byte else {
                    matched = false
                    break
                }
                formIndex(after: &position)
            }
            if matched { return candidate..<position }
            start = index(after: candidate)
        }
        return nil
    }
}
