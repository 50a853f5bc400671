import Foundation
internal import KeychainCore

// The iOS-era SecKey calls (SecKey.h, deprecated since iOS 15 and still what older code and
// SwiftyRSA's Security part call): each picks the algorithm its padding names, as Apple's `SecKey.m`
// does, and runs it through the same functions as SecKeyCreateSignature and the others.

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The padding an iOS-era SecKey call applies (SecKey.h). `[]` is kSecPaddingNone: raw RSA.
public struct SecPadding: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// PKCS#1 v1.5: encryption padding, or a signature over the input with no DigestInfo; for an
    /// elliptic-curve key, an X9.62 ECDSA signature of a digest.
    public static let PKCS1 = SecPadding(rawValue: 1)
    /// OAEP with SHA-1 (encryption only).
    public static let OAEP = SecPadding(rawValue: 2)
    /// An RFC 4754 ECDSA signature (r and s side by side).
    public static let sigRaw = SecPadding(rawValue: 0x4000)
    /// PKCS#1 v1.5 signatures of an MD2 or MD5 digest: gone since iOS 5, errSecParam.
    public static let PKCS1MD2 = SecPadding(rawValue: 0x8000)
    public static let PKCS1MD5 = SecPadding(rawValue: 0x8001)
    /// PKCS#1 v1.5 signatures of a digest the caller made, with its DigestInfo.
    public static let PKCS1SHA1 = SecPadding(rawValue: 0x8002)
    public static let PKCS1SHA224 = SecPadding(rawValue: 0x8003)
    public static let PKCS1SHA256 = SecPadding(rawValue: 0x8004)
    public static let PKCS1SHA384 = SecPadding(rawValue: 0x8005)
    public static let PKCS1SHA512 = SecPadding(rawValue: 0x8006)
}

/// The status the iOS-era calls return for a signature that does not verify (errSSLCrypto,
/// SecureTransport.h), where the current calls say errSecVerifyFailed.
private let legacyVerifyFailure: OSStatus = -9809

// swift-format-ignore: AlwaysUseLowerCamelCase
/// A new key pair (`SecKeyGeneratePair`): the parameters SecKeyCreateRandomKey takes, both halves
/// returned, each stored when its attributes say kSecAttrIsPermanent.
@discardableResult
public func SecKeyGeneratePair(
    _ parameters: CFDictionary, _ publicKey: UnsafeMutablePointer<SecKey?>?, _ privateKey: UnsafeMutablePointer<SecKey?>?
) -> OSStatus {
    var error: Unmanaged<CFError>?
    guard let made = SecKeyCreateRandomKey(parameters, &error) else { return legacyStatus(error) }
    publicKey?.pointee = SecKeyCopyPublicKey(made)
    privateKey?.pointee = made
    return errSecSuccess
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The signature of `dataToSign` by the private key `key` with `padding` (`SecKeyRawSign`), written
/// to `sig`, whose room `sigLen` gives and then says what was written; errSecParam when the
/// padding is not the key's or `sig` is too small.
@discardableResult
public func SecKeyRawSign(
    _ key: SecKey, _ padding: SecPadding, _ dataToSign: UnsafePointer<UInt8>, _ dataToSignLen: Int, _ sig: UnsafeMutablePointer<UInt8>,
    _ sigLen: UnsafeMutablePointer<Int>
) -> OSStatus {
    guard let algorithm = signatureAlgorithm(key, padding, digestLength: dataToSignLen) else { return errSecParam }
    var error: Unmanaged<CFError>?
    let input = Data(bytes: dataToSign, count: dataToSignLen) as CFData
    guard let signature = SecKeyCreateSignature(key, algorithm, input, &error) as Data? else { return legacyStatus(error) }
    return write(signature, to: sig, length: sigLen)
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// Whether `sig` is `key`'s signature of `signedData` with `padding` (`SecKeyRawVerify`):
/// errSecSuccess, or errSSLCrypto (-9809) when it does not verify.
@discardableResult
public func SecKeyRawVerify(
    _ key: SecKey, _ padding: SecPadding, _ signedData: UnsafePointer<UInt8>, _ signedDataLen: Int, _ sig: UnsafePointer<UInt8>,
    _ sigLen: Int
) -> OSStatus {
    guard let algorithm = signatureAlgorithm(key, padding, digestLength: signedDataLen) else { return errSecParam }
    var error: Unmanaged<CFError>?
    let signed = Data(bytes: signedData, count: signedDataLen) as CFData
    let signature = Data(bytes: sig, count: sigLen) as CFData
    return SecKeyVerifySignature(key, algorithm, signed, signature, &error) ? errSecSuccess : legacyStatus(error)
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// `plainText` encrypted to the RSA key `key` with `padding` (`SecKeyEncrypt`): `[]` raw, `.PKCS1`,
/// or `.OAEP` (SHA-1), written to `cipherText` as `SecKeyRawSign` writes.
@discardableResult
public func SecKeyEncrypt(
    _ key: SecKey, _ padding: SecPadding, _ plainText: UnsafePointer<UInt8>, _ plainTextLen: Int, _ cipherText: UnsafeMutablePointer<UInt8>,
    _ cipherTextLen: UnsafeMutablePointer<Int>
) -> OSStatus {
    guard let algorithm = encryptionAlgorithm(key, padding) else { return errSecParam }
    var error: Unmanaged<CFError>?
    let input = Data(bytes: plainText, count: plainTextLen) as CFData
    guard let sealed = SecKeyCreateEncryptedData(key, algorithm, input, &error) as Data? else { return legacyStatus(error) }
    return write(sealed, to: cipherText, length: cipherTextLen)
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// `cipherText` decrypted by the private RSA key `key` with `padding` (`SecKeyDecrypt`); raw
/// decryption's leading zeros are left out, as SecKey.h says.
@discardableResult
public func SecKeyDecrypt(
    _ key: SecKey, _ padding: SecPadding, _ cipherText: UnsafePointer<UInt8>, _ cipherTextLen: Int,
    _ plainText: UnsafeMutablePointer<UInt8>,
    _ plainTextLen: UnsafeMutablePointer<Int>
) -> OSStatus {
    guard let algorithm = encryptionAlgorithm(key, padding) else { return errSecParam }
    var error: Unmanaged<CFError>?
    let input = Data(bytes: cipherText, count: cipherTextLen) as CFData
    guard var opened = SecKeyCreateDecryptedData(key, algorithm, input, &error) as Data? else { return legacyStatus(error) }
    if algorithm == .rsaEncryptionRaw { opened = Data(opened.drop { $0 == 0 }) }
    defer { opened.resetBytes(in: 0..<opened.count) }
    return write(opened, to: plainText, length: plainTextLen)
}

/// The signature algorithm a padding names for `key` (`SecKeyGetSignatureAlgorithmForPadding`):
/// for RSA, raw, PKCS#1 without DigestInfo, or PKCS#1 of a SHA digest; for EC, RFC 4754 with
/// `.sigRaw` and X9.62 otherwise, named by the digest's length when it is a SHA digest's.
private func signatureAlgorithm(_ key: SecKey, _ padding: SecPadding, digestLength: Int) -> SecKeyAlgorithm? {
    switch key.key.algorithm {
    case .rsa:
        let byPadding: [SecPadding: SecKeyAlgorithm] = [
            []: .rsaSignatureRaw, .PKCS1: .rsaSignatureDigestPKCS1v15Raw, .PKCS1SHA1: .rsaSignatureDigestPKCS1v15SHA1,
            .PKCS1SHA224: .rsaSignatureDigestPKCS1v15SHA224, .PKCS1SHA256: .rsaSignatureDigestPKCS1v15SHA256,
            .PKCS1SHA384: .rsaSignatureDigestPKCS1v15SHA384, .PKCS1SHA512: .rsaSignatureDigestPKCS1v15SHA512,
        ]
        return byPadding[padding]
    case .ec:
        if padding == .sigRaw { return .ecdsaSignatureRFC4754 }
        let byLength: [Int: SecKeyAlgorithm] = [
            20: .ecdsaSignatureDigestX962SHA1, 28: .ecdsaSignatureDigestX962SHA224, 32: .ecdsaSignatureDigestX962SHA256,
            48: .ecdsaSignatureDigestX962SHA384, 64: .ecdsaSignatureDigestX962SHA512,
        ]
        // Apple's old EC key took every padding but sigRaw as PKCS#1, kSecPaddingNone included.
        return padding == .PKCS1 ? byLength[digestLength] ?? .ecdsaSignatureDigestX962 : .ecdsaSignatureDigestX962
    case .ed25519, .x25519:
        return nil
    }
}

/// The encryption algorithm a padding names for an RSA key (`SecKeyGetEncryptionAlgorithmForPadding`).
private func encryptionAlgorithm(_ key: SecKey, _ padding: SecPadding) -> SecKeyAlgorithm? {
    guard key.key.algorithm == .rsa else { return nil }
    let byPadding: [SecPadding: SecKeyAlgorithm] = [[]: .rsaEncryptionRaw, .PKCS1: .rsaEncryptionPKCS1, .OAEP: .rsaEncryptionOAEPSHA1]
    return byPadding[padding]
}

/// Copies `output` to a caller's buffer of `length` bytes and sets `length` to what it wrote;
/// errSecParam when it does not fit (`SecKeyPerformLegacyOperation`).
private func write(_ output: Data, to buffer: UnsafeMutablePointer<UInt8>, length: UnsafeMutablePointer<Int>) -> OSStatus {
    guard output.count <= length.pointee else { return errSecParam }
    output.copyBytes(to: buffer, count: output.count)
    length.pointee = output.count
    return errSecSuccess
}

/// The status a failed current call's error carries, errSecVerifyFailed told as the old calls did.
private func legacyStatus(_ error: Unmanaged<CFError>?) -> OSStatus {
    guard let status = error.map({ OSStatus(truncatingIfNeeded: $0.takeRetainedValue().code) }) else { return errSecParam }
    return status == errSecVerifyFailed ? legacyVerifyFailure : status
}
