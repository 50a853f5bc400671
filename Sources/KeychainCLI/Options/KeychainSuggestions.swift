import CommandLineFramework
import KeychainCore

/// The words completion offers for keychainctl's options that take any text but have usual
/// values: a name per kind of value, given its words by `keychainWords` when a completion script is
/// made (`completion` installs it as the provider).
extension Suggestions {
    static let itemClasses = Suggestions("item classes")
    static let accessibilities = Suggestions("accessibilities")
    static let protocols = Suggestions("protocols")
    static let authTypes = Suggestions("authentication types")
    static let returnWords = Suggestions("return words")
    static let limits = Suggestions("limits")
    static let accessControlFlags = Suggestions("access control flags")
    static let accessControlOrNone = Suggestions("access control or none")

    /// The words of each of keychainctl's kinds of value.
    @Sendable static func keychainWords(_ suggestions: Suggestions) -> [String] {
        switch suggestions {
        case .itemClasses: ItemClass.spellings
        case .accessibilities: Accessibility.spellings
        case .protocols: FourCharCode.names(for: "ptcl")
        case .authTypes: FourCharCode.names(for: "atyp")
        case .returnWords: ["attributes", "data", "persistent-ref", "ref"]
        case .limits: ["one", "all"]
        case .accessControlFlags: AccessControl.Flags.words.map(\.word)
        case .accessControlOrNone: ["none"] + AccessControl.Flags.words.map(\.word)
        default: []
        }
    }
}
