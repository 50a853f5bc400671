import KeychainFoundation

/// Reads a binary property list (`bplist00`, the format of CoreFoundation's
/// `__CFBinaryPList.c`): a header, the objects, a table of their offsets and a 32-byte trailer.
///
/// Every object is checked (its extent against the object area, its text, its references) before
/// anything is read, and the
/// containers reachable from the top object must form a tree no deeper than
/// `PlistValue.maximumDepth`: a container reached twice is a cycle, or the way a 100-byte file
/// expands to gigabytes, and is refused. Strings may be shared (writers deduplicate them).
package struct BinaryPlistReader {
    package static let magic = Array("bplist".utf8)

    private let bytes: [UInt8]
    private let offsetSize: Int
    private let referenceSize: Int
    private let objectCount: Int
    private let top: Int
    private let tableStart: Int

    private static let malformed = PlistProblem.hostile("it is a malformed binary property list")

    /// Reads and checks the trailer.
    package init(_ bytes: [UInt8]) throws(PlistProblem) {
        self.bytes = bytes
        guard bytes.count >= 8 + 32 + 1 else { throw Self.malformed }
        let trailer = bytes.count - 32
        func field(_ start: Int, _ size: Int) -> Int? { Self.integer(in: bytes, at: start, size: size) }
        guard let offsetSize = field(trailer + 6, 1), let referenceSize = field(trailer + 7, 1),
            let objectCount = field(trailer + 8, 8), let top = field(trailer + 16, 8),
            let tableStart = field(trailer + 24, 8),
            (1...8).contains(offsetSize), (1...8).contains(referenceSize), objectCount >= 1,
            objectCount <= bytes.count, top < objectCount, tableStart >= 8, tableStart <= trailer,
            objectCount <= (trailer - tableStart) / offsetSize
        else { throw Self.malformed }
        (self.offsetSize, self.referenceSize, self.objectCount, self.top, self.tableStart) =
            (offsetSize, referenceSize, objectCount, top, tableStart)
    }

    /// The top object, after every object has been checked, whether the top object reaches it or
    /// not (as CoreFoundation's reader refuses a file with any invalid object): its extent, its
    /// text, its references and a dictionary's keys.
    package func read() throws(PlistProblem) -> PlistValue {
        for object in 0..<objectCount {
            guard end(of: object) != nil, let (kind, _, count, body) = header(of: object) else { throw Self.malformed }
            switch kind {
            case 0x5, 0x6: _ = try string(kind: kind, count: count, body: body)
            case 0xA, 0xC, 0xD:
                let children = try references(kind: kind, count: count, body: body)
                if kind == 0xD {
                    for key in children.prefix(count) {
                        guard let (keyKind, _, _, _) = header(of: key), [0x5, 0x6].contains(keyKind) else {
                            throw .malformed("a dictionary key is not a string")
                        }
                    }
                }
            default: break
            }
        }
        var reached = [Bool](repeating: false, count: objectCount)
        reached[top] = true
        return try value(top, depth: 1, reached: &reached)
    }

    /// A big-endian unsigned integer of `size` bytes at `start`; `nil` when out of bounds or
    /// larger than `Int.max`.
    private static func integer(in bytes: [UInt8], at start: Int, size: Int) -> Int? {
        guard size >= 1, size <= 8, start >= 0, start <= bytes.count - size else { return nil }
        let value = ByteOrder.bigEndian(bytes[start..<(start + size)])
        return value > UInt64(Int.max) ? nil : Int(value)
    }

    /// An object's marker (kind and low nibble), its count (the low nibble, or for the kinds that
    /// have a count the integer that follows a nibble of 0xF), and where its body starts; `nil` when
    /// its offset or count is out of bounds.
    private func header(of object: Int) -> (kind: UInt8, low: Int, count: Int, body: Int)? {
        guard let start = Self.integer(in: bytes, at: tableStart + object * offsetSize, size: offsetSize),
            start >= 8, start < tableStart
        else { return nil }
        let kind = bytes[start] >> 4
        let low = Int(bytes[start] & 0x0F)
        var count = low
        var body = start + 1
        if low == 0x0F, [0x4, 0x5, 0x6, 0xA, 0xC, 0xD].contains(kind) {
            guard body < tableStart, bytes[body] >> 4 == 0x1, bytes[body] & 0x0F <= 3 else { return nil }
            let size = 1 << Int(bytes[body] & 0x0F)
            guard let value = Self.integer(in: bytes, at: body + 1, size: size) else { return nil }
            count = value
            body += 1 + size
        }
        return (kind, low, count, body)
    }

    /// How many object references a container of `kind` with `count` entries holds (a dictionary
    /// lists its keys, then its values).
    private static func referenceCount(_ kind: UInt8, _ count: Int) -> Int? {
        guard kind == 0xD else { return count }
        let (total, overflow) = count.multipliedReportingOverflow(by: 2)
        return overflow ? nil : total
    }

    /// Where the object's bytes end, or `nil` when its marker is unknown or it runs past the object
    /// area.
    private func end(of object: Int) -> Int? {
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
        case 0x4, 0x5: size = count
        case 0x6: size = scaled(count, by: 2)
        case 0x8: size = low + 1
        case 0xA, 0xC, 0xD: size = scaled(Self.referenceCount(kind, count), by: referenceSize)
        default: size = nil
        }
        guard let size, body <= tableStart, size <= tableStart - body else { return nil }
        return body + size
    }

    /// The object `object`, its containers marked in `reached`.
    private func value(_ object: Int, depth: Int, reached: inout [Bool]) throws(PlistProblem) -> PlistValue {
        guard let (kind, low, count, body) = header(of: object) else { throw Self.malformed }
        switch kind {
        case 0x0 where low == 0x8 || low == 0x9: return .bool(low == 0x9)
        case 0x5, 0x6: return .string(try string(kind: kind, count: count, body: body))
        case 0x3: return date(at: body)
        case 0xA, 0xC, 0xD: break
        default: return .other
        }
        let children = try references(kind: kind, count: count, body: body)
        for child in children {
            guard let (childKind, _, _, _) = header(of: child) else { throw Self.malformed }
            guard [0xA, 0xC, 0xD].contains(childKind) else { continue }
            if reached[child] { throw .hostile("its containers form a cycle or share a child") }
            reached[child] = true
            if depth + 1 > PlistValue.maximumDepth { throw .tooDeep }
        }
        switch kind {
        case 0xA:
            var elements: [PlistValue] = []
            elements.reserveCapacity(count)
            for child in children { elements.append(try value(child, depth: depth + 1, reached: &reached)) }
            return .array(elements)
        case 0xD:
            var members: [String: PlistValue] = [:]
            for index in 0..<count {
                guard let (keyKind, _, keyCount, keyBody) = header(of: children[index]), [0x5, 0x6].contains(keyKind) else {
                    throw .malformed("a dictionary key is not a string")
                }
                let key = try string(kind: keyKind, count: keyCount, body: keyBody)
                guard members[key] == nil else { throw .malformed("the key \(key) appears twice in one dictionary") }
                members[key] = try value(children[count + index], depth: depth + 1, reached: &reached)
            }
            return .dictionary(members)
        default:  // a set: its members are checked, never read
            for child in children { _ = try value(child, depth: depth + 1, reached: &reached) }
            return .other
        }
    }

    /// A date object's big-endian seconds since 2001-01-01 as milliseconds since 1970; `.other`
    /// when it is not finite or lies beyond year 9999 (its size was checked with its header).
    private func date(at body: Int) -> PlistValue {
        let bits = ByteOrder.bigEndian(bytes[body..<body + 8])
        let seconds = Double(bitPattern: bits) + 978_307_200
        guard seconds.isFinite, abs(seconds) < 253_402_300_800 else { return .other }
        return .date(Int64(seconds * 1000))
    }

    /// A container's child references, each a valid object number.
    private func references(kind: UInt8, count: Int, body: Int) throws(PlistProblem) -> [Int] {
        guard let total = Self.referenceCount(kind, count) else { throw Self.malformed }
        var result: [Int] = []
        result.reserveCapacity(total)
        for index in 0..<total {
            guard let child = Self.integer(in: bytes, at: body + index * referenceSize, size: referenceSize),
                child < objectCount
            else { throw Self.malformed }
            result.append(child)
        }
        return result
    }

    /// An ASCII (0x5) or UTF-16 big-endian (0x6) string; invalid text is refused rather than
    /// replaced, so two different byte strings never read as one group. (0x7, UTF-8, belongs to a
    /// later format, not to bplist00: CoreFoundation's reader refuses it, and so does this one.)
    private func string(kind: UInt8, count: Int, body: Int) throws(PlistProblem) -> String {
        let text: String?
        switch kind {
        case 0x5:
            let slice = bytes[body..<(body + count)]
            text = slice.allSatisfy { $0 < 0x80 } ? String(decoding: slice, as: UTF8.self) : nil
        default:
            let units = (0..<count).map { UInt16(ByteOrder.bigEndian(bytes[(body + 2 * $0)..<(body + 2 * $0 + 2)])) }
            text = String(validating: units, as: UTF16.self)
        }
        guard let text else { throw .malformed("a string is not valid ASCII or UTF-16 text") }
        return text
    }
}
