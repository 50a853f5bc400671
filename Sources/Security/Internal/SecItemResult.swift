import Foundation
internal import KeychainCore

/// Results shaped as `SecItemCopyMatching` returns them (`SecItemServer.c`, `handle_result`;
/// `SecItem.m`, `SecItemResultProcess`): one return type alone is the bare value (data, a
/// persistent reference as data, or a certificate's or key's object), several a dictionary of
/// attributes with `v_Data`, `v_PersistentRef` and `v_Ref`; kSecMatchLimitOne one of these, any
/// other limit an array of them. Attribute values come back typed as stored.
enum SecItemResult {
    /// `returns` is what the caller asked for; a certificate's or key's object is made from its
    /// data, which the engine was asked for in its place.
    static func shape(_ found: [Keychain.FoundItem], returns: ReturnOptions, limit: MatchLimit) -> CFTypeRef? {
        // A password has no object: asked for its reference alone, Apple returns nothing.
        guard !(found.first?.item.itemClass.hasReference == true ? returns : returns.subtracting(.reference)).isEmpty else {
            return nil
        }
        let shaped = found.map { one($0, returns: returns) }
        if limit == .one { return shaped.first ?? nil }
        return NSArray(array: shaped.compactMap { $0 })
    }

    static func one(_ found: Keychain.FoundItem, returns asked: ReturnOptions) -> AnyObject? {
        let reference = asked.contains(.reference) ? object(of: found) : nil
        let returns = asked.subtracting(.reference)
        if returns.isEmpty { return reference }
        if returns == .data, reference == nil {
            return found.secret.map { $0.withUnsafeBytes { NSData(bytes: $0.baseAddress, length: $0.count) } }
        }
        if returns == .persistentRef, reference == nil { return NSData(data: Data(found.item.persistentRef.bytes)) }
        var dictionary: [String: Any] = [:]
        if returns.contains(.attributes) { dictionary = attributes(of: found.item) }
        if returns.contains(.data), let secret = found.secret { dictionary[SecItemKey.valueData] = secret.withUnsafeBytes { Data($0) } }
        if returns.contains(.persistentRef) { dictionary[SecItemKey.valuePersistentRef] = Data(found.item.persistentRef.bytes) }
        if let reference { dictionary[SecItemKey.valueRef] = reference }
        return NSDictionary(dictionary: dictionary)
    }

    /// The object a certificate, key or identity item holds. A password has none, and Apple
    /// leaves it out; data that is not the object its class says (added raw) makes none either.
    static func object(of found: Keychain.FoundItem) -> AnyObject? {
        guard let data = found.secret else { return nil }
        switch found.item.itemClass {
        case .certificate: return data.withUnsafeBytes { SecCertificate(der: Array($0)) }
        case .key: return SecKey(item: found.item, data: data)
        case .identity:
            guard let certificate = found.certificate.flatMap(SecCertificate.init(der:)), let key = SecKey(item: found.item, data: data)
            else { return nil }
            return SecIdentity(certificate: certificate, privateKey: key)
        case .genericPassword, .internetPassword: return nil
        }
    }

    /// The item's attributes as Apple returns them: its class, and every stored attribute but those
    /// the keychain keeps to itself (an App Clip's mark, the access control's stored text).
    static func attributes(of item: Item) -> [String: Any] {
        var dictionary: [String: Any] = [SecItemKey.itemClass: item.itemClass.rawValue]
        for (code, value) in item.attributes where code != Schema.appClipItem && code != Schema.accessControl {
            dictionary[code] = object(value)
        }
        if item.accessControl.hasACL { dictionary[Schema.accessControl] = SecAccessControl(item.accessControl) }
        return dictionary
    }

    static func object(_ value: AttributeValue) -> Any {
        switch value {
        case .string(let text), .fourCharCode(let text): text
        case .data(let bytes): Data(bytes)
        case .number(let number): NSNumber(value: number)
        case .bool(let flag): NSNumber(value: flag)
        case .date(let milliseconds): Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        }
    }
}
