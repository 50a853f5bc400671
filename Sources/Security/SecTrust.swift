import Foundation
internal import KeychainCore

/// Certificates, the policies to evaluate them against, and the anchors and date to evaluate them
/// with (SecTrust.h); its verdict is kept until one of those changes. OpenSSL builds and checks the
/// chain (`TrustEvaluation`); the system's anchors are the trust store in /etc/ssl/certs. Safe to
/// use from several threads.
public final class SecTrust: @unchecked Sendable {
    private let lock = NSLock()
    private let certificates: [SecCertificate]
    fileprivate var policies: [SecPolicy]
    fileprivate var anchors: [SecCertificate]?
    fileprivate var anchorsOnly = false
    fileprivate var verifyDate: Date?
    private var verdict: TrustEvaluation.Verdict?

    init(certificates: [SecCertificate], policies: [SecPolicy]) {
        self.certificates = certificates
        self.policies = policies
    }

    /// Changes what the evaluation depends on, and forgets its verdict.
    fileprivate func change(_ body: (SecTrust) -> Void) {
        lock.withLock {
            body(self)
            verdict = nil
        }
    }

    fileprivate func read<T>(_ body: (SecTrust) -> T) -> T { lock.withLock { body(self) } }

    /// The verdict, evaluated when there is none.
    fileprivate func evaluated() -> TrustEvaluation.Verdict {
        lock.withLock {
            if let verdict { return verdict }
            let made = TrustEvaluation.evaluate(
                certificates.map(\.certificate.der), policies: policies.map(\.policy),
                anchors: (anchors ?? []).map(\.certificate.der), systemAnchors: anchors == nil || !anchorsOnly,
                date: Int64((verifyDate ?? Date()).timeIntervalSince1970.rounded(.down)))
            verdict = made
            return made
        }
    }

    fileprivate var leaf: SecCertificate { certificates[0] }

    /// The verdict of the last evaluation, if none changed it since.
    fileprivate var lastVerdict: TrustEvaluation.Verdict? { verdict }

    /// Setting anchors trusts them alone, until SecTrustSetAnchorCertificatesOnly(false).
    fileprivate func setAnchors(_ anchors: [SecCertificate]?) {
        self.anchors = anchors
        anchorsOnly = anchors != nil
    }

}

/// The result of a trust evaluation (SecTrust.h), as `SecTrustEvaluate` and
/// `SecTrustGetTrustResult` give it.
public enum SecTrustResultType: UInt32, Sendable {
    case invalid = 0
    case proceed = 1
    case confirm = 2
    case deny = 3
    /// Trusted, with no user setting that says so: what a chain to an anchor gives.
    case unspecified = 4
    case recoverableTrustFailure = 5
    case fatalTrustFailure = 6
    case otherError = 7
}

/// `SecTrustEvaluateAsyncWithError`'s callback.
public typealias SecTrustWithErrorCallback = (SecTrust, Bool, CFError?) -> Void

// swift-format-ignore: AlwaysUseLowerCamelCase
/// A trust for `certificates` (one SecCertificate, or an array of them, the leaf first) and
/// `policies` (one SecPolicy, an array, or nil for the X.509 basic policy). errSecParam when either
/// holds anything else.
@discardableResult
public func SecTrustCreateWithCertificates(_ certificates: CFTypeRef, _ policies: CFTypeRef?, _ trust: UnsafeMutablePointer<SecTrust?>)
    -> OSStatus
{
    guard let certificates = SecTrustValues.array(of: SecCertificate.self, certificates), !certificates.isEmpty,
        let policies = policies.map({ SecTrustValues.array(of: SecPolicy.self, $0) }) ?? [SecPolicyCreateBasicX509()]
    else { return errSecParam }
    trust.pointee = SecTrust(certificates: certificates, policies: policies)
    return errSecSuccess
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// Replaces the policies (one SecPolicy or an array).
@discardableResult
public func SecTrustSetPolicies(_ trust: SecTrust, _ policies: CFTypeRef) -> OSStatus {
    guard let policies = SecTrustValues.array(of: SecPolicy.self, policies) else { return errSecParam }
    trust.change { $0.policies = policies }
    return errSecSuccess
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The policies, as an array.
@discardableResult
public func SecTrustCopyPolicies(_ trust: SecTrust, _ policies: UnsafeMutablePointer<CFArray?>) -> OSStatus {
    policies.pointee = NSArray(array: trust.read(\.policies))
    return errSecSuccess
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The anchors to trust (nil: the system's again). From then on only they are trusted, unless
/// `SecTrustSetAnchorCertificatesOnly(trust, false)` adds the system's back.
@discardableResult
public func SecTrustSetAnchorCertificates(_ trust: SecTrust, _ anchorCertificates: CFArray?) -> OSStatus {
    guard let anchors = anchorCertificates.map({ SecTrustValues.array(of: SecCertificate.self, $0) }) else {
        trust.change { $0.setAnchors(nil) }
        return errSecSuccess
    }
    guard let anchors else { return errSecParam }
    trust.change { $0.setAnchors(anchors) }
    return errSecSuccess
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// Whether the custom anchors alone are trusted (true), or the system's too (false).
@discardableResult
public func SecTrustSetAnchorCertificatesOnly(_ trust: SecTrust, _ anchorCertificatesOnly: Bool) -> OSStatus {
    trust.change { $0.anchorsOnly = anchorCertificatesOnly }
    return errSecSuccess
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The custom anchors, or nil when none were set.
@discardableResult
public func SecTrustCopyCustomAnchorCertificates(_ trust: SecTrust, _ anchors: UnsafeMutablePointer<CFArray?>) -> OSStatus {
    anchors.pointee = trust.read(\.anchors).map { NSArray(array: $0) }
    return errSecSuccess
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The date the certificates' validity is checked at (default: the time of the evaluation).
@discardableResult
public func SecTrustSetVerifyDate(_ trust: SecTrust, _ verifyDate: CFDate) -> OSStatus {
    trust.change { $0.verifyDate = verifyDate as Date }
    return errSecSuccess
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// Whether the evaluation may fetch intermediates and revocation answers: nothing is ever
/// fetched on Linux, so either answer changes nothing.
@discardableResult
public func SecTrustSetNetworkFetchAllowed(_ trust: SecTrust, _ allowFetch: Bool) -> OSStatus { errSecSuccess }

// swift-format-ignore: AlwaysUseLowerCamelCase
/// Evaluates the trust: true when the chain reaches an anchor and meets every policy; otherwise
/// false, with `error` (when given) in NSOSStatusErrorDomain saying why (errSecNotTrusted,
/// errSecCertificateExpired, errSecHostNameMismatch, …).
@discardableResult
public func SecTrustEvaluateWithError(_ trust: SecTrust, _ error: UnsafeMutablePointer<CFError?>?) -> Bool {
    let verdict = trust.evaluated()
    guard let failure = verdict.failure else {
        error?.pointee = nil
        return true
    }
    error?.pointee = SecTrustValues.error(failure, leaf: trust.leaf)
    return false
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// `SecTrustEvaluateWithError` on a background queue, the result handed to `result` on `queue`.
@discardableResult
public func SecTrustEvaluateAsyncWithError(_ trust: SecTrust, _ queue: DispatchQueue, _ result: @escaping SecTrustWithErrorCallback)
    -> OSStatus
{
    // The callback runs on `queue` only, as Apple's does.
    nonisolated(unsafe) let callback = result
    DispatchQueue.global().async {
        var error: CFError?
        let trusted = SecTrustEvaluateWithError(trust, &error)
        let reported = error
        queue.async { callback(trust, trusted, reported) }
    }
    return errSecSuccess
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// Evaluates the trust and gives its result: `.unspecified` when trusted.
@discardableResult
public func SecTrustEvaluate(_ trust: SecTrust, _ result: UnsafeMutablePointer<SecTrustResultType>) -> OSStatus {
    result.pointee = SecTrustValues.result(trust.evaluated())
    return errSecSuccess
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The result of the last evaluation (`.invalid` before any).
@discardableResult
public func SecTrustGetTrustResult(_ trust: SecTrust, _ result: UnsafeMutablePointer<SecTrustResultType>) -> OSStatus {
    result.pointee = trust.read(\.lastVerdict).map(SecTrustValues.result) ?? .invalid
    return errSecSuccess
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// How many certificates the evaluated chain holds (evaluating it first when needed).
@discardableResult
public func SecTrustGetCertificateCount(_ trust: SecTrust) -> CFIndex { max(trust.evaluated().chain.count, 1) }

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The evaluated chain, leaf first, anchor last when one was reached.
@discardableResult
public func SecTrustCopyCertificateChain(_ trust: SecTrust) -> CFArray? {
    NSArray(array: SecTrustValues.chain(trust))
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The certificate at `ix` of the evaluated chain (0: the leaf).
@discardableResult
public func SecTrustGetCertificateAtIndex(_ trust: SecTrust, _ ix: CFIndex) -> SecCertificate? {
    let chain = SecTrustValues.chain(trust)
    return chain.indices.contains(ix) ? chain[ix] : nil
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The leaf certificate's public key.
@discardableResult
public func SecTrustCopyKey(_ trust: SecTrust) -> SecKey? { SecCertificateCopyKey(trust.leaf) }

// swift-format-ignore: AlwaysUseLowerCamelCase
@discardableResult
public func SecTrustCopyPublicKey(_ trust: SecTrust) -> SecKey? { SecTrustCopyKey(trust) }

/// SecTrust's conversions: arguments to arrays, verdicts to Apple's results and errors.
enum SecTrustValues {
    /// `value` as an array of `T`: one `T`, or an array holding only `T`s; nil otherwise.
    static func array<T>(of type: T.Type, _ value: Any) -> [T]? {
        if let one = value as? T { return [one] }
        guard let many = value as? [Any] else { return nil }
        let typed = many.compactMap { $0 as? T }
        return typed.count == many.count ? typed : nil
    }

    static func chain(_ trust: SecTrust) -> [SecCertificate] {
        let chain = trust.evaluated().chain.compactMap { SecCertificate(der: $0) }
        return chain.isEmpty ? [trust.leaf] : chain
    }

    static func result(_ verdict: TrustEvaluation.Verdict) -> SecTrustResultType {
        guard let failure = verdict.failure else { return .unspecified }
        return failure.isFatal ? .fatalTrustFailure : .recoverableTrustFailure
    }

    /// The status and message Apple's evaluation reports for `failure`, naming the leaf as Apple
    /// names a certificate (its subject summary, in curly quotes).
    static func error(_ failure: TrustEvaluation.Failure, leaf: SecCertificate) -> CFError {
        let name = "“\(leaf.certificate.summary ?? "certificate")”"
        let (status, message): (OSStatus, String) =
            switch failure {
            case .notTrusted: (errSecNotTrusted, "\(name) certificate is not trusted")
            case .expired: (errSecCertificateExpired, "\(name) certificate is expired")
            case .notValidYet: (errSecCertificateNotValidYet, "\(name) certificate is not yet valid")
            case .hostnameMismatch: (errSecHostNameMismatch, "\(name) certificate name does not match input")
            case .notACertificateAuthority: (errSecNoBasicConstraintsCA, "\(name) certificate chain has an issuer that is not a CA")
            case .keyUsage: (errSecInvalidKeyUsageForPolicy, "\(name) certificate is not permitted for this usage")
            case .extendedKeyUsage: (errSecInvalidExtendedKeyUsage, "\(name) certificate is not permitted for this usage")
            case .signature: (errSecInvalidSignature, "\(name) certificate has an invalid signature")
            case .revocationUnchecked:
                (errSecIncompleteCertRevocationCheck, "\(name) certificate revocation status could not be checked (nothing is fetched)")
            case .malformed(let why): (errSecDecode, "\(name) certificate cannot be evaluated: \(why)")
            }
        return CFError(domain: kCFErrorDomainOSStatus as String, code: Int(status), description: message)
    }
}
