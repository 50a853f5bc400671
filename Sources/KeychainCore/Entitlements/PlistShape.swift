/// A linear pass over a property list's bytes before any parser sees them, refusing the shapes
/// that make parsers recurse without end or do exponential work: nesting deeper than
/// `maximumDepth`, a binary plist whose containers form a cycle or share a child (a container
/// reached twice is how a 100-byte file expands to gigabytes), and XML that declares entities.
/// Real entitlements and provisioning profiles nest three or four levels deep.
enum PlistShape {
    /// The deepest nesting of arrays and dictionaries accepted.
    static let maximumDepth = 32

    /// `nil` when `bytes` may be parsed; otherwise what is wrong with them.
    static func problem(_ bytes: ArraySlice<UInt8>) -> String? {
        bytes.starts(with: Array("bplist".utf8)) ? binaryProblem(Array(bytes)) : xmlProblem(bytes)
    }

    /// XML: the depth of `<array>` and `<dict>` elements, counted in one pass over the bytes; no
    /// entity declarations.
    private static func xmlProblem(_ bytes: ArraySlice<UInt8>) -> String? {
        bytes.withContiguousStorageIfAvailable(xmlProblem) ?? Array(bytes).withUnsafeBufferPointer(xmlProblem)
    }

    private static func xmlProblem(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        func matches(_ word: StaticString, at index: Int) -> Bool {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count else { return false }
            for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return false }
            return true
        }
        /// Whether a tag name ends at `index` (a space, `>` or `/` follows it).
        func nameEnds(at index: Int) -> Bool {
            index < bytes.count && [0x20, 0x3E, 0x2F, 0x09, 0x0A, 0x0D].contains(bytes[index])
        }
        var depth = 0
        var index = 0
        while index < bytes.count {
            guard bytes[index] == 0x3C else {  // "<"
                index += 1
                continue
            }
            let name = index + 1
            if matches("!ENTITY", at: name) { return "it declares XML entities" }
            let closing = name < bytes.count && bytes[name] == 0x2F
            let start = closing ? name + 1 : name
            var length = 0
            if matches("array", at: start) { length = 5 } else if matches("dict", at: start) { length = 4 }
            if length > 0, nameEnds(at: start + length) {
                var end = start + length
                while end < bytes.count, bytes[end] != 0x3E { end += 1 }
                let selfClosing = end > start && bytes[end - 1] == 0x2F
                if closing {
                    depth -= 1
                } else if !selfClosing {
                    depth += 1
                    if depth > maximumDepth { return "it nests arrays and dictionaries deeper than \(maximumDepth) levels" }
                }
                index = end
            }
            index += 1
        }
        return nil
    }

    /// Binary: the trailer and offset table in bounds, and the containers reachable from the top
    /// object forming a tree no deeper than `maximumDepth` (each container has one parent, the
    /// top object none).
    private static func binaryProblem(_ bytes: [UInt8]) -> String? {
        let malformed = "it is a malformed binary property list"
        guard bytes.count >= 8 + 32 + 1 else { return malformed }
        func integer(_ start: Int, _ size: Int) -> Int? {
            guard size >= 1, size <= 8, start >= 0, start + size <= bytes.count else { return nil }
            var value: UInt64 = 0
            for byte in bytes[start..<(start + size)] { value = value << 8 | UInt64(byte) }
            return value > UInt64(Int.max) ? nil : Int(value)
        }
        let trailer = bytes.count - 32
        guard let offsetSize = integer(trailer + 6, 1), let refSize = integer(trailer + 7, 1),
            let objectCount = integer(trailer + 8, 8), let top = integer(trailer + 16, 8), let tableStart = integer(trailer + 24, 8),
            (1...8).contains(offsetSize), (1...8).contains(refSize), objectCount >= 1, objectCount <= bytes.count, top < objectCount,
            tableStart >= 8, tableStart <= trailer, objectCount <= (trailer - tableStart) / offsetSize
        else { return malformed }
        func offset(of object: Int) -> Int? {
            guard let start = integer(tableStart + object * offsetSize, offsetSize), start >= 8, start < tableStart else { return nil }
            return start
        }
        let containerKinds: [UInt8] = [0xA, 0xC, 0xD]
        /// An object's marker (kind and low nibble), its count (the low nibble, or for the kinds
        /// that have a count the integer that follows a nibble of 0xF), and where its body starts;
        /// `nil` when its offset or count is out of bounds.
        func header(of object: Int) -> (kind: UInt8, low: Int, count: Int, body: Int)? {
            guard let start = offset(of: object) else { return nil }
            let kind = bytes[start] >> 4
            let low = Int(bytes[start] & 0x0F)
            var count = low
            var body = start + 1
            if low == 0x0F, [0x4, 0x5, 0x6, 0x7, 0xA, 0xC, 0xD].contains(kind) {
                guard body < tableStart, bytes[body] >> 4 == 0x1, bytes[body] & 0x0F <= 3 else { return nil }
                let size = 1 << Int(bytes[body] & 0x0F)
                guard let value = integer(body + 1, size) else { return nil }
                count = value
                body += 1 + size
            }
            return (kind, low, count, body)
        }
        /// How many object references a container of `kind` with `count` entries holds (a
        /// dictionary lists its keys, then its values).
        func referenceCount(_ kind: UInt8, _ count: Int) -> Int? {
            guard kind == 0xD else { return count }
            let (total, overflow) = count.multipliedReportingOverflow(by: 2)
            return overflow ? nil : total
        }
        /// Whether the object is an array, set or dictionary; `nil` when its offset is out of bounds.
        func isContainer(_ object: Int) -> Bool? { header(of: object).map { containerKinds.contains($0.kind) } }
        /// A container's child references (none for a scalar); `nil` when any is out of bounds.
        func children(of object: Int) -> [Int]? {
            guard let header = header(of: object) else { return nil }
            guard containerKinds.contains(header.kind) else { return [] }
            guard let total = referenceCount(header.kind, header.count), header.body <= tableStart,
                total <= (tableStart - header.body) / refSize
            else { return nil }
            var result: [Int] = []
            result.reserveCapacity(total)
            for index in 0..<total {
                guard let child = integer(header.body + index * refSize, refSize), child < objectCount else { return nil }
                result.append(child)
            }
            return result
        }
        /// Where the object's bytes end, or `nil` when its marker is unknown or it runs past the
        /// object area (Foundation's reader traps on such an object instead of failing).
        func objectEnd(_ object: Int) -> Int? {
            guard let (kind, low, count, body) = header(of: object) else { return nil }
            func scaled(_ value: Int?, by factor: Int) -> Int? {
                guard let value else { return nil }
                let (product, overflow) = value.multipliedReportingOverflow(by: factor)
                return overflow ? nil : product
            }
            let size: Int?
            switch kind {
            case 0x0: size = [0x0, 0x8, 0x9, 0xF].contains(low) ? 0 : nil
            case 0x1: size = low <= 4 ? 1 << low : nil
            case 0x2: size = low == 2 || low == 3 ? 1 << low : nil
            case 0x3: size = low == 3 ? 8 : nil
            case 0x4, 0x5, 0x7: size = count
            case 0x6: size = scaled(count, by: 2)
            case 0x8: size = low + 1
            case 0xA, 0xC, 0xD: size = scaled(referenceCount(kind, count), by: refSize)
            default: size = nil
            }
            guard let size, body <= tableStart, size <= tableStart - body else { return nil }
            return body + size
        }
        for object in 0..<objectCount where objectEnd(object) == nil { return malformed }
        var reached = [Bool](repeating: false, count: objectCount)
        reached[top] = true
        var pending = [(object: top, depth: 1)]
        while let (object, depth) = pending.popLast() {
            guard let refs = children(of: object) else { return malformed }
            for child in refs {
                guard let container = isContainer(child) else { return malformed }
                guard container else { continue }
                if reached[child] { return "its containers form a cycle or share a child" }
                reached[child] = true
                if depth + 1 > maximumDepth { return "it nests arrays and dictionaries deeper than \(maximumDepth) levels" }
                pending.append((child, depth + 1))
            }
        }
        return nil
    }
}
