import KeychainFormats
import KeychainFoundation

/// `import --input-format pkcs12`: `SecPKCS12Import` with `kSecUseDataProtectionKeychain`
/// (`SecImportExport.c:176-270`): each identity added as an identity and every other
/// certificate as a certificate, an item already stored counting as success.
extension Keychain {
    /// What a PKCS#12 import added and found already stored.
    package struct PKCS12Report: Sendable {
        package var identitiesAdded = 0
        package var identitiesPresent = 0
        package var certificatesAdded = 0
        package var certificatesPresent = 0
        /// Private keys the file held without their certificate (left out, as Apple leaves them).
        package var unpairedKeys = 0
        package var dryRun = false
    }

    /// Adds `archive`'s identities and certificates with `request`'s attributes (group, label,
    /// accessibility: the options Apple passes through to SecItemAdd), in one transaction. A file
    /// without an identity is errSecParam: unlike Apple, which reports success and adds nothing (or,
    /// on macOS, only its certificates), keychainctl says what the file held.
    package func importPKCS12(_ archive: PKCS12Archive, request: ItemRequest, caller: Caller, dryRun: Bool) throws -> PKCS12Report {
        guard !archive.identities.isEmpty else {
            throw KeychainError(
                .param,
                hint:
                    "the PKCS#12 file holds no identity (a certificate with its private key): \(archive.certificates.count) certificate(s) and \(archive.unpairedKeys) private key(s) without their certificate. Add certificates with add --class cert --ref-file."
            )
        }
        var report = PKCS12Report(unpairedKeys: archive.unpairedKeys, dryRun: dryRun)
        return try writeOrRehearse(dryRun: dryRun) {
            for identity in archive.identities {
                var identityRequest = request
                identityRequest.itemClass = ItemClass.identity.rawValue
                do {
                    _ = try addIdentity(
                        identityRequest, certificate: identity.certificate, key: identity.key, caller: caller, updateExisting: false)
                    report.identitiesAdded += 1
                } catch let error as KeychainError where error.status == .duplicateItem {
                    report.identitiesPresent += 1
                }
            }
            for certificate in archive.certificates {
                var certificateRequest = request
                certificateRequest.itemClass = ItemClass.certificate.rawValue
                do {
                    _ = try add(certificateRequest, reference: ItemReference(certificates: [certificate], keys: []), caller: caller)
                    report.certificatesAdded += 1
                } catch let error as KeychainError where error.status == .duplicateItem {
                    report.certificatesPresent += 1
                }
            }
            return report
        }
    }
}
