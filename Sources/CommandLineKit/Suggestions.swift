/// The words completion offers for an option that takes any text but has usual values
/// (`--class genp`): a number the program gives words to through `provider`, installed only when
/// a completion script is made. A number, not a closure or a string: declaring an option then
/// costs nothing at start-up.
public struct Suggestions: Sendable, Equatable {
    public let id: UInt8

    public init(_ id: UInt8) { self.id = id }

    /// No words: completion offers any text.
    public static var none: Suggestions { Suggestions(0) }

    /// The program's words for each kind (none until the program installs its own).
    nonisolated(unsafe) public static var provider: @Sendable (Suggestions) -> [String] = { _ in [] }

    /// The words, computed only when completing.
    public var words: [String] { self == .none ? [] : Self.provider(self) }
}
