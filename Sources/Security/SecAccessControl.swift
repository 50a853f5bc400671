import Foundation
import KeychainCore

/// `SecAccessControlCreateFlags`, with Apple's bit values (SecAccessControl.h).
public struct SecAccessControlCreateFlags: OptionSet, Sendable {
    public let rawValue: CFOptionFlags
    public init(rawValue: CFOptionFlags) { self.rawValue = rawValue }

    public static let userPresence = SecAccessControlCreateFlags(rawValue: 1 << 0)
    public static let biometryAny = SecAccessControlCreateFlags(rawValue: 1 << 1)
    public static let biometryCurrentSet = SecAccessControlCreateFlags(rawValue: 1 << 3)
    public static let devicePasscode = SecAccessControlCreateFlags(rawValue: 1 << 4)
    public static let or = SecAccessControlCreateFlags(rawValue: 1 << 14)
    public static let and = SecAccessControlCreateFlags(rawValue: 1 << 15)
    public static let privateKeyUsage = SecAccessControlCreateFlags(rawValue: 1 << 30)
    public static let applicationPassword = SecAccessControlCreateFlags(rawValue: 1 << 31)
    @available(*, deprecated, renamed: "biometryAny")
    public static let touchIDAny = biometryAny
    @available(*, deprecated, renamed: "biometryCurrentSet")
    public static let touchIDCurrentSet = biometryCurrentSet
}

/// An access control: a protection class and the flags a read must satisfy.
public final class SecAccessControl: @unchecked Sendable {
    let control: AccessControl

    init(_ control: AccessControl) { self.control = control }

    /// The access control as the engine's add and update take it.
    var request: AccessControlRequest {
        AccessControlRequest(flags: control.flags.words, protection: control.protection.rawValue)
    }
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// Creates an access control (`SecAccessControl.m`): every combination Apple refuses is `nil`
/// with an error in kCFErrorDomainOSStatus, code errSecParam, saying which rule.
public func SecAccessControlCreateWithFlags(
    _ allocator: CFAllocator?, _ protection: CFTypeRef, _ flags: SecAccessControlCreateFlags,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecAccessControl? {
    func fail(_ message: String) -> SecAccessControl? {
        error?.pointee = Unmanaged.passRetained(
            CFError(domain: kCFErrorDomainOSStatus as String, code: Int(errSecParam), description: message))
        return nil
    }
    guard let text = SecItemDictionary.string(protection), let accessibility = Accessibility(rawValue: text) else {
        return fail("the protection is not one of the kSecAttrAccessible constants")
    }
    let known = AccessControl.Flags.words.reduce(CFOptionFlags(0)) { $0 | CFOptionFlags($1.flag.rawValue) }
    guard flags.rawValue & ~known == 0 else {
        return fail("flags \(String(flags.rawValue & ~known, radix: 16)) are not provided on Linux (docs/LIBRARY.md)")
    }
    do {
        return SecAccessControl(
            try AccessControl(
                protection: accessibility, flags: AccessControl.Flags(rawValue: numericCast(flags.rawValue)), biometrySet: nil))
    } catch {
        return fail(error.hint)
    }
}
