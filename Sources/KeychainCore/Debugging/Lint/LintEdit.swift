import KeychainFormats
import KeychainFoundation

/// A fix stated as an edit of an entitlements file (or of a `--code-group` value), so a script can
/// apply it and a test can follow it: once every edit of a finding is made, lint no longer reports
/// it and reports no error it did not report before. Fixes outside the files (signing, a renewed
/// provisioning profile, a build setting) have none.
package struct LintEdit: Sendable, Equatable {
    package enum Action: Sendable, Equatable {
        /// Replace the element `key[index]` (or `key`'s string, or the `--code-group` value) with this.
        case replace(String)
        /// Remove the element `key[index]`, or the entitlement `key` when there is no index.
        case remove
        /// Put this group first in the array `key` (taking it out of any later place).
        case putFirst(String)
        /// Append this value to the array `key` (created when missing) unless it is there already.
        case append(String)

        package var name: String {
            switch self {
            case .replace: "replace"
            case .remove: "remove"
            case .putFirst: "put-first"
            case .append: "append"
            }
        }

        package var value: String? {
            switch self {
            case .replace(let value), .putFirst(let value), .append(let value): value
            case .remove: nil
            }
        }
    }

    /// The file to change (`--code-group` for a group code passes).
    package let file: String
    /// The entitlement (nil for a `--code-group` value).
    package let key: String?
    /// The element of an array entitlement (or the position of the `--code-group` value).
    package let index: Int?
    package let action: Action

    package init(file: String, key: String?, index: Int? = nil, _ action: Action) {
        self.file = file
        self.key = key
        self.index = index
        self.action = action
    }
}
