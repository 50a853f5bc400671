import CCrypto
import KeychainFoundation

/// An X.509 certificate as `SecCertificateCreateWithData` reads it, and the attributes
/// `SecItemAdd` derives from it (`SecCertificateCopyAttributeDictionary`, `SecCertificate.c:
/// 6111-6175`). Parsed by OpenSSL; nothing of it is secret.
package struct Certificate: Sendable {
    /// The DER encoding, exactly as given (`v_Data`).
    package let der: [UInt8]
    /// `ctyp`: the X.509 version plus one (3 for v3).
    package let version: Int64
    /// `issr` and `subj`: the normalised name contents (`DistinguishedName`).
    package let normalizedIssuer: [UInt8]
    package let normalizedSubject: [UInt8]
    /// `slnr`: the serial number INTEGER's content octets, a leading 0x00 kept.
    package let serialNumber: [UInt8]
    /// `skid`: the SubjectKeyIdentifier extension's key identifier, when there is one.
    package let subjectKeyID: [UInt8]?
    /// `pkhh`: SHA-1 of the subjectPublicKey BIT STRING's contents; a private key's `klbl`.
    package let publicKeyHash: [UInt8]
    /// `SecCertificateCopySubjectSummary`, the label an add gives it.
    package let summary: String?
    /// The subject's common names, in order (`SecCertificateCopyCommonName` gives the last).
    package let commonNames: [String]

    /// Apple's parser refuses a serial number longer than this (`SecCertificate.c:1830`).
    package static let maximumSerialBytes = 37

    /// Parses `der`; a `CertificateError` saying what is wrong otherwise.
    package init(der: [UInt8]) throws(ObjectError) {
        guard OpenSSL.start() else { throw ObjectError("OpenSSL could not start") }
        ERR_clear_error()
        guard let x509 = OpenSSL.decode(der, { d2i_X509(nil, $0, $1) }, free: { X509_free($0) }) else {
            throw ObjectError("it is not a DER certificate (\(OpenSSL.lastError()))")
        }
        defer { X509_free(x509) }
        self.der = der
        version = Int64(X509_get_version(x509)) + 1
        guard (1...3).contains(version) else { throw ObjectError("its X.509 version \(version) is not 1, 2 or 3") }

        guard let serial = OpenSSL.encode({ i2d_ASN1_INTEGER(X509_get0_serialNumber(x509), $0) }),
            let content = serial.withUnsafeBufferPointer({ DERHeader.read($0, at: 0, limit: $0.count)?.content }),
            !content.isEmpty
        else { throw ObjectError("its serial number cannot be read") }
        guard content.count <= Self.maximumSerialBytes else {
            throw ObjectError("its serial number is \(content.count) bytes long; Apple accepts at most \(Self.maximumSerialBytes)")
        }
        serialNumber = Array(serial[content])

        guard let issuer = Self.normalized(X509_get_issuer_name(x509)), let subject = Self.normalized(X509_get_subject_name(x509))
        else { throw ObjectError("its issuer or subject name is malformed") }
        normalizedIssuer = issuer
        normalizedSubject = subject

        subjectKeyID = X509_get0_subject_key_id(x509).flatMap { OpenSSL.bytes(of: $0) }
        ERR_clear_error()
        guard let bits = X509_get0_pubkey_bitstr(x509), let key = OpenSSL.bytes(of: bits) else { throw ObjectError("it has no public key") }
        publicKeyHash = key.withUnsafeBytes { OpenSSL.sha1($0) }
        summary = SubjectSummary.of(x509)
        commonNames = SubjectSummary.commonNames(of: x509)
    }

    /// The certificate's attribute dictionary (`SecCertificateCopyAttributeDictionary`): what a
    /// query naming the certificate by reference matches (codes literal, as in Apple's dictionary).
    package var referenceAttributes: [String: AttributeValue] {
        var attributes: [String: AttributeValue] = [
            "ctyp": .number(version), "cenc": .number(3), "subj": .data(normalizedSubject),
            "issr": .data(normalizedIssuer), "slnr": .data(serialNumber), "pkhh": .data(publicKeyHash),
        ]
        if let subjectKeyID { attributes["skid"] = .data(subjectKeyID) }
        return attributes
    }

    /// The attributes `SecItemAdd` derives from the certificate: its attribute dictionary and, when
    /// it has one, its subject summary as the label (`infer_cert_label`, `SecItem.m`).
    package var attributes: [String: AttributeValue] {
        var attributes = referenceAttributes
        if let summary { attributes[Schema.label] = .string(summary) }
        return attributes
    }

    /// The certificate in PEM (what `--return ref` prints).
    package static func pem(der: [UInt8]) -> String? {
        guard let x509 = OpenSSL.decode(der, { d2i_X509(nil, $0, $1) }, free: { X509_free($0) }) else { return nil }
        defer { X509_free(x509) }
        return OpenSSL.text { PEM_write_bio_X509($0, x509) == 1 }
    }

    /// A name's normalised content.
    private static func normalized(_ name: OpaquePointer?) -> [UInt8]? {
        guard let name, let der = OpenSSL.encode({ i2d_X509_NAME(name, $0) }) else { return nil }
        return DistinguishedName.normalizedContent(of: der)
    }
}
