/// One attribute's value as a caller gave it: a word (the command line's), which only the class,
/// known later, can parse; or a value the `Security` library bound from Apple's types, as
/// `SecDbItem.c` copies it, never parsed (the access group and the protection included: the checks
/// made before the parse read a string value as they read a word).
package enum AttributeInput: Sendable, Equatable {
    case word(String)
    case value(AttributeValue)

    /// The text a check made before the parse reads (the explicit access group, a `sync` word):
    /// a word, or a string value; `nil` for any other value.
    package var text: String? {
        switch self {
        case .word(let word): word
        case .value(.string(let text)): text
        case .value: nil
        }
    }

    /// How a report shows the input: a word as written, a value as `find` prints one.
    package var displayText: String {
        switch self {
        case .word(let word): word
        case .value(let value): value.displayText
        }
    }
}

/// Attributes as a request holds them: by code, in the order given.
package typealias AttributeInputs = [(code: String, input: AttributeInput)]

extension Array where Element == (code: String, input: AttributeInput) {
    /// Words by code, in order: what the command line gives.
    package init(words: [(code: String, value: String)]) { self = words.map { (code: $0.code, input: .word($0.value)) } }

    /// The last input given for `code`.
    package func last(_ code: String) -> AttributeInput? { last { $0.code == code }?.input }
}
