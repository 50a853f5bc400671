import CCrypto
import KeychainFoundation

/// `SecCertificateCopySubjectSummary` (`SecCertificate.c:4229-4345`): the label Apple gives a
/// certificate added by reference.
///
/// The subject's attributes are ranked common name > organizational unit > organization > any
/// other; every value of the best rank is kept, joined with ", " in reverse order of appearance.
/// A description attribute makes it "CN (description)" when a common name was found. Without a
/// common name, the first e-mail address (subject alternative names, then the subject's
/// emailAddress) wins, else the first DNS name among the subject alternative names.
package enum SubjectSummary {
    private enum Rank: Int { case none, printable, organization, unit, commonName }

    package static func of(_ x509: OpaquePointer) -> String? {
        guard let name = X509_get_subject_name(x509) else { return nil }
        var rank = Rank.none
        var summary: String?
        var description: String?
        var emails: [String] = []
        for index in 0..<X509_NAME_entry_count(name) {
            guard let entry = X509_NAME_get_entry(name, index), let value = text(UnsafePointer(X509_NAME_ENTRY_get_data(entry))) else {
                continue
            }
            let kind: Rank
            switch OBJ_obj2nid(X509_NAME_ENTRY_get_object(entry)) {
            case NID_commonName: kind = .commonName
            case NID_organizationalUnitName: kind = .unit
            case NID_organizationName: kind = .organization
            case NID_description:
                description = description.map { "\(value), \($0)" } ?? value
                kind = .printable
            case NID_pkcs9_emailAddress:
                emails.append(value)
                kind = .printable
            default: kind = .printable
            }
            if kind.rawValue > rank.rawValue {
                rank = kind
                summary = value
            } else if kind == rank {
                summary = summary.map { "\(value), \($0)" } ?? value
            }
        }
        if rank == .commonName {
            if let description, let found = summary { return "\(found) (\(description))" }
            return summary
        }
        let alternatives = alternativeNames(x509)
        return (alternatives.emails + emails).first ?? alternatives.dnsNames.first ?? summary
    }

    /// The subject's common names in the order they appear (`SecCertificateCopyCommonNames`).
    package static func commonNames(of x509: OpaquePointer) -> [String] {
        guard let name = X509_get_subject_name(x509) else { return [] }
        return (0..<X509_NAME_entry_count(name)).compactMap { index in
            guard let entry = X509_NAME_get_entry(name, index), OBJ_obj2nid(X509_NAME_ENTRY_get_object(entry)) == NID_commonName else {
                return nil
            }
            return text(UnsafePointer(X509_NAME_ENTRY_get_data(entry)))
        }
    }

    /// The certificate's e-mail addresses (`SecCertificateCopyEmailAddresses`): the subject's
    /// emailAddress values, then the subject alternative names' rfc822Name ones, in order.
    package static func emailAddresses(of x509: OpaquePointer) -> [String] {
        var emails: [String] = []
        if let name = X509_get_subject_name(x509) {
            for index in 0..<X509_NAME_entry_count(name) {
                guard let entry = X509_NAME_get_entry(name, index),
                    OBJ_obj2nid(X509_NAME_ENTRY_get_object(entry)) == NID_pkcs9_emailAddress,
                    let value = text(UnsafePointer(X509_NAME_ENTRY_get_data(entry)))
                else { continue }
                emails.append(value)
            }
        }
        return emails + alternativeNames(x509).emails
    }

    /// The subject alternative names' e-mail addresses and DNS-like names, in order.
    private static func alternativeNames(_ x509: OpaquePointer) -> (emails: [String], dnsNames: [String]) {
        guard let raw = X509_get_ext_d2i(x509, NID_subject_alt_name, nil, nil) else { return ([], []) }
        let names = OpaquePointer(raw)
        defer { GENERAL_NAMES_free(names) }
        var emails: [String] = []
        var dnsNames: [String] = []
        for index in 0..<OPENSSL_sk_num(names) {
            guard let general = OPENSSL_sk_value(names, index)?.assumingMemoryBound(to: GENERAL_NAME.self) else { continue }
            var type: Int32 = 0
            guard let value = GENERAL_NAME_get0_value(general, &type) else { continue }
            let string = value.assumingMemoryBound(to: ASN1_STRING.self)
            if type == GEN_EMAIL, let text = text(UnsafePointer(string)) {
                emails.append(text)
            } else if type == GEN_DNS, let text = text(UnsafePointer(string)), looksLikeDNSName(text) {
                dnsNames.append(text)
            }
        }
        return (emails, dnsNames)
    }

    /// `SecFrameworkIsDNSName`'s shape, simply: dot-separated labels of letters, digits, '-',
    /// '_' or '*', none empty, the last holding a letter (so an IP address is not one).
    package static func looksLikeDNSName(_ text: String) -> Bool {
        let labels = text.split(separator: ".", omittingEmptySubsequences: false)
        guard !text.isEmpty, text.utf8.count <= 255, labels.allSatisfy({ !$0.isEmpty }) else { return false }
        for label in labels {
            guard label.utf8.allSatisfy({ isLetter($0) || (0x30...0x39).contains($0) || $0 == 0x2D || $0 == 0x5F || $0 == 0x2A })
            else { return false }
        }
        return labels.last.map { $0.utf8.contains(where: isLetter) } ?? false
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }

    /// A string value as UTF-8 text (any ASN.1 string type); `nil` when it is not a string.
    private static func text(_ string: UnsafePointer<ASN1_STRING>?) -> String? {
        guard let string else { return nil }
        var output: UnsafeMutablePointer<UInt8>?
        let count = ASN1_STRING_to_UTF8(&output, string)
        guard count >= 0, let output else { return nil }
        defer { CRYPTO_free(output, #fileID, #line) }
        return String(decoding: UnsafeBufferPointer(start: output, count: Int(count)), as: UTF8.self)
    }
}
