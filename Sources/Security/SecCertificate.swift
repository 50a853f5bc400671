import Foundation
internal import KeychainCore

/// An X.509 certificate, as `SecCertificateCreateWithData` makes one and `kSecReturnRef` returns
/// one: immutable, equal to another when their DER bytes are (as `CFEqual` compares two), and
/// hashable, as Swift makes every CoreFoundation type. Nothing in it is secret.
public final class SecCertificate: Sendable {
    let certificate: Certificate

    init(_ certificate: Certificate) { self.certificate = certificate }

    /// The certificate `bytes` encode, or `nil` when they are not exactly one DER certificate.
    convenience init?(der bytes: [UInt8]) {
        guard let certificate = try? Certificate(der: bytes) else { return nil }
        self.init(certificate)
    }
}

extension SecCertificate: Hashable {
    public static func == (left: SecCertificate, right: SecCertificate) -> Bool { left.certificate.der == right.certificate.der }
    public func hash(into hasher: inout Hasher) { hasher.combine(certificate.der) }
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The certificate `data` holds in DER, or `nil` when it holds anything else (PEM, a key, bytes
/// after the certificate).
@discardableResult
public func SecCertificateCreateWithData(_ allocator: CFAllocator?, _ data: CFData) -> SecCertificate? {
    SecCertificate(der: [UInt8](data as Data))
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The certificate's DER bytes, exactly as it was made from.
@discardableResult
public func SecCertificateCopyData(_ certificate: SecCertificate) -> CFData {
    NSData(data: Data(certificate.certificate.der))
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// A name for people: the subject's common names, else its organizational unit or organization,
/// else an e-mail or DNS name (the label `SecItemAdd` gives a certificate added by reference).
@discardableResult
public func SecCertificateCopySubjectSummary(_ certificate: SecCertificate) -> CFString? {
    certificate.certificate.summary.map { $0 as NSString }
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The subject's last common name; errSecInternal (-26276) when it has none, as on Apple platforms.
@discardableResult
public func SecCertificateCopyCommonName(_ certificate: SecCertificate, _ commonName: UnsafeMutablePointer<CFString?>) -> OSStatus {
    guard let last = certificate.certificate.commonNames.last else { return errSecInternal }
    commonName.pointee = last as NSString
    return errSecSuccess
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The issuer's name normalised as the keychain stores `kSecAttrIssuer`, as a DER SEQUENCE.
@discardableResult
public func SecCertificateCopyNormalizedIssuerSequence(_ certificate: SecCertificate) -> CFData? {
    NSData(data: Data(DistinguishedName.sequence(ofContent: certificate.certificate.normalizedIssuer)))
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The subject's name normalised as the keychain stores `kSecAttrSubject`, as a DER SEQUENCE.
@discardableResult
public func SecCertificateCopyNormalizedSubjectSequence(_ certificate: SecCertificate) -> CFData? {
    NSData(data: Data(DistinguishedName.sequence(ofContent: certificate.certificate.normalizedSubject)))
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The serial number's content bytes (a leading zero kept), as `kSecAttrSerialNumber` holds them.
@discardableResult
public func SecCertificateCopySerialNumberData(_ certificate: SecCertificate, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?)
    -> CFData?
{
    NSData(data: Data(certificate.certificate.serialNumber))
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The serial number's content bytes (iOS 10.3's spelling, before `…SerialNumberData`).
@discardableResult
public func SecCertificateCopySerialNumber(_ certificate: SecCertificate) -> CFData? {
    SecCertificateCopySerialNumberData(certificate, nil)
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The serial number's content bytes (macOS's spelling, with an error parameter never set).
@discardableResult
public func SecCertificateCopySerialNumber(_ certificate: SecCertificate, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
    SecCertificateCopySerialNumberData(certificate, error)
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The subject's public key as a `SecKey` (RSA or EC); `nil` for a key of another kind
/// (SecCertificate.h: "NULL if the public key has an unsupported algorithm").
@discardableResult
public func SecCertificateCopyKey(_ certificate: SecCertificate) -> SecKey? {
    certificate.certificate.publicKey.map(SecKey.init)
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The subject's public key, as iOS spells the call: SecCertificateCopyKey. (Apple deprecates
/// it; here it carries no deprecation, so a port of old code builds with -warnings-as-errors.)
@discardableResult
public func SecCertificateCopyPublicKey(_ certificate: SecCertificate) -> SecKey? {
    SecCertificateCopyKey(certificate)
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The subject's public key, as macOS spells the call: written to `key`; errSecUnsupportedFormat
/// (and `nil`) for a key of another kind.
@discardableResult
public func SecCertificateCopyPublicKey(_ certificate: SecCertificate, _ key: UnsafeMutablePointer<SecKey?>) -> OSStatus {
    key.pointee = SecCertificateCopyKey(certificate)
    return key.pointee == nil ? errSecUnsupportedFormat : errSecSuccess
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The start of the certificate's validity period.
@discardableResult
public func SecCertificateCopyNotValidBeforeDate(_ certificate: SecCertificate) -> CFDate? {
    certificate.certificate.validity.map { NSDate(timeIntervalSince1970: TimeInterval($0.notBefore)) }
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The end of the certificate's validity period.
@discardableResult
public func SecCertificateCopyNotValidAfterDate(_ certificate: SecCertificate) -> CFDate? {
    certificate.certificate.validity.map { NSDate(timeIntervalSince1970: TimeInterval($0.notAfter)) }
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The e-mail addresses the certificate names: its subject's emailAddress values, then its
/// subject alternative names' (an empty array when none).
@discardableResult
public func SecCertificateCopyEmailAddresses(_ certificate: SecCertificate, _ emailAddresses: UnsafeMutablePointer<CFArray?>) -> OSStatus {
    emailAddresses.pointee = NSArray(array: certificate.certificate.emailAddresses.map { $0 as NSString })
    return errSecSuccess
}
