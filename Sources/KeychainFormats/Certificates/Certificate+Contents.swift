import CCrypto
import Glibc
import KeychainFoundation

/// What `SecCertificateCopyKey`, `SecCertificateCopyNotValidBefore/AfterDate` and
/// `SecCertificateCopyEmailAddresses` read: each parsed again from the certificate's DER when
/// asked (rarely), so that a certificate added or found by reference carries none of it.
extension Certificate {
    /// Calls `body` with the certificate as OpenSSL reads it (it parsed when this was made).
    private func withX509<Result>(_ body: (OpaquePointer) -> Result?) -> Result? {
        guard let x509 = OpenSSL.decode(der, { d2i_X509(nil, $0, $1) }, free: { X509_free($0) }) else { return nil }
        defer { X509_free(x509) }
        return body(x509)
    }

    /// The subject's public key, when it is one `SecKey` holds (RSA of 1024 to 4096 bits, EC on
    /// P-256, P-384 or P-521); `nil` for any other.
    package var publicKey: KeyMaterial? {
        withX509 { x509 -> KeyMaterial? in
            guard let key = X509_get0_pubkey(x509) else {
                ERR_clear_error()
                return nil
            }
            guard let material = try? KeyMaterial(key, isPrivate: false), material.algorithm == .rsa || material.algorithm == .ec else {
                ERR_clear_error()
                return nil
            }
            return material
        }
    }

    /// The validity period's ends, in seconds since 1970.
    package var validity: (notBefore: Int64, notAfter: Int64)? {
        withX509 { x509 in
            guard let start = X509_get0_notBefore(x509).flatMap(Self.seconds), let end = X509_get0_notAfter(x509).flatMap(Self.seconds)
            else { return nil }
            return (start, end)
        }
    }

    /// The e-mail addresses the certificate names (`SubjectSummary.emailAddresses`).
    package var emailAddresses: [String] { withX509 { SubjectSummary.emailAddresses(of: $0) } ?? [] }

    private static func seconds(_ time: UnsafePointer<ASN1_TIME>) -> Int64? {
        var parts = tm()
        guard ASN1_TIME_to_tm(time, &parts) == 1 else { return nil }
        return Int64(timegm(&parts))
    }
}
