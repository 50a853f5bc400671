import KeychainCore

/// The default random number generator (the only one, as on Apple platforms).
public final class SecRandom: Sendable {
    private init() {}
}

public let kSecRandomDefault: SecRandom? = nil

// swift-format-ignore: AlwaysUseLowerCamelCase
/// Fills `bytes` with `count` random bytes from libsodium's generator (the system's); returns
/// errSecSuccess, as Apple's does.
@discardableResult
public func SecRandomCopyBytes(_ rnd: SecRandom?, _ count: Int, _ bytes: UnsafeMutableRawPointer) -> Int32 {
    guard count > 0 else { return errSecSuccess }
    Sodium.randomBytes(count).withUnsafeBytes { bytes.copyMemory(from: $0.baseAddress!, byteCount: count) }
    return errSecSuccess
}
