/// `kSecMatchLimit`: how many items a query returns or affects.
package enum MatchLimit: Sendable, Equatable {
    /// Exactly one object comes back, not an array (also for a numeric limit of 1).
    case one
    /// Every match, as an array.
    case all
    /// Up to this many, as an array.
    case count(Int)

    /// Parses `one`, `all` or a positive count.
    package init?(parsing text: String) {
        switch text {
        case "one": self = .one
        case "all": self = .all
        default:
            guard let count = Int(text), count > 0 else { return nil }
            self = count == 1 ? .one : .count(count)
        }
    }

    /// The SQL LIMIT, if any.
    package var rowLimit: Int? {
        switch self {
        case .one: 1
        case .all: nil
        case .count(let count): count
        }
    }
}
