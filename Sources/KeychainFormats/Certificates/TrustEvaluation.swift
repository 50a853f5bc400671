import CCrypto
import Glibc

/// Certificate trust as `SecTrustEvaluateWithError` decides it (`SecTrustServer.c`, `SecPolicy.c`),
/// with OpenSSL building and checking the chain: each signature, the validity dates at the
/// evaluation's date, basic constraints, key usage and extended key usage for the policy, and the
/// host name for an SSL policy. The anchors are the caller's certificates, the system's trust store
/// (`/etc/ssl/certs`, as Apple's system anchors), or both. Nothing is fetched: no intermediate
/// from an AIA URL, no OCSP or CRL (a revocation policy that requires a positive answer fails).
package enum TrustEvaluation {
    /// What a SecPolicy asks of the chain.
    package enum Policy: Sendable, Equatable {
        /// `SecPolicyCreateBasicX509`: a chain of valid signatures and dates to an anchor.
        case basicX509
        /// `SecPolicyCreateSSL`: the same, the leaf allowed for TLS servers (or clients) by its
        /// extended key usage, and named `hostname` when one is given.
        case ssl(server: Bool, hostname: String?)
        /// `SecPolicyCreateRevocation`: `requirePositiveResponse` fails, since nothing is fetched.
        case revocation(requirePositiveResponse: Bool)
    }

    /// Why a chain is not trusted, each as Apple names it.
    package enum Failure: Sendable, Equatable {
        case notTrusted
        case expired
        case notValidYet
        case hostnameMismatch
        case notACertificateAuthority
        case keyUsage
        case extendedKeyUsage
        case signature
        case revocationUnchecked
        case malformed(String)

        /// Whether no user's trust setting could make the chain acceptable (Apple's
        /// kSecTrustResultFatalTrustFailure): a bad signature or a malformed certificate.
        package var isFatal: Bool {
            switch self {
            case .signature, .malformed: true
            default: false
            }
        }
    }

    /// What an evaluation came to: the chain built (DER, leaf first, anchor last when one was
    /// reached) and the first failure, if any.
    package struct Verdict: Sendable {
        package let chain: [[UInt8]]
        package let failure: Failure?
    }

    /// Evaluates `certificates` (the leaf first, then any intermediates in any order) against
    /// `policies` at `date` (seconds since 1970), anchored at `anchors` and, with `systemAnchors`, the
    /// system's store.
    package static func evaluate(
        _ certificates: [[UInt8]], policies: [Policy], anchors: [[UInt8]], systemAnchors: Bool, date: Int64
    ) -> Verdict {
        guard OpenSSL.start(), let first = certificates.first else { return Verdict(chain: [], failure: .malformed("no certificate")) }
        var chain = [first]
        for policy in policies.isEmpty ? [.basicX509] : policies {
            let one = evaluate(certificates, policy: policy, anchors: anchors, systemAnchors: systemAnchors, date: date)
            if one.chain.count > chain.count { chain = one.chain }
            if let failure = one.failure { return Verdict(chain: chain, failure: failure) }
        }
        return Verdict(chain: chain, failure: nil)
    }

    private static func evaluate(_ certificates: [[UInt8]], policy: Policy, anchors: [[UInt8]], systemAnchors: Bool, date: Int64) -> Verdict
    {
        if case .revocation(let required) = policy {
            // No OCSP or CRL is fetched: a check that must answer cannot; otherwise it soft-fails, as Apple's does offline.
            return Verdict(chain: [], failure: required ? .revocationUnchecked : nil)
        }
        var parsed: [OpaquePointer] = []
        defer { for x509 in parsed { X509_free(x509) } }
        for der in certificates + anchors {
            guard let x509 = OpenSSL.decode(der, { d2i_X509(nil, $0, $1) }, free: { X509_free($0) }) else {
                return Verdict(chain: [], failure: .malformed("a certificate is not DER"))
            }
            parsed.append(x509)
        }
        guard let store = X509_STORE_new(), let context = X509_STORE_CTX_new(), let untrusted = OPENSSL_sk_new_null() else {
            return Verdict(chain: [], failure: .malformed("OpenSSL could not allocate"))
        }
        defer {
            X509_STORE_CTX_free(context)
            X509_STORE_free(store)
            OPENSSL_sk_free(untrusted)
        }
        for anchor in parsed.dropFirst(certificates.count) { X509_STORE_add_cert(store, anchor) }
        if systemAnchors { X509_STORE_set_default_paths(store) }
        for intermediate in parsed[1..<certificates.count] { OPENSSL_sk_push(untrusted, UnsafeRawPointer(intermediate)) }
        guard X509_STORE_CTX_init(context, store, parsed[0], untrusted) == 1 else {
            return Verdict(chain: [], failure: .malformed("OpenSSL could not start the evaluation"))
        }
        let parameters = X509_STORE_CTX_get0_param(context)
        X509_VERIFY_PARAM_set_time(parameters, time_t(date))
        // An anchor is trusted as it is, whether or not it is self-signed (Apple's anchors may be intermediates).
        if !anchors.isEmpty { X509_VERIFY_PARAM_set_flags(parameters, UInt(X509_V_FLAG_PARTIAL_CHAIN)) }
        if case .ssl(let server, let hostname) = policy {
            X509_STORE_CTX_set_purpose(context, server ? X509_PURPOSE_SSL_SERVER : X509_PURPOSE_SSL_CLIENT)
            if let hostname, !hostname.isEmpty { X509_VERIFY_PARAM_set1_host(parameters, hostname, 0) }
        }
        ERR_clear_error()
        let trusted = X509_verify_cert(context) == 1
        let failure = trusted ? nil : Self.failure(X509_STORE_CTX_get_error(context))
        ERR_clear_error()
        return Verdict(chain: Self.chain(of: context), failure: failure)
    }

    /// The chain OpenSSL built (as far as it got), leaf first.
    private static func chain(of context: OpaquePointer) -> [[UInt8]] {
        guard let chain = X509_STORE_CTX_get1_chain(context) else { return [] }
        let stack = UnsafeRawPointer(chain)
        let certificates = (0..<keychainctl_stack_count(stack)).compactMap { keychainctl_stack_at(stack, $0).map(OpaquePointer.init) }
        defer {
            for x509 in certificates { X509_free(x509) }
            OPENSSL_sk_free(chain)
        }
        return certificates.compactMap { x509 in OpenSSL.encode { i2d_X509(x509, $0) } }
    }

    private static func failure(_ error: Int32) -> Failure {
        switch error {
        case X509_V_ERR_CERT_HAS_EXPIRED, X509_V_ERR_CRL_HAS_EXPIRED: .expired
        case X509_V_ERR_CERT_NOT_YET_VALID, X509_V_ERR_CRL_NOT_YET_VALID: .notValidYet
        case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH: .hostnameMismatch
        case X509_V_ERR_INVALID_CA, X509_V_ERR_PATH_LENGTH_EXCEEDED: .notACertificateAuthority
        case X509_V_ERR_KEYUSAGE_NO_CERTSIGN, X509_V_ERR_KEYUSAGE_NO_DIGITAL_SIGNATURE: .keyUsage
        case X509_V_ERR_INVALID_PURPOSE: .extendedKeyUsage
        case X509_V_ERR_CERT_SIGNATURE_FAILURE, X509_V_ERR_UNABLE_TO_DECRYPT_CERT_SIGNATURE,
            X509_V_ERR_UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY:
            .signature
        case X509_V_ERR_ERROR_IN_CERT_NOT_BEFORE_FIELD, X509_V_ERR_ERROR_IN_CERT_NOT_AFTER_FIELD:
            .malformed(String(cString: X509_verify_cert_error_string(Int(error))))
        default: .notTrusted
        }
    }
}
