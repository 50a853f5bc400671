import Foundation

// The CoreFoundation names keychain code spells, as the Foundation classes they bridge to on Apple
// platforms: `query as CFDictionary`, `kSecClass as String`, `result as? Data` and
// `kSecAttrAccount as String` compile and behave as they do there. A constant is a class
// (`NSString`), not `String`, because app code passes `kSecClassGenericPassword` where `AnyObject`
// (`CFTypeRef`) is expected.

public typealias CFTypeRef = AnyObject
public typealias CFString = NSString
public typealias CFDictionary = NSDictionary
public typealias CFMutableDictionary = NSMutableDictionary
public typealias CFData = NSData
public typealias CFArray = NSArray
public typealias CFNumber = NSNumber
public typealias CFBoolean = NSNumber
public typealias CFDate = NSDate
public typealias CFOptionFlags = UInt
public typealias CFIndex = Int
public typealias OSStatus = Int32

/// `noErr`, typed as `OSStatus` as app code compares it (`status == noErr`).
public let noErr: OSStatus = 0

/// kCFBooleanTrue and kCFBooleanFalse, implicitly unwrapped as Apple's are.
public let kCFBooleanTrue: CFBoolean! = NSNumber(value: true)
public let kCFBooleanFalse: CFBoolean! = NSNumber(value: false)

/// An allocator: only the default one exists, and every function taking one ignores it.
public final class CFAllocator: Sendable {
    private init() {}
}

/// `kCFAllocatorDefault` (`nil` is the default allocator, as on Apple platforms).
public let kCFAllocatorDefault: CFAllocator! = nil

/// A CoreFoundation error: a domain, a code and a user info. It is an `NSError`, as CFError is
/// toll-free bridged to one on Apple platforms: `error as NSError` (and `catch let e as NSError`)
/// sees its domain (NSOSStatusErrorDomain), its code (the OSStatus) and its message as
/// `localizedDescription`.
public final class CFError: NSError, @unchecked Sendable {
    init(domain: String, code: Int, description: String) {
        super.init(domain: domain, code: code, userInfo: [NSLocalizedDescriptionKey: description])
    }

    required init?(coder: NSCoder) { nil }

    public override var description: String {
        "Error Domain=\(domain) Code=\(code) \"\(userInfo[NSLocalizedDescriptionKey] ?? "")\""
    }
}

/// The domain of errors that carry an `OSStatus` (kCFErrorDomainOSStatus).
nonisolated(unsafe) public let kCFErrorDomainOSStatus: CFString = "NSOSStatusErrorDomain"

extension CFError {
    /// Hands a function's caller an error in kCFErrorDomainOSStatus through its `error` out
    /// parameter (when it passed one), retained as a Create function's result is.
    static func report(_ status: OSStatus, _ message: String, to error: UnsafeMutablePointer<Unmanaged<CFError>?>?) {
        error?.pointee = Unmanaged.passRetained(CFError(domain: kCFErrorDomainOSStatus as String, code: Int(status), description: message))
    }
}

/// `kCFBundleIdentifierKey` (CFBundle.h), the Info.plist key keychain code reads its default service
/// from: `Bundle.main.infoDictionary?[kCFBundleIdentifierKey as String]` (docs/LIBRARY.md says where
/// Linux finds the main bundle's Info.plist).
nonisolated(unsafe) public let kCFBundleIdentifierKey: CFString! = "CFBundleIdentifier"

// swift-format-ignore: AlwaysUseLowerCamelCase
@discardableResult
public func CFErrorGetDomain(_ error: CFError!) -> CFString! { error.domain as NSString }
// swift-format-ignore: AlwaysUseLowerCamelCase
@discardableResult
public func CFErrorGetCode(_ error: CFError!) -> CFIndex { error.code }
// swift-format-ignore: AlwaysUseLowerCamelCase
@discardableResult
public func CFErrorCopyUserInfo(_ error: CFError!) -> CFDictionary! { NSDictionary(dictionary: error.userInfo) }
// swift-format-ignore: AlwaysUseLowerCamelCase
@discardableResult
public func CFErrorCopyDescription(_ error: CFError!) -> CFString! {
    (error.userInfo[NSLocalizedDescriptionKey] as? String ?? "") as NSString
}

/// On Apple platforms an `NSString` key hashes as the `String` it equals, so a result read with
/// `dict[kSecAttrAccount]` (an `[AnyHashable: Any]`) finds the value stored under "acct"; Linux's
/// Foundation does not do it, and this makes it so.
extension NSString: @retroactive _HasCustomAnyHashableRepresentation {
    public func _toCustomAnyHashable() -> AnyHashable? { AnyHashable(String(self)) }
}
