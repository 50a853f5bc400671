import CommandLineKit
import KeychainCore

/// The words completion offers for keychainctl's options that take any text but have usual
/// values: a number per kind of value, given its words by `keychainWords` when a completion script is
/// made (`completion` installs it as the provider).
extension Suggestions {
    static var itemClasses: Suggestions { Suggestions(1) }
    static var accessibilities: Suggestions { Suggestions(2) }
    static var protocols: Suggestions { Suggestions(3) }
    static var authTypes: Suggestions { Suggestions(4) }
    static var returnWords: Suggestions { Suggestions(5) }
    static var limits: Suggestions { Suggestions(6) }
    static var accessControlFlags: Suggestions { Suggestions(7) }
    static var accessControlOrNone: Suggestions { Suggestions(8) }

    /// The words of each of keychainctl's kinds of value.
    @Sendable static func keychainWords(_ suggestions: Suggestions) -> [String] {
        switch suggestions {
        case .itemClasses: ItemClass.spellings
        case .accessibilities: Accessibility.spellings
        case .protocols: FourCharCode.names(for: Schema.networkProtocol)
        case .authTypes: FourCharCode.names(for: Schema.authenticationType)
        case .returnWords: ["attributes", "data", "persistent-ref", "ref"]
        case .limits: ["one", "all"]
        case .accessControlFlags: AccessControl.Flags.words.map(\.word)
        case .accessControlOrNone: ["none"] + AccessControl.Flags.words.map(\.word)
        default: []
        }
    }
}
