import KeychainFormats
import KeychainFoundation

/// What a sync did (or, in a dry run, would do), item by item: attributes, UUIDs and persistent
/// references, never secrets.
package struct SyncReport: Sendable {
    /// What happened to one item or record.
    package enum Action: String, Sendable, CaseIterable {
        /// A change made here was uploaded (a new item, a change, a primary-key change).
        case pushed
        /// An item from another device was added here.
        case pulled
        /// A change from another device was applied here.
        case updated
        /// A deletion: of the copy here (deleted on another device) or of the cloud record
        /// (deleted here, synchronizable turned off, made this-device-only).
        case deleted
        /// The same item existed on two devices and this device's copy stays everywhere.
        case conflictWon = "conflict-won"
        /// The same item (or the same change) came from two devices and the other's stays.
        case conflictLost = "conflict-lost"
        /// A class-A item from another device waits until the device is unlocked.
        case waiting
        /// A record or row that did not open or is not a synchronizable item: nothing was applied
        /// from it.
        case failed
        /// A synchronizable item that never leaves this device, with why.
        case notSyncing = "not-syncing"
    }

    /// One item's fate.
    package struct Entry: Sendable {
        package let action: Action
        package let itemClass: ItemClass?
        /// The record's UUID in the cloud (shared by every device).
        package let cloudUUID: Bytes16?
        /// The item's persistent reference on this device, when it has a row here.
        package let ref: PersistentRef?
        /// The attributes that name the item (its primary key and label); empty when it did not open.
        package let attributes: [String: AttributeValue]
        /// Why, in a few words.
        package let reason: String
        /// For `failed`: what kind of failure.
        package var failure: Failure? = nil
        /// The device that wrote the change applied here, by its name in the store's device list,
        /// when its signature was checked (a version-2 store).
        package var writer: String? = nil
    }

    /// Why a record or row failed.
    package enum Failure: Sendable {
        /// It does not open, or is not a synchronizable item (exit 93, errSecDecode).
        case decode
        /// It cannot be read or written (exit 74).
        case io
    }

    package var entries: [Entry] = []
    /// Items that were already in step.
    package var unchanged = 0
    /// Items stored with `sync = 0`: they stay on this device (never reported one by one).
    package var notSynchronizable = 0
    /// Tombstones removed because their deletion reached the cloud.
    package var tombstonesPurged = 0
    /// Whether nothing was written because it was a dry run.
    package var dryRun = false

    /// A UUID as Apple writes it (uppercase, dashed); CKKS compares these strings, which order
    /// as the bytes do.
    package static func uuidText(_ uuid: Bytes16) -> String {
        let hex = Array(Hex.lowercase(uuid.bytes).uppercased())
        guard hex.count == 32 else { return String(hex) }
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(hex[$0]) }.joined(separator: "-")
    }

    /// The entries with `action`.
    package func entries(_ action: Action) -> [Entry] { entries.filter { $0.action == action } }

    /// How the command ends: `.decode` when a record or row did not open, else `.io` when one
    /// could not be read, else `nil` (success).
    package var failure: Failure? {
        let failures = entries(.failed).compactMap(\.failure)
        return failures.contains(.decode) ? .decode : failures.first
    }
}

/// CKKS's views (docs/FIDELITY.md): which zone an item travels in, decided by its access group. The
/// view decides routing, not eligibility; the report names it.
package enum SyncView {
    /// The view of an item in `group`.
    package static func of(group: String) -> String {
        if isTeamPrefixed(group) { return "Applications" }
        switch group {
        case "com.apple.cfnetwork", "com.apple.webkit.webauthn": return "Passwords"
        case "com.apple.safari.credit-cards": return "CreditCards"
        case "com.apple.sbd", "com.apple.security.sos": return "SecureObjectSync"
        default: return group.hasPrefix("com.apple.password-manager") ? "Passwords" : "Backstop"
        }
    }

    /// `^[0-9A-Z]{10}\.`: a Team ID prefix (third-party apps).
    private static func isTeamPrefixed(_ group: String) -> Bool {
        let bytes = Array(group.utf8.prefix(11))
        guard bytes.count == 11, bytes[10] == UInt8(ascii: ".") else { return false }
        return bytes.prefix(10).allSatisfy { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) }
    }
}
