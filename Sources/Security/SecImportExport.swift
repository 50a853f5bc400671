import Foundation
package import KeychainCore

// The keys of SecPKCS12Import's options and items (SecImportExport.h).
nonisolated(unsafe) public let kSecImportExportPassphrase: CFString = "passphrase"
nonisolated(unsafe) public let kSecImportItemIdentity: CFString = "identity"
nonisolated(unsafe) public let kSecImportItemCertChain: CFString = "chain"
nonisolated(unsafe) public let kSecImportItemLabel: CFString = "label"
nonisolated(unsafe) public let kSecImportItemKeyID: CFString = "keyid"
nonisolated(unsafe) public let kSecImportItemTrust: CFString = "trust"
/// SecPKCS12Import's option to keep what it imports in memory only, whatever else it says.
nonisolated(unsafe) public let kSecImportToMemoryOnly: CFString = "memory"

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The identities a PKCS#12 file holds (`SecImportExport.c`, `SecPKCS12Import`), opened with
/// `options`' kSecImportExportPassphrase (none: the empty passphrase): one dictionary each, with
/// the identity (kSecImportItemIdentity), its chain (kSecImportItemCertChain: its certificate,
/// then the file's certificates that issue it, in order) and a trust for that chain under the X.509
/// basic policy (kSecImportItemTrust), not yet evaluated. A wrong passphrase is errSecAuthFailed, a malformed file errSecDecode.
/// Nothing is stored unless `options` say kSecUseDataProtectionKeychain: then each identity and
/// each other certificate is added with the other options, one already stored counting as added.
@discardableResult
public func SecPKCS12Import(_ pkcs12_data: CFData, _ options: CFDictionary, _ items: UnsafeMutablePointer<CFArray?>) -> OSStatus {
    // As large as the command reads (a real PKCS#12 is a few KiB): a larger one is refused before
    // it is copied or parsed.
    guard (pkcs12_data as Data).count <= InputLimits.objectFileBytes else { return errSecDecode }
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
    let issued = IssuerIndex(others)
    let identities = archive.identities.map { SecIdentity(certificate: SecCertificate($0.certificate), privateKey: SecKey($0.key)) }
    items.pointee = NSArray(
        array: zip(identities, archive.identities).map { identity, held in
            let chain = [identity.certificate] + issued.chain(above: held.certificate)
            return NSDictionary(dictionary: [
                kSecImportItemIdentity as String: identity, kSecImportItemCertChain as String: NSArray(array: chain),
                kSecImportItemTrust as String: SecTrust(certificates: chain, policies: [SecPolicyCreateBasicX509()]),
            ])
        })
    func flag(_ key: CFString) -> Bool { entries.first { $0.key == key as String }.flatMap { SecItemDictionary.bool($0.value) } ?? false }
    guard flag(kSecUseDataProtectionKeychain), !flag(kSecImportToMemoryOnly) else { return errSecSuccess }
    // The other options go to SecItemAdd as they are (SecImportExport.c, secItemOptionsFromPKCS12Options).
    let itemOptions = entries.filter { $0.key != kSecImportExportPassphrase as String && $0.key != kSecImportToMemoryOnly as String }
    var status = errSecSuccess
    for object in identities as [AnyObject] + others {
        let attributes = SecItemDictionary.mutableCopy(of: itemOptions)
        attributes[kSecValueRef as String] = object
        let added = SecItemAdd(attributes, nil)
        if added != errSecSuccess, added != errSecDuplicateItem { status = added }
    }
    return status
}

/// The file's certificates by normalized subject, for building chains in time linear in their
/// number: a file of certificates that issue one another in a ring (X by Y, Y by X, …) made the
/// search that scanned every certificate at each step take minutes per identity.
private struct IssuerIndex {
    let certificates: [SecCertificate]
    let bySubject: [[UInt8]: [Int]]

    init(_ certificates: [SecCertificate]) {
        self.certificates = certificates
        bySubject = Dictionary(grouping: certificates.indices) { certificates[$0].certificate.normalizedSubject }
    }

    /// The certificates that issue `certificate`, then the one that issues that, and so on, each
    /// once: for each subject the next one not taken yet, so no step looks at a certificate twice.
    func chain(above certificate: Certificate) -> [SecCertificate] {
        var chain: [SecCertificate] = []
        var taken: [[UInt8]: Int] = [:]
        var current = certificate
        while current.normalizedIssuer != current.normalizedSubject, let candidates = bySubject[current.normalizedIssuer] {
            ChainSteps.counted?.add()
            let next = taken[current.normalizedIssuer, default: 0]
            guard next < candidates.count else { break }
            taken[current.normalizedIssuer] = next + 1
            let issuer = certificates[candidates[next]]
            chain.append(issuer)
            current = issuer.certificate
        }
        return chain
    }
}

/// The steps chain building takes (one per certificate a chain takes), counted for the task that
/// binds a counter (`ChainSteps.$counted.withValue`): a test bounds a hostile file's work by this,
/// not by the clock of a busy machine.
package enum ChainSteps {
    @TaskLocal package static var counted: WorkCounter?
}
