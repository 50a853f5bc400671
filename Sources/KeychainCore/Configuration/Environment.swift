import Glibc
import KeychainFoundation
import Synchronization

/// The process environment, read once.
package enum Environment {
    /// The environment this task sees instead of the process's, while one is bound (the library's
    /// tests: they run in parallel in one process, where `setenv` would race with every other
    /// thread's `getenv`). `nil`: the process environment.
    @TaskLocal package static var overlay: Overlay?

    /// A whole environment of its own: a name it does not hold is unset.
    package final class Overlay: Sendable {
        private let values: Mutex<[String: String]>

        package init(_ values: [String: String] = [:]) { self.values = Mutex(values) }

        /// The value of `name` here; setting `nil` unsets it.
        package subscript(name: String) -> String? {
            get { values.withLock { $0[name] } }
            set { values.withLock { $0[name] = newValue } }
        }
    }

    /// The value of `name`, or `nil` when unset or empty.
    package static func value(_ name: String) -> String? {
        if let overlay {
            guard let value = overlay[name], !value.isEmpty else { return nil }
            return value
        }
        guard let pointer = getenv(name) else { return nil }
        let value = String(cString: pointer)
        return value.isEmpty ? nil : value
    }

    /// A secret variable's value copied into guarded memory, then wiped where the process keeps it
    /// and unset, so that neither this process's memory nor a child's environment holds it;
    /// `nil` when unset or empty.
    package static func takeSecret(_ name: String) -> SecretBytes? {
        if let overlay {
            guard let value = value(name) else { return nil }
            overlay[name] = nil
            return SecretBytes(copying: value.utf8)
        }
        guard let pointer = getenv(name) else { return nil }
        let count = strlen(pointer)
        let secret = count > 0 ? SecretBytes(copying: UnsafeRawBufferPointer(start: pointer, count: count)) : nil
        memset(pointer, 0, count)
        unsetenv(name)
        return secret
    }
}
