import Foundation
internal import KeychainCore

/// A certificate and its private key, as `SecPKCS12Import` and `kSecReturnRef` on identities make
/// one. Equal to another when both halves are.
public final class SecIdentity: Sendable {
    let certificate: SecCertificate
    let privateKey: SecKey

    init(certificate: SecCertificate, privateKey: SecKey) {
        self.certificate = certificate
        self.privateKey = privateKey
    }
}

extension SecIdentity: Hashable {
    public static func == (left: SecIdentity, right: SecIdentity) -> Bool {
        left.certificate == right.certificate && left.privateKey == right.privateKey
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(certificate) }
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The identity's certificate.
@discardableResult
public func SecIdentityCopyCertificate(_ identityRef: SecIdentity, _ certificateRef: UnsafeMutablePointer<SecCertificate?>) -> OSStatus {
    certificateRef.pointee = identityRef.certificate
    return errSecSuccess
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The identity's private key.
@discardableResult
public func SecIdentityCopyPrivateKey(_ identityRef: SecIdentity, _ privateKeyRef: UnsafeMutablePointer<SecKey?>) -> OSStatus {
    privateKeyRef.pointee = identityRef.privateKey
    return errSecSuccess
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// An identity of `certificate` and `privateKey` (SecIdentity.h), as Apple makes one: the two are
/// not checked against each other.
@discardableResult
public func SecIdentityCreate(_ allocator: CFAllocator?, _ certificate: SecCertificate, _ privateKey: SecKey) -> SecIdentity? {
    SecIdentity(certificate: certificate, privateKey: privateKey)
}

/// A SecItem call whose kSecValueRef is an identity, made as `explode_identity` (`SecItem.m`)
/// makes it, client-side: the same call on its certificate, then on its private key.
enum IdentityCall {
    enum Operation { case add, copyMatching, delete }

    /// The call's status. An add tolerates an existing certificate, and an existing key beside a
    /// new certificate (errSecDuplicateItem only when both exist); a delete keeps the key while
    /// any certificate still holds its public key. An add's or find's result is the identity's
    /// persistent reference, when the certificate's call gave one.
    static func run(
        _ operation: Operation, _ dictionary: CFDictionary, identity: SecIdentity, result: UnsafeMutablePointer<CFTypeRef?>?
    ) -> OSStatus {
        let call: (CFDictionary, UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus =
            switch operation {
            case .add: SecItemAdd
            case .copyMatching: SecItemCopyMatching
            case .delete: { query, _ in SecItemDelete(query) }
            }
        let partial = SecItemDictionary.mutableCopy(of: (try? SecItemDictionary.entries(dictionary)) ?? [])
        partial[kSecValueRef as String] = identity.certificate
        partial[kSecClass as String] = kSecClassCertificate
        var certificateResult: CFTypeRef?
        var status = result == nil ? call(partial, nil) : call(partial, &certificateResult)
        let duplicateCertificate = operation == .add && status == errSecDuplicateItem
        if duplicateCertificate { status = errSecSuccess }
        guard status == errSecSuccess || status == errSecItemNotFound else { return status }
        if operation != .delete || !certificateHoldsKey(identity.privateKey) {
            partial[kSecValueRef as String] = identity.privateKey
            partial[kSecReturnPersistentRef as String] = false
            partial[kSecClass as String] = kSecClassKey
            status = call(partial, nil)
            if operation == .add, status == errSecDuplicateItem, !duplicateCertificate { status = errSecSuccess }
        }
        if status == errSecSuccess, let bytes = certificateResult as? Data, bytes.count == 20,
            bytes.prefix(4).elementsEqual(ItemClass.certificate.rawValue.utf8)
        {
            result?.pointee = NSData(data: Data(ItemClass.identity.rawValue.utf8) + bytes.dropFirst(4))
        }
        return status
    }

    /// SecItemUpdate with an identity's reference (`handleUpdateIdentity`, `SecItem.m`): its
    /// certificate updated, then its private key, the first failure the call's status.
    static func update(_ query: CFDictionary, identity: SecIdentity, _ attributesToUpdate: CFDictionary) -> OSStatus {
        let partial = SecItemDictionary.mutableCopy(of: (try? SecItemDictionary.entries(query)) ?? [])
        for half: AnyObject in [identity.certificate, identity.privateKey] {
            partial[kSecValueRef as String] = half
            let status = SecItemUpdate(partial, attributesToUpdate)
            guard status == errSecSuccess else { return status }
        }
        return errSecSuccess
    }

    /// Whether a certificate the caller can read holds `key`'s public key (its `pkhh` is the key's
    /// application label).
    private static func certificateHoldsKey(_ key: SecKey) -> Bool {
        let query: [String: Any] = [
            kSecClass as String: kSecClassCertificate, kSecAttrPublicKeyHash as String: Data(key.key.applicationLabel),
        ]
        return SecItemCopyMatching(query as CFDictionary, nil) == errSecSuccess
    }
}
