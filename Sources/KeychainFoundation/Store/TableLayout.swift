/// The item tables' columns, one layout per change of them, oldest first: the one place that says
/// which schema versions hold which columns. The create statements, the schema check's
/// fingerprints and the upgrade of an older file all read it, so a new matchable attribute is its
/// `Schema` entry and one case here (its first schema version, the columns it adds and what an
/// upgrade fills them with), with `KeychainStore.schemaVersion` raised to match.
package enum TableLayout: Int, CaseIterable, Comparable, Sendable {
    /// Schema versions 1 to 3.
    case original = 1
    /// Schema version 4 on: the access control (`accc`).
    case accessControl = 2

    /// The layout `init` creates.
    package static let current = allCases[allCases.count - 1]

    /// The first schema version whose files have this layout.
    package var firstSchemaVersion: Int {
        switch self {
        case .original: 1
        case .accessControl: 4
        }
    }

    /// The columns this layout adds to the one before it, each with the older column an upgrade
    /// copies into it (`nil`: NULL, as for the digest of a new attribute no stored item has yet).
    /// `accc` starts as `pdmn`: an access control that is the protection alone, which is not
    /// bound into the authenticated data, so no row needs re-sealing and a locked class upgrades too.
    package var addedColumns: [(column: String, filledFrom: String?)] {
        switch self {
        case .original: []
        case .accessControl: [(Schema.accessControl, Schema.protection)]
        }
    }

    /// BLAKE2b-256 of `KeychainSchema.derivedDump(self)`, which the schema check compares with a
    /// file's. An older layout's is fixed; the current one's changes with `Schema`, and
    /// `HardeningTests` fails until it is updated (and the change then needs a new layout).
    package var fingerprint: String {
        switch self {
        case .original: "f4a414d2a62054a1d2f49269e69241fa6c9c6f7df2870a8d2a588cf712e44839"
        case .accessControl: "15d5bdede39a8d118160f611c7c360664e477ab8696998ee6f8a00b368da7467"
        }
    }

    /// Whether this layout's tables have `column` (a column no layout adds is in every one).
    package func has(_ column: String) -> Bool {
        !Self.allCases.contains { $0 > self && $0.addedColumns.contains { $0.column == column } }
    }

    /// The layout after this one, `nil` for the current.
    package var next: TableLayout? { TableLayout(rawValue: rawValue + 1) }

    /// What an upgrade from this layout copies into `column` of the current one, as SQL over the
    /// old table: the older column it is filled from, NULL, or the column itself.
    package func source(of column: String) -> String {
        for layout in Self.allCases where layout > self {
            if let added = layout.addedColumns.first(where: { $0.column == column }) { return added.filledFrom ?? "NULL" }
        }
        return column
    }

    package static func < (lhs: TableLayout, rhs: TableLayout) -> Bool { lhs.rawValue < rhs.rawValue }
}
