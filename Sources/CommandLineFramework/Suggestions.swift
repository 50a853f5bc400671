/// The words completion offers for an option that takes any text but has usual values
/// (`--class genp`): a name the program gives words to through `provider`, installed only when a
/// completion script is made, so that declaring an option costs nothing at start-up.
package struct Suggestions: Sendable, Equatable {
    package let name: String

    package init(_ name: String) { self.name = name }

    /// No words: completion offers any text.
    package static let none = Suggestions("")

    /// The program's words for each name (none until the program installs its own).
    package nonisolated(unsafe) static var provider: @Sendable (Suggestions) -> [String] = { _ in [] }

    /// The words, computed only when completing.
    package var words: [String] { self == .none ? [] : Self.provider(self) }
}
