import KeychainCore

/// An input over its cap (`InputLimits`).
struct InputTooLarge: Error, CustomStringConvertible {
    let source: String
    let limit: Int
    var description: String { "\(source) is longer than \(InputLimits.describe(limit)), the most keychainctl reads from it." }
}

/// Input that cannot be read (a data file, standard input): exit 74, like other I/O.
struct InputError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
