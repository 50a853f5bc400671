import Foundation

/// The type of a CoreFoundation object, as app code compares it: `CFGetTypeID(ref) ==
/// SecKeyGetTypeID()` on what kSecReturnRef or SecPKCS12Import returned, before a cast. Apple
/// assigns the numbers at run time; here each type has a fixed one, distinct from every other's.
public typealias CFTypeID = UInt

/// Each type's number, in one table.
private enum TypeNumber: CFTypeID {
    case string = 7, array, dictionary, data, number, boolean, date, error
    case key = 100, certificate, identity, accessControl, trust, policy
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The type of `cf` (0 for an object that is none of the types here).
@discardableResult
public func CFGetTypeID(_ cf: CFTypeRef!) -> CFTypeID {
    let number: TypeNumber? =
        switch cf {
        case is SecKey: .key
        case is SecCertificate: .certificate
        case is SecIdentity: .identity
        case is SecAccessControl: .accessControl
        case is SecTrust: .trust
        case is SecPolicy: .policy
        case is CFError: .error
        case is NSString: .string
        case is NSData: .data
        case is NSDictionary: .dictionary
        case is NSArray: .array
        case is NSDate: .date
        // A boolean is an NSNumber of one byte on Linux (kCFBooleanTrue is one on Apple platforms).
        case let value as NSNumber: String(cString: value.objCType) == "c" ? .boolean : .number
        default: nil
        }
    return number?.rawValue ?? 0
}

// swift-format-ignore: AlwaysUseLowerCamelCase
@discardableResult
public func SecKeyGetTypeID() -> CFTypeID { TypeNumber.key.rawValue }
// swift-format-ignore: AlwaysUseLowerCamelCase
@discardableResult
public func SecCertificateGetTypeID() -> CFTypeID { TypeNumber.certificate.rawValue }
// swift-format-ignore: AlwaysUseLowerCamelCase
@discardableResult
public func SecIdentityGetTypeID() -> CFTypeID { TypeNumber.identity.rawValue }
// swift-format-ignore: AlwaysUseLowerCamelCase
@discardableResult
public func SecAccessControlGetTypeID() -> CFTypeID { TypeNumber.accessControl.rawValue }
// swift-format-ignore: AlwaysUseLowerCamelCase
@discardableResult
public func SecTrustGetTypeID() -> CFTypeID { TypeNumber.trust.rawValue }
// swift-format-ignore: AlwaysUseLowerCamelCase
@discardableResult
public func SecPolicyGetTypeID() -> CFTypeID { TypeNumber.policy.rawValue }
// swift-format-ignore: AlwaysUseLowerCamelCase
@discardableResult
public func CFStringGetTypeID() -> CFTypeID { TypeNumber.string.rawValue }
// swift-format-ignore: AlwaysUseLowerCamelCase
@discardableResult
public func CFDataGetTypeID() -> CFTypeID { TypeNumber.data.rawValue }
// swift-format-ignore: AlwaysUseLowerCamelCase
@discardableResult
public func CFDictionaryGetTypeID() -> CFTypeID { TypeNumber.dictionary.rawValue }
// swift-format-ignore: AlwaysUseLowerCamelCase
@discardableResult
public func CFArrayGetTypeID() -> CFTypeID { TypeNumber.array.rawValue }
// swift-format-ignore: AlwaysUseLowerCamelCase
@discardableResult
public func CFNumberGetTypeID() -> CFTypeID { TypeNumber.number.rawValue }
// swift-format-ignore: AlwaysUseLowerCamelCase
@discardableResult
public func CFBooleanGetTypeID() -> CFTypeID { TypeNumber.boolean.rawValue }
// swift-format-ignore: AlwaysUseLowerCamelCase
@discardableResult
public func CFDateGetTypeID() -> CFTypeID { TypeNumber.date.rawValue }
// swift-format-ignore: AlwaysUseLowerCamelCase
@discardableResult
public func CFErrorGetTypeID() -> CFTypeID { TypeNumber.error.rawValue }
