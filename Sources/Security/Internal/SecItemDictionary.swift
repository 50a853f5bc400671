import Foundation
internal import KeychainCore

/// A SecItem dictionary read as Apple's `SecItemServer.c` reads one (`query_add_attribute`,
/// `query_add_return`, `query_add_use`): each key to its place in the engine's request, each
/// value bound as `SecDbItem.c` copies it for its attribute (a string stays a string, data stays
/// data, a number a number). A key of a kind the library does not provide is errSecUnimplemented,
/// a value of a type the key does not take errSecParam: never a silent drop.
struct SecItemDictionary {
    var request = ItemRequest()
    /// kSecValueData.
    var data: Data?
    /// kSecValueData in guarded memory, as the engine takes a secret.
    var secret: SecretBytes? { data.map { data in data.withUnsafeBytes { SecretBytes(copying: $0) } } }
    /// kSecAttrAccessControl.
    var accessControl: SecAccessControl?
    /// kSecUseAuthenticationUI (kSecUseNoAuthenticationUI is `fail`).
    var ui: Authentication.UI = .allow
    /// kSecUseAuthenticationContext: an LAContext, whose evaluation answers the item's prompts.
    var context: (any SecAuthenticationContext)?
    /// Whether a return key was given at all.
    var asksForReturns = false
    /// What the return keys ask for, as the caller gave them (`request.returns` is what the
    /// engine is asked: an object's data, from which the object is made).
    var returns: ReturnOptions = []
    /// kSecValueRef: a certificate or key whose attributes stand in for those the caller left out.
    var reference: Reference?
    /// kSecValueRef naming an identity: the call is made on its certificate and its key instead.
    var identity: SecIdentity?

    /// Keys that change nothing on this keychain: it is always the data-protection keychain
    /// (kSecUseDataProtectionKeychain), there is nobody to show a prompt's reason to
    /// (kSecUseOperationPrompt), and a persistent reference attribute is the keychain's own.
    private static let ignored: Set<String> = [
        SecItemKey.dataProtectionKeychain, SecItemKey.operationPrompt, SecItemKey.persistentReference,
    ]

    /// The four-character keys the switch below reads itself (a few attributes, and
    /// kSecUseDataProtectionKeychain, "nleg").
    private static let readAsKeys = [
        Schema.accessControl, Schema.synchronizable, Schema.accessGroup, Schema.protection, SecItemKey.dataProtectionKeychain,
    ]

    /// Whether `key` is an attribute the switch would reach only at its four-character case:
    /// four ASCII characters, not `m_`/`u_` (match and use keys), not one it reads itself.
    private static func isPlainAttribute(_ key: String) -> Bool {
        let utf8 = key.utf8
        guard utf8.count == 4, key.utf16.count == 4 else { return false }
        let first = utf8.first!, second = utf8[utf8.index(after: utf8.startIndex)]
        if second == UInt8(ascii: "_"), first == UInt8(ascii: "m") || first == UInt8(ascii: "u") { return false }
        return !readAsKeys.contains(key)
    }

    /// Keys are told apart as `SecDbQuery.c` (`query_applier`) tells them: four characters make an
    /// attribute, a longer key is a class, match, return, use or value key by its first letter.
    /// `forQuery`: the dictionary is a query (SecItemCopyMatching, SecItemDelete, SecItemUpdate's
    /// first), not attributes to write, which changes what a key's reference stands for.
    init(_ dictionary: CFDictionary?, forQuery: Bool) throws(SecItemRefusal) {
        guard let dictionary else { throw .param("the dictionary is NULL") }
        // Attributes are bound once the class is known: a key's kSecAttrKeyType ("73") is a string
        // of its class's own, where the other classes' `type` is a four-character code.
        var attributes: [(code: String, value: Any)] = []
        for (key, value) in try Self.entries(dictionary) {
            // Most keys are plain attributes: told apart before the switch, which compares a key
            // with each case in turn (a fifth of the dictionary's reading).
            if Self.isPlainAttribute(key) {
                attributes.append((key, value))
                continue
            }
            switch key {
            case SecItemKey.itemClass:
                guard let text = Self.string(value) else { throw .param("kSecClass takes a class constant") }
                request.itemClass = text
            case SecItemKey.matchLimit:
                if let text = Self.string(value) {
                    switch text {
                    case SecItemKey.matchLimitOne: request.limit = .value(.one)
                    case SecItemKey.matchLimitAll: request.limit = .value(.all)
                    default: throw .param("kSecMatchLimit takes kSecMatchLimitOne, kSecMatchLimitAll or a number")
                    }
                } else if let number = value as? NSNumber, number.intValue > 0 {
                    request.limit = .value(number.intValue == 1 ? .one : .count(number.intValue))
                } else {
                    throw .param("kSecMatchLimit takes kSecMatchLimitOne, kSecMatchLimitAll or a positive number")
                }
            case SecItemKey.returnData, SecItemKey.returnAttributes, SecItemKey.returnPersistentRef, SecItemKey.returnRef:
                guard let flag = Self.bool(value) else { throw .param("\(key) takes a boolean") }
                asksForReturns = true
                let option: ReturnOptions =
                    switch key {
                    case SecItemKey.returnData: .data
                    case SecItemKey.returnAttributes: .attributes
                    case SecItemKey.returnPersistentRef: .persistentRef
                    default: .reference
                    }
                if flag { returns.insert(option) }
            case SecItemKey.valueData:
                guard let bytes = value as? Data else { throw .param("kSecValueData takes data") }
                data = bytes
            case SecItemKey.valueRef:
                if let named = value as? SecIdentity { identity = named } else { reference = try Reference(value) }
            case SecItemKey.valuePersistentRef:
                guard let bytes = value as? Data else { throw .param("kSecValuePersistentRef takes data") }
                request.persistentRef = Data(bytes).base64EncodedString()
            case Schema.accessControl:
                guard let control = value as? SecAccessControl else { throw .param("kSecAttrAccessControl takes a SecAccessControl") }
                accessControl = control
            case Schema.synchronizable:
                if let text = Self.string(value) {
                    guard text == SecItemKey.synchronizableAny else {
                        throw .param("kSecAttrSynchronizable takes a boolean or kSecAttrSynchronizableAny")
                    }
                    request.sync = .any
                } else if let flag = Self.bool(value) {
                    request.sync = flag ? .yes : .no
                } else {
                    throw .param("kSecAttrSynchronizable takes a boolean or kSecAttrSynchronizableAny")
                }
            case Schema.accessGroup, Schema.protection:
                // Values, as every attribute the library binds: the group taken as written (a
                // group spelled "base64:…" is that string), the protection checked by the engine
                // where a word's is.
                guard let text = Self.string(value) else { throw .param("\(key) takes a string") }
                request.attributes.append((code: key, input: .value(.string(text))))
            case SecItemKey.authenticationUI:
                switch Self.string(value) {
                case SecItemKey.authenticationUIAllow: ui = .allow
                case SecItemKey.authenticationUIFail: ui = .fail
                case SecItemKey.authenticationUISkip: ui = .skip
                default: throw .param("kSecUseAuthenticationUI takes kSecUseAuthenticationUIAllow, …Fail or …Skip")
                }
            case SecItemKey.noAuthenticationUI:
                guard let flag = Self.bool(value) else { throw .param("kSecUseNoAuthenticationUI takes a boolean") }
                if flag { ui = .fail }
            case SecItemKey.authenticationContext:
                guard let given = value as? any SecAuthenticationContext else {
                    throw .param("kSecUseAuthenticationContext takes an LAContext")
                }
                context = given
            case SecItemKey.hostOrSubdomainOfHost:
                guard let host = Self.string(value) else { throw .param("kSecMatchHostOrSubdomainOfHost takes a string") }
                request.hostOrSubdomainOf = host
            case _ where Self.ignored.contains(key):
                continue
            case _ where key.hasPrefix("m_") || key.hasPrefix("u_"):
                throw SecItemRefusal(status: errSecUnimplemented, message: "\(key) is not provided on Linux (docs/LIBRARY.md)")
            case _ where key.utf16.count == 4:
                // Four characters make an attribute, known to the class or errSecNoSuchAttr.
                attributes.append((key, value))
            case _ where key.hasPrefix("f"):
                continue  // callbacks, which securityd ignores
            default:
                // Any other key is errSecItemInvalidKey, which is errSecParam (SecBasePriv.h).
                throw .param("'\(key)' is not a SecItem key")
            }
        }
        // Apple's server takes the host match for internet passwords alone (errSecUnimplemented).
        if request.hostOrSubdomainOf != nil, request.itemClass != ItemClass.internetPassword.rawValue {
            throw SecItemRefusal(status: errSecUnimplemented, message: "unsupported kSecMatchHostOrSubdomainOfHost attribute")
        }
        let classSchema = request.itemClass.flatMap(ItemClass.init(parsing:)).flatMap { $0 == .identity ? Schema.of(.key) : Schema.of($0) }
        for (code, value) in attributes {
            request.attributes.append((code: code, input: .value(try Self.bind(value, for: code, in: classSchema))))
        }
        if let reference { adopt(reference, forQuery: forQuery) }
        if asksForReturns { request.returns = .value(returns) }
        askForObjects()
    }

    /// `value` as `SecDbItem.c` stores it for attribute `code`: a string stays a string (parsed
    /// for a number, boolean, date or four-character attribute, as `copyNumber` keeps one that is
    /// not a number), data stays data, a number a number, a date a date.
    static func bind(_ value: Any, for code: String, in classSchema: ClassSchema? = nil) throws(SecItemRefusal) -> AttributeValue {
        guard let attribute = classSchema?.attribute(code) ?? Schema.attribute(code) else {
            // An unknown code: the engine names it (errSecNoSuchAttr); its value does not matter.
            return .string("")
        }
        if let text = string(value) {
            // As written: none of the command line's escapes (`text:`, `base64:`) or words
            // ("https", "yes", a date's text) means anything to SecItem.
            switch attribute.kind {
            case .string, .data: return .string(text)
            // copyNumber keeps a string that is not exactly an integer as the string.
            case .number: return Int64(text).map(AttributeValue.number) ?? .string(text)
            // A protocol or authentication type is its constant's four characters ("htps", "ftp ").
            case .fourCharCode:
                let bytes = Array(text.utf8)
                return bytes.count == 4 && bytes.allSatisfy({ (0x20...0x7E).contains($0) }) ? .fourCharCode(text) : .string(text)
            // copyBool and copyDate take a boolean or number, and a date: a string converts to neither.
            case .bool: throw .param("\(code) takes a boolean, not a string")
            case .date: throw .param("\(code) takes a date, not a string")
            }
        }
        if let bytes = value as? Data {
            switch attribute.kind {
            case .string, .data, .fourCharCode: return .data(Array(bytes))
            default: throw .param("\(code) does not take data")
            }
        }
        if let date = value as? Date {
            guard attribute.kind == .date else { throw .param("\(code) does not take a date") }
            // Milliseconds as the store keeps them; a date past them (or NaN) is no date Apple stores.
            guard let milliseconds = Int64(exactly: (date.timeIntervalSince1970 * 1000).rounded()) else {
                throw .param("\(code) holds a date out of range")
            }
            return .date(milliseconds)
        }
        if let number = value as? NSNumber {
            // A key's type given as its number (73 for kSecAttrKeyTypeEC), which Apple stores as one.
            if attribute.kind == .string, code == Schema.keyType { return .string(number.stringValue) }
            return attribute.kind == .bool ? .bool(number.boolValue) : .number(number.int64Value)
        }
        if let flag = value as? Bool { return attribute.kind == .bool ? .bool(flag) : .number(flag ? 1 : 0) }
        throw .param("\(code) takes a string, data, a number or a date, not \(type(of: value))")
    }

    static func string(_ value: Any) -> String? {
        // The class first: a dictionary's values are Foundation objects, and a cast to String
        // from one takes the runtime's slower bridging path.
        if let object = value as? NSString { return String(object) }
        return value as? String
    }

    /// A whole number given as a number or as its decimal text (`kSecAttrKeySizeInBits`, and the
    /// key type and class constants, which are strings of digits).
    static func integer(_ value: Any) -> Int? {
        if let text = string(value) { return Int(text) }
        return (value as? NSNumber)?.intValue
    }

    static func bool(_ value: Any) -> Bool? {
        if let flag = value as? Bool { return flag }
        return (value as? NSNumber)?.boolValue
    }
}
