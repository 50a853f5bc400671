/// A row that is not what was sealed: an edit, a swap, a blob from another row or keychain, or
/// damage. It is reported by persistent reference and never returned as an item (docs/SECURITY.md).
package struct DamagedRow: Sendable, Equatable {
    /// Why a row is damaged. No reason carries a value from the row.
    package enum Reason: String, Sendable {
        /// A sealed half does not open under its row's identity and this keychain's keys.
        case sealedDataAltered = "its sealed data was altered, or moved from another item or keychain"
        /// A digest column differs from the digest of the attribute sealed in the metadata.
        case digestMismatch = "its attribute digests were altered"
        /// A live item whose secret or per-item key is missing.
        case missingSecret = "its secret is missing"
        /// A tombstone that holds a secret.
        case tombstoneWithSecret = "a tombstone holds a secret"
        /// A column of the wrong type or size.
        case malformedColumn = "a column holds a value of the wrong type or size"
        /// It opened, but its attributes are not the ones the query selected it by.
        case queryMismatch = "its sealed attributes do not match the query that selected it"

        /// errSecDecode naming the item.
        package func error(_ itemClass: ItemClass, uuid: [UInt8]) -> KeychainError {
            DamagedRow(ref: PersistentRef(itemClass: itemClass, uuid: uuid), reason: self).error
        }
    }

    /// The row's persistent reference (as its plaintext `uuid` column says).
    package let ref: PersistentRef
    /// What is wrong with it.
    package let reason: Reason

    /// One line for stderr and reports.
    package var description: String { "item \(ref.base64) is damaged: \(reason.rawValue)" }

    /// errSecDecode for this row alone.
    package var error: KeychainError { Self.refusal([self], changedNothing: false) }

    /// errSecDecode for the damaged rows one operation met; with `changedNothing`, a write that
    /// refused to act because of them.
    package static func refusal(_ rows: [DamagedRow], changedNothing: Bool) -> KeychainError {
        let named = rows.map(\.description).joined(separator: "; ")
        let tail =
            changedNothing
            ? " Nothing was changed; --skip-damaged acts on the other matches, 'keychainctl delete --persistent-ref REF' or 'keychainctl verify --repair' removes a damaged row."
            : " The row is kept; 'keychainctl delete --persistent-ref REF' removes it, 'keychainctl verify' lists every damaged row."
        return KeychainError(.decode, hint: named + "." + tail, damaged: rows)
    }
}
