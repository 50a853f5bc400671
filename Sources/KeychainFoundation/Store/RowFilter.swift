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
    package var digests: [DigestedAttribute] = []
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
        // Written as bytes into one buffer and made a string once: every query builds this, and
        // appending to a String cost it twice as much.
        var sql: [UInt8] = []
        sql.reserveCapacity(160)
        var values: [SQLiteStatement.Value] = []
        values.reserveCapacity((groups?.count ?? 0) + digests.count + 4)
        func term(_ parts: String...) {
            if !sql.isEmpty { sql += " AND ".utf8 }
            for part in parts { sql += part.utf8 }
        }
        if let tombstone { term(Schema.tombstone, tombstone ? " = 1" : " = 0") }
        if let sync { term(Schema.synchronizable, sync ? " = 1" : " = 0") }
        if let groups {
            term(Schema.accessGroup, " IN (")
            for index in groups.indices {
                sql += (index == 0 ? "?" : ", ?").utf8
                values.append(.text(groups[index]))
            }
            sql.append(UInt8(ascii: ")"))
        }
        if let accessibility {
            term(Schema.protection, " = ?")
            values.append(.text(accessibility))
        }
        for matched in digests {
            term(matched.column, " = ?")
            values.append(.blob(matched.digest))
        }
        if let uuid {
            term("uuid = ?")
            values.append(.blob(uuid))
        }
        if let rowid {
            term("rowid = ?")
            values.append(.integer(rowid))
        }
        if let accessControlContaining {
            term("instr(", Schema.accessControl, ", ?) > 0")
            values.append(.text(accessControlContaining))
        }
        return (sql.isEmpty ? "1" : String(decoding: sql, as: UTF8.self), values)
    }
}
