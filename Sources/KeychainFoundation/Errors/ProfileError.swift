/// A profile (or other configuration) that cannot be used: exit 78. Names the file and the problem.
package struct ProfileError: Error, Sendable, CustomStringConvertible {
    /// The message, naming the file and what is wrong with it.
    package let message: String

    package init(_ message: String) { self.message = message }

    package var description: String { message }
}
