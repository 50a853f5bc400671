import Foundation
internal import KeychainCore

/// What an algorithm is asked to do with a key (SecKey.h).
public enum SecKeyOperationType: CFIndex, Sendable {
    case sign, verify, encrypt, decrypt, keyExchange  // 0 to 4, as SecKey.h numbers them
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// Whether `key` can do `operation` with `algorithm`, as Apple's keys split the work: a private key
/// of the algorithm's type signs, decrypts and exchanges keys, a public key verifies and
/// encrypts. An algorithm not provided is supported by no key.
@discardableResult
public func SecKeyIsAlgorithmSupported(_ key: SecKey, _ operation: SecKeyOperationType, _ algorithm: SecKeyAlgorithm) -> Bool {
    guard let run = algorithm.operation, run.algorithm == key.key.algorithm else { return false }
    switch operation {
    case .sign: return run.kind == .signature && key.key.isPrivate
    case .verify: return run.kind == .signature && !key.key.isPrivate
    case .encrypt: return run.kind == .encryption && !key.key.isPrivate
    case .decrypt: return run.kind == .encryption && key.key.isPrivate
    case .keyExchange: return run.kind == .keyExchange && key.key.isPrivate
    }
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The signature of `dataToSign` (a message, or a digest of the algorithm's length) by the
/// private key `key`; `nil` with errSecParam when the key cannot sign with the algorithm.
@discardableResult
public func SecKeyCreateSignature(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ dataToSign: CFData, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    transform(dataToSign, by: key, .sign, algorithm, error)
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// Whether `signature` is `key`'s signature of `signedData`. A signature that does not verify is
/// `false` with an error: errSecParam for an X9.62 ECDSA signature and errSecVerifyFailed for the
/// others, as Apple reports them (`SecKeyAdaptors.m`).
@discardableResult
public func SecKeyVerifySignature(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ signedData: CFData, _ signature: CFData,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> Bool {
    let verified = run(key, .verify, algorithm, error) { key, operation throws(ObjectError) in
        try key.verify(operation, [UInt8](signedData as Data), signature: [UInt8](signature as Data))
    }
    // `nil`: refused, and the error says why.
    guard verified == false, let operation = algorithm.operation else { return verified ?? false }
    if case .ecdsa(_, _, raw: false) = operation {
        CFError.report(errSecParam, "Wrong ECDSA X962 signature", to: error)
    } else {
        CFError.report(errSecVerifyFailed, "\(operation.name) signature verification failed, no match", to: error)
    }
    return false
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// `plaintext` encrypted to `key` (its public half) with an RSA encryption algorithm.
@discardableResult
public func SecKeyCreateEncryptedData(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ plaintext: CFData, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    transform(plaintext, by: key, .encrypt, algorithm, error)
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// `ciphertext` decrypted by the private key `key`; `nil` with errSecParam when it does not
/// decrypt.
@discardableResult
public func SecKeyCreateDecryptedData(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ ciphertext: CFData, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    transform(ciphertext, by: key, .decrypt, algorithm, error)
}

/// What signing, encrypting or decrypting `data` with `key` makes.
private func transform(
    _ data: CFData, by key: SecKey, _ operation: SecKeyOperationType, _ algorithm: SecKeyAlgorithm,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    run(key, operation, algorithm, error) { key, chosen throws(ObjectError) in
        let input = [UInt8](data as Data)
        let output: [UInt8] =
            switch operation {
            case .sign: try key.sign(chosen, input)
            case .encrypt: try key.encrypt(chosen, input)
            default: try key.decrypt(chosen, input)
            }
        return NSData(data: Data(output))
    }
}

/// Runs `body` when `key` supports `operation` with `algorithm`; otherwise, or when `body` fails,
/// `nil` with errSecParam saying why (`SecKeyRunAlgorithmAndCopyResult`).
private func run<Result>(
    _ key: SecKey, _ operation: SecKeyOperationType, _ algorithm: SecKeyAlgorithm, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?,
    _ body: (KeyMaterial, KeyOperation) throws(ObjectError) -> Result
) -> Result? {
    let out = error
    guard SecKeyIsAlgorithmSupported(key, operation, algorithm), let chosen = algorithm.operation else {
        CFError.report(errSecParam, "\(algorithm.rawValue): algorithm not supported by the key", to: out)
        return nil
    }
    do {
        return try body(key.key, chosen)
    } catch {
        CFError.report(errSecParam, error.reason, to: out)
        return nil
    }
}

/// The parameters of a key exchange (SecKey.h), as Swift sees them:
/// `[SecKeyKeyExchangeParameter.requestedSize.rawValue: 32]`.
// An NSString is immutable: sharing one across threads is safe.
public struct SecKeyKeyExchangeParameter: RawRepresentable, Hashable, @unchecked Sendable {
    public let rawValue: CFString

    public init(rawValue: CFString) { self.rawValue = rawValue }

    public static func == (left: Self, right: Self) -> Bool { left.rawValue as String == right.rawValue as String }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue as String) }

    /// How many bytes the X9.63 derivation makes of the shared secret (a number).
    public static let requestedSize = Self(rawValue: "requestedSize")
    /// What the derivation mixes in besides the shared secret (data).
    public static let sharedInfo = Self(rawValue: "sharedInfo")
}

/// The same parameters by their C names.
nonisolated(unsafe) public let kSecKeyKeyExchangeParameterRequestedSize: CFString = SecKeyKeyExchangeParameter.requestedSize.rawValue
nonisolated(unsafe) public let kSecKeyKeyExchangeParameterSharedInfo: CFString = SecKeyKeyExchangeParameter.sharedInfo.rawValue

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The secret `privateKey` shares with `publicKey` (ECDH on the same curve): the shared x
/// coordinate, or with an X9.63 algorithm the kSecKeyKeyExchangeParameterRequestedSize bytes the
/// derivation makes of it and kSecKeyKeyExchangeParameterSharedInfo. A missing size, or keys of
/// other curves, are `nil` with errSecParam.
@discardableResult
public func SecKeyCopyKeyExchangeResult(
    _ privateKey: SecKey, _ algorithm: SecKeyAlgorithm, _ publicKey: SecKey, _ parameters: CFDictionary,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    let entries = (try? SecItemDictionary.entries(parameters)) ?? []
    func value(_ key: CFString) -> Any? { entries.first { $0.key == key as String }?.value }
    let size = value(kSecKeyKeyExchangeParameterRequestedSize).flatMap { $0 as? NSNumber }?.intValue
    let info = value(kSecKeyKeyExchangeParameterSharedInfo)
    guard info == nil || info is Data else {
        CFError.report(errSecParam, "ECDHKeyExchange wrong sharedInfo type (must be CFData/NSData)", to: error)
        return nil
    }
    return run(privateKey, .keyExchange, algorithm, error) { key, operation throws(ObjectError) in
        let secret = try key.exchange(operation, with: publicKey.key, requestedSize: size, sharedInfo: [UInt8]((info as? Data) ?? Data()))
        return secret.withUnsafeBytes { NSData(bytes: $0.baseAddress, length: $0.count) }
    }
}
