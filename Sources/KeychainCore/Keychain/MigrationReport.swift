import KeychainFormats
import KeychainFoundation

/// What a group migration did (or, in a dry run, would do), item by item. Holds attributes, never
/// secrets.
package struct MigrationReport: Sendable {
    /// What happened to one source item.
    package enum Outcome: String, Sendable {
        case moved, copied, skipped, replaced
    }

    /// One source item and its fate.
    package struct Entry: Sendable {
        /// The source item as it was.
        package let item: Item
        /// What happened to it.
        package let outcome: Outcome
        /// The target item it collided with, if any.
        package let conflictsWith: PersistentRef?
        /// For a copy: the new item's persistent reference (the source keeps its own).
        package var copy: PersistentRef? = nil
    }

    /// Every selected item, in class and insertion order.
    package var entries: [Entry] = []
    /// Whether nothing was written because it was a dry run.
    package var dryRun = false
    /// Whether nothing was written because conflicts refused the migration (`--on-conflict fail`).
    package var refused = false
    /// Damaged rows met while planning, left where they are (only with `skipDamaged`).
    package var damaged: [DamagedRow] = []
    /// Synchronizable items of the source group that the sync filter left out (a note for the user).
    package var unselectedSynchronizable = 0

    /// The entries with `outcome`.
    package func entries(_ outcome: Outcome) -> [Entry] { entries.filter { $0.outcome == outcome } }

    /// The entries that collided with an item in the target group, whatever was done about it.
    package var conflicts: [Entry] { entries.filter { $0.conflictsWith != nil } }
}

/// A migration refused because of conflicts: the report names them, the error carries the status.
package struct MigrationConflictError: Error, Sendable {
    package let error: KeychainError
    package let report: MigrationReport
}
