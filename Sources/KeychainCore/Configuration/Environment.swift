import Glibc
import KeychainFoundation

/// The process environment, read once.
package enum Environment {
    /// The value of `name`, or `nil` when unset or empty.
    package static func value(_ name: String) -> String? {
        guard let pointer = getenv(name) else { return nil }
        let value = String(cString: pointer)
        return value.isEmpty ? nil : value
    }

    /// A secret variable's value copied into guarded memory, then wiped where the process keeps it
    /// and unset, so that neither this process's memory nor a child's environment holds it;
    /// `nil` when unset or empty.
    package static func takeSecret(_ name: String) -> SecretBytes? {
        guard let pointer = getenv(name) else { return nil }
        let count = strlen(pointer)
        let secret = count > 0 ? SecretBytes(copying: UnsafeRawBufferPointer(start: pointer, count: count)) : nil
        memset(pointer, 0, count)
        unsetenv(name)
        return secret
    }
}
