/// A field of a request as the caller gave it: typed where it was given (the command line parses
/// its words at its edge, the library binds Apple's constants), or, when the word is not one the
/// field takes, that word. The operation refuses it (errSecParam) at the point Apple's server
/// checks the field, after the checks Apple makes first, so the status precedence is Apple's
/// (docs/FIDELITY.md): a bad `--limit` from a caller without the entitlement is still -34018.
package enum Given<Value: Sendable>: Sendable {
    case value(Value)
    /// The word as written, not one the field takes.
    case invalid(String)

    /// The value, `nil` for an invalid word.
    package var value: Value? {
        if case .value(let value) = self { return value }
        return nil
    }
}

extension Given where Value == MatchLimit {
    /// `--limit`'s word: `one`, `all` or a positive count.
    package init(parsing word: String) { self = MatchLimit(parsing: word).map { .value($0) } ?? .invalid(word) }
}

extension Given where Value == ReturnOptions {
    /// `--return`'s words; an unknown one makes the whole list invalid, named as given.
    package init(parsing words: [String]) {
        self = ReturnOptions(parsing: words).map { .value($0) } ?? .invalid(words.joined(separator: ","))
    }
}
