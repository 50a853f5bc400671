import KeychainFormats
import KeychainFoundation

extension Keychain {
    /// How many rows of `itemClass` lie in each access group `caller` cannot read: what a listing
    /// that found nothing names, so that an empty answer is not taken for an empty keychain. Rows
    /// are counted by their plain group column, without opening any.
    package func unreadableGroups(of itemClass: ItemClass, caller: Caller) throws -> [(group: String, count: Int)] {
        var counts: [String: Int] = [:]
        try store.read {
            try store.forEachRow(itemClass, filter: .everyRow, withSecret: false) { _, row in
                if row.malformed == nil, !caller.groups.canRead(row.accessGroup) { counts[row.accessGroup, default: 0] += 1 }
                return true
            }
        }
        return counts.sorted { $0.key < $1.key }.map { (group: $0.key, count: $0.value) }
    }
}
