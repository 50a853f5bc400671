import CSodium

/// New random passwords (`set --generate`): letters and digits, each drawn uniformly by libsodium
/// (`randombytes_uniform`, no modulo bias), built in guarded memory. 32 characters hold 190 bits.
package enum PasswordGenerator {
    /// The characters a password is drawn from: accepted by every password field and shell word.
    package static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
    /// The length when none is given, and the lengths accepted.
    package static let defaultLength = 32
    package static let lengths = 8...4096

    /// A new password of `length` characters.
    package static func make(length: Int) -> SecretBytes {
        let password = SecretBytes(count: length)
        password.withUnsafeMutableBytes { bytes in
            for index in 0..<length { bytes[index] = alphabet[Int(randombytes_uniform(UInt32(alphabet.count)))] }
        }
        return password
    }
}
