import KeychainFoundation

/// The calling process's access groups, in Apple's order, with where each came from.
///
/// Built exactly as `SecTaskCopyAccessGroups` (`OSX/sec/ipc/server_entitlement_helpers.c`) does:
/// keychain-access-groups, associated application identifiers, the application identifier, then
/// application groups (skipped for App Clips); `com.apple.token` last, readable and never writable.
package struct AccessGroupList: Sendable, Equatable {
    /// One group and the entitlement it came from.
    package struct Entry: Sendable, Equatable {
        package let group: String
        package let source: String
        /// Its position in an array entitlement; `nil` for a string entitlement or an implicit group.
        package var index: Int? = nil
        /// Whether no entitlement names it: the token group macOS adds.
        package var isImplicit: Bool { source == AccessGroupList.implicitSource }
        /// Whether items may be written to it (everything but `com.apple.token`).
        package var isWritable: Bool { !group.sameBytes(as: AccessGroupList.tokenGroup) }

        package init(group: String, source: String, index: Int? = nil) {
            self.group = group
            self.source = source
            self.index = index
        }
    }

    /// The read-only group of token-backed items.
    package static let tokenGroup = "com.apple.token"
    /// The source of the token group macOS adds without an entitlement.
    package static let implicitSource = "implicit on macOS"
    /// The wildcard that Apple grants only to its own tools.
    package static let wildcard = "*"

    /// The groups, in order, without repeats (a repeat adds no access).
    package let entries: [Entry]
    /// Whether the profile's `"*"` was honoured (only with the administrator flag).
    package let grantsEveryGroup: Bool
    /// Claimed groups a platform rule leaves out (macOS ignores the application identifier and app
    /// groups of a process no provisioning profile validates), kept to explain a refusal.
    package let ignored: [Entry]
    /// Set when the list is empty because Apple withholds even the implicit token group: an
    /// application identifier was claimed but ignored, so the signing failure shows as -34018
    /// rather than -25300 (`SecTaskCopyAccessGroups`).
    package let withholdsToken: Bool
    /// Set for an App Clip (`com.apple.developer.on-demand-install-capable`), whose keychain use
    /// Apple restricts (`SecItemServer.c`, `appClipHasAcceptableAccessGroups`).
    package let isAppClip: Bool
    /// Patterns of a provisioning profile used as the claims (`SKMME9E2Y8.*`): what it allows, never
    /// a group a running app holds, so they are left out of the list (and said to be).
    package let patterns: [Entry]
    /// The honoured application identifier (iOS's `application-identifier`, macOS's
    /// `com.apple.application-identifier`), one of the groups; `nil` when none is claimed or a
    /// platform rule ignores it.
    package let applicationIdentifier: String?

    /// A list from entries in order, as built from entitlements.
    package init(
        entries: [Entry], grantsEveryGroup: Bool = false, ignored: [Entry] = [], withholdsToken: Bool = false, isAppClip: Bool = false,
        applicationIdentifier: String? = nil, patterns: [Entry] = []
    ) {
        // Repeats are exact byte repeats: canonically equivalent spellings are two groups. Keyed by
        // String (which buckets equivalent spellings together), compared by bytes within a bucket.
        var seen: [String: [String]] = [:]
        var ordered = entries.filter { entry in
            if seen[entry.group, default: []].contains(where: { $0.sameBytes(as: entry.group) }) { return false }
            seen[entry.group, default: []].append(entry.group)
            return true
        }
        if let token = ordered.firstIndex(where: { $0.group.sameBytes(as: Self.tokenGroup) }) {
            ordered.append(ordered.remove(at: token))
        }
        self.entries = ordered
        self.grantsEveryGroup = grantsEveryGroup
        self.ignored = ignored
        self.withholdsToken = withholdsToken
        self.isAppClip = isAppClip
        self.applicationIdentifier = applicationIdentifier
        self.patterns = patterns
    }

    /// Whether an App Clip's groups are what Apple lets one use: its application identifier alone,
    /// with the token group at most (compared as strings, as `appClipHasAcceptableAccessGroups`
    /// does, whichever entitlement listed it first). Always true for anything else.
    package var appClipGroupsAcceptable: Bool {
        guard isAppClip else { return true }
        let own = entries.filter { !$0.group.sameBytes(as: Self.tokenGroup) }
        return own.count == 1 && applicationIdentifier.map(own[0].group.sameBytes) == true
    }

    /// The claimed entry a platform rule ignored for `group`, if any.
    package func ignoredEntry(for group: String) -> Entry? { ignored.first { $0.group.sameBytes(as: group) } }

    /// The groups in order.
    package var groups: [String] { entries.map(\.group) }

    /// Groups the process may read: the whole list.
    package var readable: [String] { groups }

    /// Groups the process may write: the list without `com.apple.token`.
    package var writable: [String] { entries.filter(\.isWritable).map(\.group) }

    /// The default group: the first element, where an add without `agrp` lands; `nil` when the
    /// process cannot write anywhere.
    package var defaultGroup: String? {
        guard let first = entries.first, first.isWritable, !first.group.sameBytes(as: Self.wildcard) else { return nil }
        return first.group
    }

    /// Whether `group` may be read.
    package func canRead(_ group: String) -> Bool { grantsEveryGroup || readable.contains { $0.sameBytes(as: group) } }

    /// Whether `group` may be written.
    package func canWrite(_ group: String) -> Bool {
        !group.sameBytes(as: Self.tokenGroup) && (grantsEveryGroup || writable.contains { $0.sameBytes(as: group) })
    }

    /// Whether the process has any group it may read.
    package var hasReadableGroup: Bool { grantsEveryGroup || !readable.isEmpty }

    /// Whether the process has any group it may write.
    package var hasWritableGroup: Bool { grantsEveryGroup || !writable.isEmpty }
}
