import KeychainCore

/// The values completion offers for a text option that takes any text but has usual words, one
/// case per kind of value. An enum rather than a closure: a closure's type would be built by the
/// Swift runtime at every start-up, and every call is a new process.
enum Suggestions: Sendable {
    /// No words: completion offers nothing (any text).
    case none
    case itemClasses, accessibilities, protocols, authTypes, returnWords, limits, accessControlFlags, accessControlOrNone

    /// The words, computed only when completing.
    var words: [String] {
        switch self {
        case .none: []
        case .itemClasses: ItemClass.spellings
        case .accessibilities: Accessibility.spellings
        case .protocols: FourCharCode.names(for: "ptcl")
        case .authTypes: FourCharCode.names(for: "atyp")
        case .returnWords: ["attributes", "data", "persistent-ref", "ref"]
        case .limits: ["one", "all"]
        case .accessControlFlags: AccessControl.Flags.words.map(\.word)
        case .accessControlOrNone: ["none"] + AccessControl.Flags.words.map(\.word)
        }
    }
}
