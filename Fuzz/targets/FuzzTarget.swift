/// The fuzz targets: each one a property every input must keep (no crash, no hang, and what the
/// target checks), run under libFuzzer by `fuzz-all TARGET` and, uninstrumented, over every seed
/// of `Fixtures/Fuzz/TARGET` by `FuzzSeedReplayTests`.
public enum FuzzTarget: String, CaseIterable, Sendable {
    case profile, archive, arguments, values, formats, objects, store

    /// Runs the target on one input; a broken property is thrown, named.
    public func run(_ data: UnsafePointer<UInt8>, _ count: Int) throws(FuzzViolation) {
        switch self {
        case .profile: try fuzzProfile(data, count)
        case .archive: try fuzzArchive(data, count)
        case .arguments: try fuzzArguments(data, count)
        case .values: try fuzzValues(data, count)
        case .formats: try fuzzFormats(data, count)
        case .objects: try fuzzObjects(data, count)
        case .store: try fuzzStore(data, count)
        }
    }

    /// Runs the target on `bytes` (an empty input included).
    public func run(_ bytes: [UInt8]) throws(FuzzViolation) {
        var copy = bytes + [0]  // a valid pointer for an empty input too
        let count = bytes.count
        try copy.withUnsafeMutableBufferPointer { (buffer) throws(FuzzViolation) in try run(buffer.baseAddress!, count) }
    }
}

/// A property a fuzz target checks, broken by an input.
public struct FuzzViolation: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// Throws `message` when `condition` does not hold.
func require(_ condition: Bool, _ message: @autoclosure () -> String = "a property of the target broke") throws(FuzzViolation) {
    if !condition { throw FuzzViolation(message()) }
}
