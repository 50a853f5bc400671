import Foundation

/// The domain of LocalAuthentication's errors.
// swift-format-ignore: AlwaysUseLowerCamelCase
public let LAErrorDomain: String = "com.apple.LocalAuthentication"

/// An error of LocalAuthentication, as Apple declares it: its code, in LAErrorDomain (`error as
/// NSError` has both), matched by `catch LAError.userCancel` and `error.code == .userCancel`.
public struct LAError: CustomNSError, Hashable, @unchecked Sendable {
    /// LAError.h's codes.
    public enum Code: Int, Sendable {
        case authenticationFailed = -1
        case userCancel = -2
        case userFallback = -3
        case systemCancel = -4
        case passcodeNotSet = -5
        case biometryNotAvailable = -6
        case biometryNotEnrolled = -7
        case biometryLockout = -8
        case appCancel = -9
        case invalidContext = -10
        case watchNotAvailable = -11
        case biometryNotPaired = -12
        case biometryDisconnected = -13
        case invalidDimensions = -14
        case notInteractive = -1004

        /// The Touch ID names of the biometry codes (deprecated by Apple, not here).
        public static let touchIDNotAvailable = Code.biometryNotAvailable
        public static let touchIDNotEnrolled = Code.biometryNotEnrolled
        public static let touchIDLockout = Code.biometryLockout
    }

    public let code: Code
    public let errorUserInfo: [String: Any]

    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        self.code = code
        errorUserInfo = userInfo
    }

    /// An error with `code` and `message` as its localized description.
    init(_ code: Code, _ message: String) { self.init(code, userInfo: [NSLocalizedDescriptionKey: message]) }

    public static var errorDomain: String { LAErrorDomain }
    public var errorCode: Int { code.rawValue }

    public static func == (left: LAError, right: LAError) -> Bool { left.code == right.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public static var authenticationFailed: Code { .authenticationFailed }
    public static var userCancel: Code { .userCancel }
    public static var userFallback: Code { .userFallback }
    public static var systemCancel: Code { .systemCancel }
    public static var passcodeNotSet: Code { .passcodeNotSet }
    public static var biometryNotAvailable: Code { .biometryNotAvailable }
    public static var biometryNotEnrolled: Code { .biometryNotEnrolled }
    public static var biometryLockout: Code { .biometryLockout }
    public static var appCancel: Code { .appCancel }
    public static var invalidContext: Code { .invalidContext }
    public static var watchNotAvailable: Code { .watchNotAvailable }
    public static var notInteractive: Code { .notInteractive }
    public static var touchIDNotAvailable: Code { .biometryNotAvailable }
    public static var touchIDNotEnrolled: Code { .biometryNotEnrolled }
    public static var touchIDLockout: Code { .biometryLockout }
}

/// `catch LAError.userCancel`: whether `error` is an LAError (or an NSError in LAErrorDomain) of `code`.
public func ~= (code: LAError.Code, error: any Error) -> Bool {
    if let error = error as? LAError { return error.code == code }
    let bridged = error as NSError
    return bridged.domain == LAErrorDomain && bridged.code == code.rawValue
}
