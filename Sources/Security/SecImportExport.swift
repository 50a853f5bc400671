import Foundation
import KeychainCore

// The keys of SecPKCS12Import's options and items (SecImportExport.h).
nonisolated(unsafe) public let kSecImportExportPassphrase: CFString = "passphrase"
nonisolated(unsafe) public let kSecImportItemIdentity: CFString = "identity"
nonisolated(unsafe) public let kSecImportItemCertChain: CFString = "chain"
nonisolated(unsafe) public let kSecImportItemLabel: CFString = "label"
nonisolated(unsafe) public let kSecImportItemKeyID: CFString = "keyid"

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The identities a PKCS#12 file holds (`SecImportExport.c`, `SecPKCS12Import`), opened with
/// `options`' kSecImportExportPassphrase (none: the empty passphrase): one dictionary each, with
/// the identity (kSecImportItemIdentity) and its chain (kSecImportItemCertChain: its certificate,
/// then the file's certificates that issue it, in order). SecTrust is not provided, so there is
/// no kSecImportItemTrust. A wrong passphrase is errSecAuthFailed, a malformed file errSecDecode.
/// Nothing is stored unless `options` say kSecUseDataProtectionKeychain: then each identity and
/// each other certificate is added with the other options, one already stored counting as added.
public func SecPKCS12Import(_ pkcs12_data: CFData, _ options: CFDictionary, _ items: UnsafeMutablePointer<CFArray?>) -> OSStatus {
    let entries = (try? SecItemDictionary.entries(options)) ?? []
    let passphrase = entries.first { $0.key == kSecImportExportPassphrase as String }.flatMap { SecItemDictionary.string($0.value) }
    let archive: PKCS12Archive
    do {
        archive = try PKCS12Archive(
            der: (pkcs12_data as Data).withUnsafeBytes { SecretBytes(copying: $0) },
            passphrase: SecretBytes(copying: Array((passphrase ?? "").utf8)))
    } catch {
        return error.status.rawValue
    }
    let others = archive.certificates.map(SecCertificate.init)
    let identities = archive.identities.map { SecIdentity(certificate: SecCertificate($0.certificate), privateKey: SecKey($0.key)) }
    items.pointee = NSArray(
        array: zip(identities, archive.identities).map { identity, held in
            let chain = [identity.certificate] + issuers(of: held.certificate, among: others)
            return NSDictionary(dictionary: [
                kSecImportItemIdentity as String: identity, kSecImportItemCertChain as String: NSArray(array: chain),
            ])
        })
    let stores = entries.first { $0.key == kSecUseDataProtectionKeychain as String }.flatMap { SecItemDictionary.bool($0.value) } ?? false
    guard stores else { return errSecSuccess }
    // The other options go to SecItemAdd as they are (SecImportExport.c, secItemOptionsFromPKCS12Options).
    let itemOptions = entries.filter { $0.key != kSecImportExportPassphrase as String }
    var status = errSecSuccess
    for object in identities as [AnyObject] + others {
        let attributes = SecItemDictionary.mutableCopy(of: itemOptions)
        attributes[kSecValueRef as String] = object
        let added = SecItemAdd(attributes, nil)
        if added != errSecSuccess, added != errSecDuplicateItem { status = added }
    }
    return status
}

/// The certificates of `others` that issue `certificate`, then the one that issues that, and so
/// on (each once), as a chain is built from the file's own certificates.
private func issuers(of certificate: Certificate, among others: [SecCertificate]) -> [SecCertificate] {
    var chain: [SecCertificate] = []
    var current = certificate
    while current.normalizedIssuer != current.normalizedSubject,
        let next = others.first(where: { $0.certificate.normalizedSubject == current.normalizedIssuer && !chain.contains($0) })
    {
        chain.append(next)
        current = next.certificate
    }
    return chain
}
