import Foundation
internal import KeychainCore

/// kSecValueRef and kSecReturnRef: the objects the library provides (SecCertificate, SecKey)
/// stand for their items as `SecItem.m` makes them stand.
extension SecItemDictionary {
    /// A kSecValueRef the library provides.
    enum Reference {
        case certificate(SecCertificate)
        case key(SecKey)

        /// The object `value` is; errSecParam for any other (`errSecValueRefUnsupported` is
        /// errSecParam, SecBasePriv.h).
        init(_ value: Any) throws(SecItemRefusal) {
            if let certificate = value as? SecCertificate {
                self = .certificate(certificate)
            } else if let key = value as? SecKey {
                self = .key(key)
            } else {
                throw .param("kSecValueRef takes a SecCertificate, a SecKey or a SecIdentity")
            }
        }

        /// The object's attribute dictionary (`SecItemCopyAttributeDictionary`): a certificate's
        /// whole; a key's without the usage flags and kSecAttrIsPermanent in a query, which vary
        /// between Apple's releases (`AttributeCreateFilteredOutSecAttrs`).
        func attributes(forQuery: Bool) -> [String: AttributeValue] {
            switch self {
            case .certificate(let certificate): return certificate.certificate.referenceAttributes
            case .key(let key):
                guard forQuery else { return key.key.attributes }
                return key.key.attributes.filter { !Schema.keyUsage.contains($0.key) && $0.key != Schema.isPermanent }
            }
        }

        var itemClass: ItemClass {
            switch self {
            case .certificate: .certificate
            case .key: .key
            }
        }

        /// Apple's external representation: a certificate's DER, a key's bytes.
        var data: Data {
            switch self {
            case .certificate(let certificate): Data(certificate.certificate.der)
            case .key(let key): key.key.external.withUnsafeBytes { Data($0) }
            }
        }
    }

    /// kSecValueRef as `SecItemAttributesPrepare` (`SecItem.m`) expands it: the object's attribute
    /// dictionary, its class and, for an add, its data fill in what the caller left out; what the
    /// caller gave wins, its own kSecValueData included. A query matches on the attributes alone:
    /// securityd reads a query's data for nothing, so a private key's bytes are not copied for one.
    mutating func adopt(_ reference: Reference, forQuery: Bool) {
        let given = Set(request.attributes.map(\.code))
        for (code, value) in reference.attributes(forQuery: forQuery).sorted(by: { $0.key < $1.key }) where !given.contains(code) {
            request.attributes.append((code: code, input: .value(value)))
        }
        if request.itemClass == nil { request.itemClass = reference.itemClass.rawValue }
        if data == nil, !forQuery { data = reference.data }
    }

    /// The label `SecItemAdd` gives a certificate added by reference without one
    /// (`infer_cert_label`, `SecItem.m`): its subject summary.
    mutating func inferLabel() {
        guard case .certificate(let certificate)? = reference, let summary = certificate.certificate.summary,
            !request.attributes.contains(where: { $0.code == Schema.label })
        else { return }
        request.attributes.append((code: Schema.label, input: .value(.string(summary))))
    }

    /// kSecReturnRef: the engine opens a certificate's or key's data, from which its object is
    /// made (`SecItemResult`); for an identity, its key's data and its certificate too. A key's
    /// data is handed over as Apple hands a software key's, when it is extractable. A password has
    /// no object, and Apple returns none.
    mutating func askForObjects() {
        guard let itemClass = request.itemClass.flatMap(ItemClass.init(parsing:)) else { return }
        if itemClass == .key || itemClass == .identity { request.allowPrivateKeyExport = true }
        guard returns.contains(.reference) else { return }
        switch itemClass {
        case .certificate, .key: request.returns = .value(returns.subtracting(.reference).union(.data))
        case .identity: request.returns = .value(returns.union(.data))
        case .genericPassword, .internetPassword: break
        }
    }
}
