import Foundation
internal import KeychainCore

/// What a trust evaluation checks a chain for (SecPolicy.h): X.509 basics, a TLS server or client
/// (and its host name), or revocation. Immutable.
public final class SecPolicy: Sendable {
    let policy: TrustEvaluation.Policy

    init(_ policy: TrustEvaluation.Policy) { self.policy = policy }
}

// Revocation policy constants (SecPolicy.h), OR'd into SecPolicyCreateRevocation's flags.
public let kSecRevocationOCSPMethod: CFOptionFlags = 1 << 0
public let kSecRevocationCRLMethod: CFOptionFlags = 1 << 1
public let kSecRevocationPreferCRL: CFOptionFlags = 1 << 2
public let kSecRevocationRequirePositiveResponse: CFOptionFlags = 1 << 3
public let kSecRevocationNetworkAccessDisabled: CFOptionFlags = 1 << 4
public let kSecRevocationUseAnyAvailableMethod: CFOptionFlags = kSecRevocationOCSPMethod | kSecRevocationCRLMethod

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The X.509 basic policy: signatures, validity dates and basic constraints up to an anchor.
@discardableResult
public func SecPolicyCreateBasicX509() -> SecPolicy { SecPolicy(.basicX509) }

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The TLS policy: the basic checks, the leaf's extended key usage allowing a server (`server`) or
/// a client, and, given `hostname`, the leaf naming it (subjectAltName, wildcards as RFC 6125).
@discardableResult
public func SecPolicyCreateSSL(_ server: Bool, _ hostname: CFString?) -> SecPolicy {
    SecPolicy(.ssl(server: server, hostname: hostname.map { String($0) }))
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The revocation policy for `revocationFlags` (kSecRevocation…). Nothing is fetched on Linux, as
/// with kSecRevocationNetworkAccessDisabled on Apple platforms: the check passes unless the flags
/// require a positive response, which then fails (errSecIncompleteCertRevocationCheck).
@discardableResult
public func SecPolicyCreateRevocation(_ revocationFlags: CFOptionFlags) -> SecPolicy? {
    SecPolicy(.revocation(requirePositiveResponse: revocationFlags & kSecRevocationRequirePositiveResponse != 0))
}
