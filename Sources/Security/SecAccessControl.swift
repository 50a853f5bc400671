import Foundation
internal import KeychainCore

/// `SecAccessControlCreateFlags`, with Apple's bit values (SecAccessControl.h).
public struct SecAccessControlCreateFlags: OptionSet, Sendable {
    public let rawValue: CFOptionFlags
    public init(rawValue: CFOptionFlags) { self.rawValue = rawValue }
    init(_ flag: AccessControl.Flags) { rawValue = CFOptionFlags(flag.rawValue) }

    // The bits are the engine's (`AccessControl.Flags`), which are Apple's.
    public static let userPresence = Self(AccessControl.Flags.userPresence)
    public static let biometryAny = Self(AccessControl.Flags.biometryAny)
    public static let biometryCurrentSet = Self(AccessControl.Flags.biometryCurrentSet)
    public static let devicePasscode = Self(AccessControl.Flags.devicePasscode)
    public static let or = Self(AccessControl.Flags.or)
    public static let and = Self(AccessControl.Flags.and)
    public static let privateKeyUsage = Self(AccessControl.Flags.privateKeyUsage)
    public static let applicationPassword = Self(AccessControl.Flags.applicationPassword)
    /// A paired companion device (a watch) may answer (iOS 18, macOS 15): declared so that code
    /// naming it compiles; nobody answers here, so SecAccessControlCreateWithFlags refuses it.
    public static let companion = Self(rawValue: 1 << 5)
    @available(*, deprecated, renamed: "companion")
    public static let watch = companion
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

/// Equal when the protection and constraints are (`SecAccessControlCompare` compares the
/// contents), and hashable, as Swift makes every CoreFoundation type: app code keeps one in a
/// `[String: AnyHashable]` query or a set.
extension SecAccessControl: Hashable {
    public static func == (lhs: SecAccessControl, rhs: SecAccessControl) -> Bool { lhs === rhs || lhs.control == rhs.control }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(control.protection.rawValue)
        hasher.combine(control.flags.rawValue)
    }
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// Creates an access control (`SecAccessControl.m`): every combination Apple refuses is `nil`
/// with an error in kCFErrorDomainOSStatus, code errSecParam, saying which rule.
@discardableResult
public func SecAccessControlCreateWithFlags(
    _ allocator: CFAllocator?, _ protection: CFTypeRef, _ flags: SecAccessControlCreateFlags,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecAccessControl? {
    func fail(_ message: String) -> SecAccessControl? {
        CFError.report(errSecParam, message, to: error)
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
