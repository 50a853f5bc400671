import Foundation
internal import KeychainCore

// swift-format-ignore: AlwaysUseLowerCamelCase
/// The message Apple's `SecCopyErrorMessageString` gives `status` (from SecBase.h), or for a
/// status no header declares, the same "OSStatus N" form keychainctl's `error` prints.
@discardableResult
public func SecCopyErrorMessageString(_ status: OSStatus, _ reserved: UnsafeMutableRawPointer?) -> CFString? {
    StatusMessages.message(status) as NSString
}

enum StatusMessages {
    private static let byStatus: [Int32: String] = Dictionary(
        AppleStatuses.rows.map { ($0.status, $0.message) }, uniquingKeysWith: { first, _ in first })

    static func message(_ status: OSStatus) -> String { byStatus[status] ?? "OSStatus \(status)" }
}
