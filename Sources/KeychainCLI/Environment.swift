import Glibc

/// The process environment, read once.
enum Environment {
    /// The value of `name`, or `nil` when unset or empty.
    static func value(_ name: String) -> String? {
        guard let pointer = getenv(name) else { return nil }
        let value = String(cString: pointer)
        return value.isEmpty ? nil : value
    }
}
