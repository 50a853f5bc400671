/// Which synchronizable state a query selects (`kSecAttrSynchronizable`).
package enum SyncFilter: Sendable, Equatable {
    /// `sync = 0`: the default of every query that does not mention `sync`.
    case no
    /// `sync = 1`.
    case yes
    /// Either (`kSecAttrSynchronizableAny`).
    case any

    /// Parses `yes`, `no` or `any` (and `1`, `0`, `true`, `false`).
    package init?(parsing text: String) {
        switch text.lowercased() {
        case "yes", "1", "true": self = .yes
        case "no", "0", "false": self = .no
        case "any": self = .any
        default: return nil
        }
    }

    /// The word the command line writes for it.
    package var word: String {
        switch self {
        case .no: "no"
        case .yes: "yes"
        case .any: "any"
        }
    }
}
