import CSodium

/// A device's signing identity in a sync account (docs/SYNC.md): an Ed25519 key pair whose public
/// half the store's device list carries. Every record a device writes is signed with it, so the
/// other devices know which device wrote a change and refuse one that a holder of the account key
/// wrote in another device's name.
package struct DeviceSigningKey {
    /// The 32-byte seed the pair is made from (kept in the device's sealed sync state).
    package let seed: SecretBytes
    package let publicKey: [UInt8]

    package static let seedBytes = Int(crypto_sign_seedbytes())
    package static let publicKeyBytes = Int(crypto_sign_publickeybytes())
    package static let signatureBytes = Int(crypto_sign_bytes())

    /// The pair made from `seed` (32 bytes); `nil` for a seed of another size.
    package init?(seed: SecretBytes) {
        guard Sodium.ready, seed.count == Self.seedBytes else { return nil }
        var publicKey = [UInt8](repeating: 0, count: Self.publicKeyBytes)
        let secretKey = SecretBytes(count: Int(crypto_sign_secretkeybytes()))
        seed.withUnsafeBytes { seedBytes in
            secretKey.withUnsafeMutableBytes { secret in
                _ = crypto_sign_seed_keypair(
                    &publicKey, secret.baseAddress!.assumingMemoryBound(to: UInt8.self),
                    seedBytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
        self.seed = seed
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    private let secretKey: SecretBytes

    /// The detached signature of `message`.
    package func sign(_ message: [UInt8]) -> [UInt8] {
        var signature = [UInt8](repeating: 0, count: Self.signatureBytes)
        secretKey.withUnsafeBytes { secret in
            _ = crypto_sign_detached(
                &signature, nil, message, UInt64(message.count), secret.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        return signature
    }

    /// Whether `signature` is `publicKey`'s signature of `message`.
    package static func verify(_ signature: [UInt8], of message: [UInt8], publicKey: [UInt8]) -> Bool {
        guard Sodium.ready, signature.count == signatureBytes, publicKey.count == publicKeyBytes else { return false }
        return crypto_sign_verify_detached(signature, message, UInt64(message.count), publicKey) == 0
    }
}
