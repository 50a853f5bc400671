import Foundation
internal import KeychainCore

/// An asymmetric key, as `SecKeyCreateRandomKey`, `SecKeyCreateWithData` and `kSecReturnRef`
/// make one: RSA or elliptic-curve (P-256, P-384, P-521), held in guarded memory, a software key
/// (there is no Secure Enclave). Immutable; equal to another when both are the same half of the
/// same key; hashable, as Swift makes every CoreFoundation type.
public final class SecKey: Sendable {
    let key: KeyMaterial

    init(_ key: KeyMaterial) { self.key = key }

    /// The key a stored item holds: its data (Apple's external representation) read as its type
    /// and class attributes say; `nil` when they do not describe a key it holds.
    convenience init?(item: Item, data: SecretBytes) {
        guard case .string(let type)? = item.attributes[Schema.keyType], let algorithm = KeyMaterial.Algorithm(keyType: type),
            case .number(let keyClass)? = item.attributes[Schema.keyClass], keyClass == 0 || keyClass == 1,
            let key = try? KeyMaterial(external: data, algorithm: algorithm, isPrivate: keyClass == 1)
        else { return nil }
        self.init(key)
    }
}

extension SecKey: Hashable {
    public static func == (left: SecKey, right: SecKey) -> Bool {
        left.key.algorithm == right.key.algorithm && left.key.isPrivate == right.key.isPrivate
            && left.key.publicBytes == right.key.publicBytes
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(key.publicBytes)
        hasher.combine(key.isPrivate)
    }
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The key's block size in bytes (SecKey.h): an RSA key's modulus, what its signatures and
/// ciphertexts are as long as and what an encryption's padding leaves room in; an EC key's field
/// element as corecrypto counts it, in whole 64-bit words (32, 48 and 72 bytes for P-256, P-384
/// and P-521).
@discardableResult
public func SecKeyGetBlockSize(_ key: SecKey) -> Int {
    let bytes = (key.key.bits + 7) / 8
    return key.key.algorithm == .rsa ? bytes : (bytes + 7) / 8 * 8
}

/// The keys of `SecKeyCreateRandomKey`'s parameters that hold one half's own attributes (SecKey.h).
nonisolated(unsafe) public let kSecPrivateKeyAttrs: CFString = "private"
nonisolated(unsafe) public let kSecPublicKeyAttrs: CFString = "public"

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The key `keyData` holds in Apple's external representation, as `attributes` describe it:
/// kSecAttrKeyType (RSA or EC) and kSecAttrKeyClass (public or private), each a string or a
/// number; the size is read from the data. Anything else is `nil` with errSecParam.
@discardableResult
public func SecKeyCreateWithData(_ keyData: CFData, _ attributes: CFDictionary, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?)
    -> SecKey?
{
    let out = error
    do throws(SecItemRefusal) {
        let entries = try SecItemDictionary.entries(attributes)
        guard !entries.contains(where: { $0.key == kSecAttrTokenID as String }) else { throw .noToken }
        let type = entries.first { $0.key == Schema.keyType }.flatMap { SecItemDictionary.integer($0.value) }
        guard let type, let algorithm = KeyMaterial.Algorithm(keyType: String(type)), algorithm == .rsa || algorithm == .ec else {
            throw .param("kSecAttrKeyType is missing or names a key type not provided (RSA and EC are)")
        }
        let keyClass = entries.first { $0.key == Schema.keyClass }.flatMap { SecItemDictionary.integer($0.value) }
        guard let keyClass, keyClass == 0 || keyClass == 1 else {
            throw .param("kSecAttrKeyClass is missing or is not kSecAttrKeyClassPublic or kSecAttrKeyClassPrivate")
        }
        let bytes = (keyData as Data).withUnsafeBytes { SecretBytes(copying: $0) }
        do throws(ObjectError) {
            return SecKey(try KeyMaterial(external: bytes, algorithm: algorithm, isPrivate: keyClass == 1))
        } catch {
            throw .param(error.reason)
        }
    } catch {
        CFError.report(error.status, error.message, to: out)
        return nil
    }
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The public half of `key` (the key itself when it is public).
@discardableResult
public func SecKeyCopyPublicKey(_ key: SecKey) -> SecKey? {
    (try? key.key.publicKey).map(SecKey.init)
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// Apple's external representation of `key`: PKCS#1 for RSA, `04‖X‖Y` (and `‖K` for a private
/// key) for EC. Every key here is a software key, so a private key's bytes are given too, as
/// Apple gives a software key's.
@discardableResult
public func SecKeyCopyExternalRepresentation(_ key: SecKey, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
    key.key.external.withUnsafeBytes { NSData(bytes: $0.baseAddress, length: $0.count) }
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// What `SecKeyCopyAttributeDictionary` says of `key`: its class and type as Apple's string
/// constants, its sizes, its application label (the SHA-1 of its public key), the flags Apple
/// gives a software key of its kind, and its external representation as `v_Data`.
@discardableResult
public func SecKeyCopyAttributes(_ key: SecKey) -> CFDictionary? {
    var dictionary: [String: Any] = [SecItemKey.itemClass: ItemClass.key.rawValue]
    for (code, value) in key.key.attributes { dictionary[code] = SecItemResult.object(value) }
    dictionary[Schema.keyClass] = key.key.isPrivate ? "1" : "0"
    dictionary[Schema.keyType] = key.key.algorithm.keyType
    dictionary[SecItemKey.valueData] = key.key.external.withUnsafeBytes { Data($0) }
    return NSDictionary(dictionary: dictionary)
}
