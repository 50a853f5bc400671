import CSodium

/// XChaCha20-Poly1305 (IETF) sealing: `nonce ‖ ciphertext ‖ tag`, with associated data.
package enum AEAD {
    package static let keyBytes = Int(crypto_aead_xchacha20poly1305_ietf_keybytes())
    package static let nonceBytes = Int(crypto_aead_xchacha20poly1305_ietf_npubbytes())
    package static let tagBytes = Int(crypto_aead_xchacha20poly1305_ietf_abytes())

    /// Seals `plaintext` under `key`, binding `associatedData`.
    package static func seal(_ plaintext: UnsafeRawBufferPointer, key: SecretBytes, associatedData: [UInt8])
        -> [UInt8]
    {
        precondition(key.count == keyBytes)
        let nonce = Sodium.randomBytes(nonceBytes)
        var sealed = [UInt8](repeating: 0, count: nonceBytes + plaintext.count + tagBytes)
        sealed.withUnsafeMutableBufferPointer { out in
            for index in 0..<nonceBytes { out[index] = nonce[index] }
            var written: UInt64 = 0
            key.withUnsafeBytes { keyBuffer in
                _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
                    out.baseAddress! + nonceBytes, &written,
                    plaintext.baseAddress?.assumingMemoryBound(to: UInt8.self),
                    UInt64(plaintext.count),
                    associatedData, UInt64(associatedData.count), nil, nonce,
                    keyBuffer.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
        return sealed
    }

    /// Opens a sealed box into guarded memory (keys and secrets); `nil` when it was not sealed by
    /// `key` with exactly this associated data (wrong key, tampered bytes, or a blob moved to
    /// another row).
    package static func open(_ sealed: [UInt8], key: SecretBytes, associatedData: [UInt8]) -> SecretBytes? {
        guard sealed.count >= nonceBytes + tagBytes else { return nil }
        let plain = SecretBytes(count: sealed.count - nonceBytes - tagBytes)
        let opened = plain.withUnsafeBytes { out in
            decrypt(sealed, into: UnsafeMutableRawPointer(mutating: out.baseAddress!), key: key, associatedData: associatedData)
        }
        return opened ? plain : nil
    }

    /// Opens a sealed box into `buffer`, which must be exactly the plaintext's size (a reused
    /// guarded buffer for per-item keys, sparing a guarded allocation per item).
    package static func open(_ sealed: [UInt8], into buffer: SecretBytes, key: SecretBytes, associatedData: [UInt8]) -> Bool {
        guard sealed.count == nonceBytes + buffer.count + tagBytes else { return false }
        return buffer.withUnsafeBytes { out in
            decrypt(sealed, into: UnsafeMutableRawPointer(mutating: out.baseAddress!), key: key, associatedData: associatedData)
        }
    }

    /// Opens a sealed box whose contents are not secret (item metadata, the key check) into
    /// ordinary memory, sparing a guarded allocation.
    package static func openPublic(_ sealed: [UInt8], key: SecretBytes, associatedData: [UInt8]) -> [UInt8]? {
        guard sealed.count >= nonceBytes + tagBytes else { return nil }
        var plain = [UInt8](repeating: 0, count: sealed.count - nonceBytes - tagBytes + 1)
        let opened = plain.withUnsafeMutableBytes {
            decrypt(sealed, into: $0.baseAddress!, key: key, associatedData: associatedData)
        }
        plain.removeLast()
        return opened ? plain : nil
    }

    private static func decrypt(
        _ sealed: [UInt8], into out: UnsafeMutableRawPointer, key: SecretBytes, associatedData: [UInt8]
    ) -> Bool {
        guard key.count == keyBytes else { return false }
        let status: Int32 = sealed.withUnsafeBufferPointer { input in
            key.withUnsafeBytes { keyBuffer in
                var written: UInt64 = 0
                return crypto_aead_xchacha20poly1305_ietf_decrypt(
                    out.assumingMemoryBound(to: UInt8.self), &written, nil,
                    input.baseAddress! + nonceBytes, UInt64(sealed.count - nonceBytes),
                    associatedData, UInt64(associatedData.count), input.baseAddress!,
                    keyBuffer.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
        return status == 0
    }
}
