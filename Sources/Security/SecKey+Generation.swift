import Foundation
internal import KeychainCore

// swift-format-ignore: AlwaysUseLowerCamelCase
/// A new random key pair's private key (`SecKey.m`, `SecKeyCreateRandomKey`): kSecAttrKeyType RSA
/// (1024 to 4096 bits, a multiple of 8) or EC (256, 384 or 521 bits), of kSecAttrKeySizeInBits.
/// Each half is stored in the keychain when its attributes (kSecPrivateKeyAttrs or
/// kSecPublicKeyAttrs, then the top level's) say kSecAttrIsPermanent, by `SecItemAdd` with the
/// half as kSecValueRef and those attributes: the public half first, then the private one. A
/// failed add is that add's status, and the key is not returned.
@discardableResult
public func SecKeyCreateRandomKey(_ parameters: CFDictionary, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> SecKey? {
    let out = error
    do throws(SecItemRefusal) {
        let request = try KeyGenerationRequest(parameters)
        let privateKey: SecKey
        let publicKey: SecKey
        do throws(ObjectError) {
            let made = try KeyMaterial.random(request.algorithm, bits: request.bits)
            privateKey = SecKey(made)
            publicKey = SecKey(try made.publicKey)
        } catch {
            throw .param(error.reason)
        }
        for (half, attributes) in [(publicKey, request.publicAttributes), (privateKey, request.privateAttributes)]
        where attributes.isPermanent {
            let status = SecItemAdd(attributes.adding(half), nil)
            guard status == errSecSuccess else {
                throw SecItemRefusal(
                    status: status, message: "failed to add the key to the keychain: \(SecItemEngine.shared.lastFailureMessage ?? "")")
            }
        }
        return privateKey
    } catch {
        CFError.report(error.status, error.message, to: out)
        return nil
    }
}

/// A key generation's parameters as `SecKeyCreateRandomKey` reads them.
struct KeyGenerationRequest {
    let algorithm: KeyMaterial.Algorithm
    let bits: Int
    /// What each half is stored with: its own dictionary's attributes, then the top level's it
    /// does not give (`merge_params`), less what only the top level means.
    let privateAttributes: HalfAttributes
    let publicAttributes: HalfAttributes

    struct HalfAttributes {
        let entries: [(key: String, value: Any)]

        /// kSecAttrIsPermanent: stored only when true (the default is an ephemeral key).
        var isPermanent: Bool {
            entries.first { $0.key == kSecAttrIsPermanent as String }.flatMap { SecItemDictionary.bool($0.value) } ?? false
        }

        /// The attributes `SecItemAdd` is given, with the half as kSecValueRef.
        func adding(_ half: SecKey) -> CFDictionary {
            let dictionary = SecItemDictionary.mutableCopy(of: entries)
            dictionary[kSecValueRef as String] = half
            return dictionary
        }
    }

    init(_ parameters: CFDictionary) throws(SecItemRefusal) {
        let top = try SecItemDictionary.entries(parameters)
        func value(_ key: CFString) -> Any? { top.first { $0.key == key as String }?.value }
        guard value(kSecAttrTokenID) == nil else { throw .noToken }
        guard let type = value(kSecAttrKeyType).flatMap(SecItemDictionary.integer),
            let algorithm = KeyMaterial.Algorithm(keyType: String(type)), algorithm == .rsa || algorithm == .ec
        else { throw .param("incorrect or missing kSecAttrKeyType in key generation request (RSA and EC are provided)") }
        guard let bits = value(kSecAttrKeySizeInBits).flatMap(SecItemDictionary.integer) else {
            throw .param("invalid or missing kSecAttrKeySizeInBits in key generation request")
        }
        self.algorithm = algorithm
        self.bits = bits
        let topOnly: Set<String> = [
            kSecPrivateKeyAttrs as String, kSecPublicKeyAttrs as String, kSecAttrKeyType as String, kSecAttrKeySizeInBits as String,
        ]
        func half(_ name: CFString) throws(SecItemRefusal) -> HalfAttributes {
            var own: [(key: String, value: Any)] = []
            if let stored = value(name) {
                // The half's dictionary, read as the top level is (a collection in it stands in unread).
                guard let dictionary = (stored as? SecItemDictionary.Collection)?.object as? NSDictionary else {
                    throw .param("\(name) takes a dictionary")
                }
                own = try SecItemDictionary.entries(dictionary)
            }
            let given = Set(own.map(\.key))
            return HalfAttributes(entries: (own + top.filter { !given.contains($0.key) }).filter { !topOnly.contains($0.key) })
        }
        privateAttributes = try half(kSecPrivateKeyAttrs)
        publicAttributes = try half(kSecPublicKeyAttrs)
    }
}
