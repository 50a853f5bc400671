import CSodium

/// The libsodium library, initialised once per process.
///
/// Only files in `Crypto/` talk to libsodium; everything else goes through the types here.
enum Sodium {
    /// Runs `sodium_init` the first time it is read; later reads are free.
    static let ready: Bool = sodium_init() >= 0

    /// Fills a fresh array with `count` random bytes (for nonces, salts and UUIDs; not for keys).
    static func randomBytes(_ count: Int) -> [UInt8] {
        precondition(ready)
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { randombytes_buf($0.baseAddress!, count) }
        return bytes
    }
}
