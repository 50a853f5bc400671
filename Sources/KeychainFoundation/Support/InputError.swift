/// An input over its cap (`InputLimits`).
package struct InputTooLarge: Error, CustomStringConvertible {
    package let source: String
    package let limit: Int
    package init(source: String, limit: Int) {
        self.source = source
        self.limit = limit
    }
    package var description: String { "\(source) is longer than \(InputLimits.describe(limit)), the most keychainctl reads from it." }
}

/// Input that cannot be read (a data file, standard input): exit 74, like other I/O.
package struct InputError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
