/// Which rows of a table a statement selects: the access-group, sync and tombstone filters and
/// the keyed digests of the matched attributes. Knows columns, not keys or policy.
package struct RowFilter: Sendable {
    /// Rows in any of these groups (`nil`: any group, for a wildcard profile).
    package var groups: [String]?
    /// `sync = ?`, or either when `nil`.
    package var sync: Bool?
    /// `pdmn = ?` when set.
    package var accessibility: String?
    /// `tomb = ?`, or either when `nil`.
    package var tombstone: Bool? = false
    /// `column = digest` for each matched attribute.
    package var digests: [(column: String, digest: [UInt8])] = []
    /// One row by UUID (a persistent reference).
    package var uuid: [UInt8]?
    /// One row by its SQLite rowid.
    package var rowid: Int64?
    /// Only rows whose access control's text contains this (a biometry binding).
    package var accessControlContaining: String?

    package init(groups: [String]?, sync: Bool?) {
        self.groups = groups
        self.sync = sync
    }

    /// Every row, tombstones included (verification, upgrades, a row by rowid).
    package static var everyRow: RowFilter {
        var filter = RowFilter(groups: nil, sync: nil)
        filter.tombstone = nil
        return filter
    }

    /// Whether an opened `item` is one this filter selects (checked after opening, so that an
    /// edited column cannot make SQL hand over a row the filter would not).
    package func admits(_ item: Item) -> Bool {
        (groups?.contains { $0.sameBytes(as: item.accessGroup) } ?? true) && (sync.map { $0 == item.isSynchronizable } ?? true)
            && (tombstone.map { $0 == item.isTombstone } ?? true)
            && (accessibility.map { $0.sameBytes(as: item.accessibility.rawValue) } ?? true) && (uuid.map { $0 == item.uuid } ?? true)
    }

    /// The WHERE clause and its bound values. The four filtered attributes are plaintext
    /// columns, so their column names are their codes.
    package var clause: (sql: String, values: [SQLiteStatement.Value]) {
        var terms: [String] = []
        var values: [SQLiteStatement.Value] = []
        if let tombstone {
            terms.append("\(Schema.tombstone) = \(tombstone ? 1 : 0)")
        }
        if let sync {
            terms.append("\(Schema.synchronizable) = \(sync ? 1 : 0)")
        }
        if let groups {
            terms.append("\(Schema.accessGroup) IN (\(Array(repeating: "?", count: groups.count).joined(separator: ", ")))")
            values += groups.map { .text($0) }
        }
        if let accessibility {
            terms.append("\(Schema.protection) = ?")
            values.append(.text(accessibility))
        }
        for (column, digest) in digests {
            terms.append("\(column) = ?")
            values.append(.blob(digest))
        }
        if let uuid {
            terms.append("uuid = ?")
            values.append(.blob(uuid))
        }
        if let rowid {
            terms.append("rowid = ?")
            values.append(.integer(rowid))
        }
        if let accessControlContaining {
            terms.append("instr(\(Schema.accessControl), ?) > 0")
            values.append(.text(accessControlContaining))
        }
        return (terms.isEmpty ? "1" : terms.joined(separator: " AND "), values)
    }
}
