import Foundation
import KeychainCore

/// Results shaped as `SecItemCopyMatching` returns them (`SecItemServer.c`, `handle_result`): one
/// return type alone is the bare value (data, or a persistent reference as data), several a
/// dictionary of attributes with `v_Data` and `v_PersistentRef`; kSecMatchLimitOne one of these,
/// any other limit an array of them. Attribute values come back typed as stored.
enum SecItemResult {
    static func shape(_ found: [Keychain.FoundItem], returns: ReturnOptions, limit: MatchLimit) -> CFTypeRef? {
        // A password has no object to return as a reference: Apple leaves it out.
        let returns = returns.subtracting(.reference)
        guard !returns.isEmpty else { return nil }
        let shaped = found.map { one($0, returns: returns) }
        if limit == .one { return shaped.first ?? nil }
        return NSArray(array: shaped.compactMap { $0 })
    }

    static func one(_ found: Keychain.FoundItem, returns: ReturnOptions) -> AnyObject? {
        if returns == .data { return found.secret.map { $0.withUnsafeBytes { NSData(bytes: $0.baseAddress, length: $0.count) } } }
        if returns == .persistentRef { return NSData(data: Data(found.item.persistentRef.bytes)) }
        var dictionary: [String: Any] = [:]
        if returns.contains(.attributes) { dictionary = attributes(of: found.item) }
        if returns.contains(.data), let secret = found.secret { dictionary["v_Data"] = secret.withUnsafeBytes { Data($0) } }
        if returns.contains(.persistentRef) { dictionary["v_PersistentRef"] = Data(found.item.persistentRef.bytes) }
        return NSDictionary(dictionary: dictionary)
    }

    /// The item's attributes as Apple returns them: its class, and every stored attribute but those
    /// the keychain keeps to itself (an App Clip's mark, the access control's stored text).
    static func attributes(of item: Item) -> [String: Any] {
        var dictionary: [String: Any] = ["class": item.itemClass.rawValue]
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
