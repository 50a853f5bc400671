import KeychainFoundation

/// RSA OAEP with AES-GCM as Apple's SecKey makes it (`SecKeyAdaptors.m`,
/// `SecKeyRSAAESGCMCopyEncryptedData`): a new random AES key (16 bytes below 4096-bit RSA, 32
/// from there), wrapped by RSA OAEP; the data encrypted by AES-GCM under it with a 16-byte zero IV
/// and the recipient's public key (PKCS#1) as additional data. The result is the wrapped key (one
/// RSA block), the ciphertext and the 16-byte tag.
extension KeyMaterial {
    /// `plaintext` sealed to this public RSA key.
    func wrapSeal(_ digest: KeyOperation.Digest, _ plaintext: [UInt8]) throws(ObjectError) -> [UInt8] {
        let session = SecretBytes.random(count: sessionKeyLength)
        let wrapped = try encrypt(.rsaOAEP(digest, sessionKey: false), session.withUnsafeBytes { Array($0) })
        let (ciphertext, tag) = try Self.aesGCM(
            encrypt: true, key: Self.zeroIV(after: session), keyLength: sessionKeyLength, input: plaintext, additional: publicBytes,
            tag: nil)
        return wrapped + ciphertext + tag
    }

    /// A sealed message opened by this private RSA key; one reason whatever failed, so that it
    /// tells an attacker nothing about which check it was.
    func wrapOpen(_ digest: KeyOperation.Digest, _ sealed: [UInt8]) throws(ObjectError) -> [UInt8] {
        guard sealed.count >= blockSize + Self.gcmBlock else { throw ObjectError("the input is too short for RSA OAEP with AES-GCM") }
        let failure = ObjectError("RSA OAEP with AES-GCM failed: the ciphertext does not decrypt with this key")
        var unwrapped: [UInt8]
        do {
            unwrapped = try decrypt(.rsaOAEP(digest, sessionKey: false), Array(sealed.prefix(blockSize)))
        } catch {
            throw failure
        }
        let session = SecretBytes(copying: unwrapped)
        OpenSSL.zero(&unwrapped)
        guard session.count == sessionKeyLength else { throw failure }
        let body = sealed.dropFirst(blockSize)
        do {
            return try Self.aesGCM(
                encrypt: false, key: Self.zeroIV(after: session), keyLength: sessionKeyLength, input: Array(body.dropLast(Self.gcmBlock)),
                additional: publicBytes, tag: Array(body.suffix(Self.gcmBlock))
            ).output
        } catch {
            throw failure
        }
    }

    /// The AES key's length for this RSA key's size.
    private var sessionKeyLength: Int { bits >= 4096 ? 32 : 16 }
}
