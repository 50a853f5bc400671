import KeychainFormats
import KeychainFoundation

/// What `explain` found: the status a call would return and, for every item that nearly matches,
/// why it is or is not included (docs/DEBUGGING.md).
package struct Explanation: Sendable {
    /// The SecItem call explained.
    package typealias Operation = SecItemOperation

    /// How one item stands.
    package enum Verdict: String, Sendable {
        /// The call would see it.
        case visible
        /// An implicit filter leaves it out: the access group, sync or tombstone.
        case hidden
        /// The query's own class or attributes leave it out.
        case nearMiss = "near-miss"
        /// It makes the whole call fail (a locked class, an explicit unentitled group, an add's twin).
        case blocked
        /// The call may read it but not change it (`com.apple.token`).
        case readOnly = "read-only"
    }

    /// Why an item is left out: the closed set docs/DEBUGGING.md documents.
    package enum Code: String, Sendable {
        case classMismatch = "class-mismatch"
        case attributeMismatch = "attribute-mismatch"
        case groupNotEntitled = "group-not-entitled"
        case groupOtherTeam = "group-other-team"
        /// The query names the item's group without its Team ID prefix (`com.example.shared` for
        /// `SKMME9E2Y8.com.example.shared`), which no entitlement grants.
        case groupMissingPrefix = "group-missing-prefix"
        case appGroupIgnoredPlatform = "app-group-ignored-platform"
        case syncFilter = "sync-filter"
        case tombstone
        case locked
        case notWritable = "not-writable"
        case primaryKeyCollision = "primary-key-collision"
        /// An identity's half that the caller sees, without the other half it joins with.
        case noIdentityPartner = "no-identity-partner"
    }

    /// One reason, with the attribute and both values when it is about one (attributes are not
    /// secrets; the secret is never read).
    package struct Reason: Sendable {
        package let code: Code
        package var attribute: String? = nil
        package var itemValue: String? = nil
        package var queryValue: String? = nil
        /// One sentence for people.
        package let text: String
    }

    /// Facts about an item that are not exclusions.
    package enum Note: String, Sendable {
        /// Not restored to another device; in backups only when encrypted.
        case thisDeviceOnly = "this-device-only"
        /// Synchronizable but ThisDeviceOnly: it never leaves the device.
        case syncThisDeviceOnly = "sync-this-device-only"
        /// Reading it asks for authentication (its access control).
        case asksAuthentication = "asks-authentication"
        /// Its sealed attributes do not open: tampered or damaged (errSecDecode to the calls).
        case damaged
    }

    /// One item that matches or nearly matches.
    package struct Candidate: Sendable {
        /// Its attributes; only the plaintext columns when its class is locked or it is damaged.
        package let item: Item
        /// Whether `item` holds every attribute (false: the class is locked, or the row is damaged
        /// (note `damaged`), so only the plaintext columns could be shown).
        package let opened: Bool
        package let verdict: Verdict
        package let reasons: [Reason]
        package let notes: [Note]
        /// What would make the call see it.
        package let fixes: [String]
    }

    package let operation: Operation
    /// The status the call would return: `nil` for success.
    package let predicted: KeychainError?
    /// The matches and near misses, best first, at most the limit asked for.
    package let candidates: [Candidate]
    /// Candidates left out by the limit.
    package let omitted: Int
    /// Items that differ in more than two ways and are not listed.
    package let unrelated: Int
}
