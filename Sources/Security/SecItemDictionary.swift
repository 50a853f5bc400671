import Foundation
import KeychainCore

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
    /// Whether a return key was given at all.
    var asksForReturns = false
    /// What the return keys ask for, as the caller gave them (`request.returnOptions` is what the
    /// engine is asked: a certificate's data in place of its reference, which is made from it).
    var returns: ReturnOptions = []
    /// kSecValueRef: a certificate whose attributes stand in for those the caller left out.
    var reference: SecCertificate?

    /// Keys that change nothing on this keychain: it is always the data-protection keychain
    /// (kSecUseDataProtectionKeychain), there is nobody to show a prompt's reason to
    /// (kSecUseOperationPrompt), and a persistent reference attribute is the keychain's own.
    private static let ignored: Set<String> = ["nleg", "u_OpPrompt", "persistref", "u_AuthCtx"]

    /// Keys are told apart as `SecDbQuery.c` (`query_applier`) tells them: four characters make an
    /// attribute, a longer key is a class, match, return, use or value key by its first letter.
    init(_ dictionary: CFDictionary?) throws(SecItemRefusal) {
        guard let dictionary else { throw .param("the dictionary is NULL") }
        for (key, value) in try Self.entries(dictionary) {
            switch key {
            case "class":
                guard let text = Self.string(value) else { throw .param("kSecClass takes a class constant") }
                request.itemClass = text
            case "m_Limit":
                if let text = Self.string(value) {
                    switch text {
                    case "m_LimitOne": request.matchLimit = .one
                    case "m_LimitAll": request.matchLimit = .all
                    default: throw .param("kSecMatchLimit takes kSecMatchLimitOne, kSecMatchLimitAll or a number")
                    }
                } else if let number = value as? NSNumber, number.intValue > 0 {
                    request.matchLimit = number.intValue == 1 ? .one : .count(number.intValue)
                } else {
                    throw .param("kSecMatchLimit takes kSecMatchLimitOne, kSecMatchLimitAll or a positive number")
                }
            case "r_Data", "r_Attributes", "r_PersistentRef", "r_Ref":
                guard let flag = Self.bool(value) else { throw .param("\(key) takes a boolean") }
                asksForReturns = true
                let option: ReturnOptions =
                    switch key {
                    case "r_Data": .data
                    case "r_Attributes": .attributes
                    case "r_PersistentRef": .persistentRef
                    default: .reference
                    }
                if flag { returns.insert(option) }
            case "v_Data":
                guard let bytes = value as? Data else { throw .param("kSecValueData takes data") }
                data = bytes
            case "v_Ref":
                guard let certificate = value as? SecCertificate else {
                    throw .param("kSecValueRef takes a SecCertificate (SecKey and SecIdentity are not provided on Linux)")
                }
                reference = certificate
            case "v_PersistentRef":
                guard let bytes = value as? Data else { throw .param("kSecValuePersistentRef takes data") }
                request.persistentRef = Data(bytes).base64EncodedString()
            case Schema.accessControl:
                guard let control = value as? SecAccessControl else { throw .param("kSecAttrAccessControl takes a SecAccessControl") }
                accessControl = control
            case Schema.synchronizable:
                if let text = Self.string(value) {
                    guard text == "syna" else { throw .param("kSecAttrSynchronizable takes a boolean or kSecAttrSynchronizableAny") }
                    request.attributes.append((code: key, value: "any"))
                } else if let flag = Self.bool(value) {
                    request.attributes.append((code: key, value: flag ? "yes" : "no"))
                } else {
                    throw .param("kSecAttrSynchronizable takes a boolean or kSecAttrSynchronizableAny")
                }
            case Schema.accessGroup, Schema.protection:
                guard let text = Self.string(value) else { throw .param("\(key) takes a string") }
                request.attributes.append((code: key, value: text))
            case "u_AuthUI":
                switch Self.string(value) {
                case "u_AuthUIA": ui = .allow
                case "u_AuthUIF": ui = .fail
                case "u_AuthUIS": ui = .skip
                default: throw .param("kSecUseAuthenticationUI takes kSecUseAuthenticationUIAllow, …Fail or …Skip")
                }
            case "u_NoAuthUI":
                guard let flag = Self.bool(value) else { throw .param("kSecUseNoAuthenticationUI takes a boolean") }
                if flag { ui = .fail }
            case _ where Self.ignored.contains(key):
                continue
            case _ where key.hasPrefix("m_") || key.hasPrefix("u_"):
                throw SecItemRefusal(status: errSecUnimplemented, message: "\(key) is not provided on Linux (docs/LIBRARY.md)")
            case _ where key.utf16.count == 4:
                // Four characters make an attribute, known to the class or errSecNoSuchAttr.
                request.typedAttributes.append((code: key, value: try Self.bind(value, for: key)))
            case _ where key.hasPrefix("f"):
                continue  // callbacks, which securityd ignores
            default:
                // Any other key is errSecItemInvalidKey, which is errSecParam (SecBasePriv.h).
                throw .param("'\(key)' is not a SecItem key")
            }
        }
        if let reference { adopt(reference) }
        if asksForReturns { request.returnOptions = returns }
        guard returns.contains(.reference), let itemClass = request.itemClass.flatMap(ItemClass.init(parsing:)) else { return }
        switch itemClass {
        case .certificate:
            // The engine opens the certificate's data, from which its SecCertificate is made.
            request.returnOptions = returns.subtracting(.reference).union(.data)
        case .key, .identity:
            // A key's object (SecKey, SecIdentity) is not provided: asking for one is refused
            // rather than answered with nothing.
            throw SecItemRefusal(
                status: errSecUnimplemented,
                message:
                    "kSecReturnRef for \(itemClass.longName) items: SecKey and SecIdentity are not provided on Linux (docs/LIBRARY.md)")
        case .genericPassword, .internetPassword:
            break  // A password has no object, and Apple returns none.
        }
    }

    /// kSecValueRef as `SecItemAttributesPrepare` (`SecItem.m`) expands it: the certificate's
    /// attribute dictionary, its class and its data fill in what the caller left out; what the
    /// caller gave wins, its own kSecValueData included. A query matches on the attributes alone,
    /// as securityd reads a query's data for nothing.
    private mutating func adopt(_ reference: SecCertificate) {
        let given = Set(request.typedAttributes.map(\.code))
        for (code, value) in reference.certificate.referenceAttributes.sorted(by: { $0.key < $1.key }) where !given.contains(code) {
            request.typedAttributes.append((code: code, value: value))
        }
        if request.itemClass == nil { request.itemClass = ItemClass.certificate.rawValue }
        if data == nil { data = Data(reference.certificate.der) }
    }

    /// The label `SecItemAdd` gives a certificate added by reference without one (`infer_cert_label`,
    /// `SecItem.m`): its subject summary.
    mutating func inferLabel() {
        guard let summary = reference?.certificate.summary, !request.typedAttributes.contains(where: { $0.code == Schema.label }) else {
            return
        }
        request.typedAttributes.append((code: Schema.label, value: .string(summary)))
    }

    /// `value` as `SecDbItem.c` stores it for attribute `code`: a string stays a string (parsed
    /// for a number, boolean, date or four-character attribute, as `copyNumber` keeps one that is
    /// not a number), data stays data, a number a number, a date a date.
    static func bind(_ value: Any, for code: String) throws(SecItemRefusal) -> AttributeValue {
        guard let attribute = Schema.attribute(code) else {
            // An unknown code: the engine names it (errSecNoSuchAttr); its value does not matter.
            return .string("")
        }
        if let text = string(value) {
            switch attribute.kind {
            case .string, .data: return .string(text)
            default:
                do { return try AttributeValue.parse(text, for: attribute) } catch { throw .param(error.hint) }
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
            return .date(Int64((date.timeIntervalSince1970 * 1000).rounded()))
        }
        if let number = value as? NSNumber {
            return attribute.kind == .bool ? .bool(number.boolValue) : .number(number.int64Value)
        }
        if let flag = value as? Bool { return attribute.kind == .bool ? .bool(flag) : .number(flag ? 1 : 0) }
        throw .param("\(code) takes a string, data, a number or a date, not \(type(of: value))")
    }

    static func string(_ value: Any) -> String? {
        if let text = value as? String { return text }
        return (value as? NSString).map(String.init)
    }

    static func bool(_ value: Any) -> Bool? {
        if let flag = value as? Bool { return flag }
        return (value as? NSNumber)?.boolValue
    }
}
