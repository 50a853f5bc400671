internal import KeychainCore

/// The default random number generator (the only one, as on Apple platforms).
public final class SecRandom: Sendable {
    private init() {}
}

public let kSecRandomDefault: SecRandom? = nil

// swift-format-ignore: AlwaysUseLowerCamelCase
/// Fills `bytes` with `count` random bytes from libsodium's generator (the system's), drawn
/// straight into the caller's buffer (apps draw keys with it: no copy stays behind); returns
/// errSecSuccess, as Apple's does, and errSecParam for a negative count.
@discardableResult
public func SecRandomCopyBytes(_ rnd: SecRandom?, _ count: Int, _ bytes: UnsafeMutableRawPointer) -> Int32 {
    guard count >= 0 else { return errSecParam }
    Sodium.fill(UnsafeMutableRawBufferPointer(start: bytes, count: count))
    return errSecSuccess
}
