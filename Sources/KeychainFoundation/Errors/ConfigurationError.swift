/// Configuration that cannot be used: no key, a malformed key file (exit 78).
package struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    /// What is wrong and how to fix it.
    package let message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}
