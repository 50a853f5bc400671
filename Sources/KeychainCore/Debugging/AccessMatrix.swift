import KeychainFormats
import KeychainFoundation

/// What `matrix` found: for each item (or access group) and each target, whether the target may
/// read and write it, and why not (docs/DEBUGGING.md).
package struct AccessMatrix: Sendable {
    /// Why a target does not see an item, or sees it only under a condition: the closed set of
    /// one-letter marks docs/DEBUGGING.md documents, in the order they are shown.
    package enum Mark: String, Sendable, CaseIterable {
        /// The target is not entitled to the item's group.
        case group = "G"
        /// macOS ignores the entitlement naming the group: no provisioning profile validates it.
        case platform = "P"
        /// A tombstone: invisible to every query.
        case tombstone = "T"
        /// The sync filter: the query's sync value leaves it out (`--sync any` shows it).
        case sync = "S"
        /// Its class is locked in this device state: a find that reaches it fails with -25308.
        case locked = "L"
        /// Its sealed attributes do not open (edited without the key): its plaintext group cannot be
        /// trusted, and the calls report errSecDecode (-26275).
        case damaged = "D"

        /// Whether the mark hides the item outright (the sync filter only conditions it).
        var hides: Bool { self != .sync }
    }

    /// One target's access to one item or group.
    package struct Cell: Sendable, Hashable {
        package let read: Bool
        package let write: Bool
        package let marks: [Mark]
    }

    /// One item and its cells, one per target.
    package struct ItemRow: Sendable {
        /// Its attributes; only the plaintext columns when it could not be opened.
        package let item: Item
        /// Why its other attributes cannot be shown: `nil` when it opened.
        package let sealed: Sealed?
        package let cells: [Cell]
        /// Which distinct set of cells `cells` is (rows of one group and flags share one): an index
        /// into `cellSets`, so that a renderer works each set out once.
        package let cellSet: Int
        /// For an identity (a certificate joined with its key): the key's access group, which a
        /// target must also read; the item's own `agrp` is the certificate's.
        package var keyGroup: String? = nil
    }

    /// Why an item's sealed attributes are not shown.
    package enum Sealed: String, Sendable {
        /// Its class is locked in this device state.
        case locked
        /// Its metadata does not open: edited without the key (errSecDecode to the calls).
        case damaged
    }

    /// One access group, how many of the items it holds, and its cells.
    package struct GroupRow: Sendable {
        package let group: String
        package let items: Int
        package let cells: [Cell]
    }

    /// Where a target's adds without a group land, and which targets see them there.
    package struct Landing: Sendable {
        /// The default group; `nil` when the target cannot write anywhere (-34018).
        package let group: String?
        /// Indices of the targets that may read `group`, the writer included.
        package let visibleTo: [Int]
        package let hiddenFrom: [Int]
    }

    /// The targets, in the order given.
    package let targets: [Caller]
    /// The items the query selects, in row order (tombstones included: they show as `T`).
    package let items: [ItemRow]
    /// The distinct sets of cells the items have.
    package let cellSets: [[Cell]]
    /// Every group a target lists or an item lies in: the targets' groups in order, then the rest
    /// sorted.
    package let groups: [GroupRow]
    /// One per target.
    package let landings: [Landing]

    /// One per target.
    package init(targets: [Caller], items: [ItemRow], cellSets: [[Cell]], groups: [GroupRow], landings: [Landing]) {
        self.targets = targets
        self.items = items
        self.cellSets = cellSets
        self.groups = groups
        self.landings = landings
    }

    /// What the targets' entitlements alone say, with no keychain: each group a target lists and
    /// who may use it, and where each target's adds land.
    package static func entitlementsOnly(_ targets: [Caller]) -> AccessMatrix {
        AccessMatrix(targets: targets, items: [], cellSets: [], groups: groupRows(targets, held: []), landings: landings(targets))
    }

    /// The pairs of targets (indices) that share no access group: neither reads what the other stores.
    package var strangers: [(Int, Int)] {
        targets.indices.flatMap { first in
            targets.indices.filter { $0 > first }.compactMap { second in
                targets[first].groups.readable.contains(where: targets[second].groups.canRead) ? nil : (first, second)
            }
        }
    }

    /// Every group a target lists, in order, then the groups items lie in (sorted), each with its
    /// item count and one cell per target. Groups are compared by bytes, never as Strings (which
    /// would take two canonically equal spellings for one group).
    static func groupRows(_ targets: [Caller], held: [(group: String, items: Int)]) -> [GroupRow] {
        var named: [String] = []
        for group in targets.flatMap(\.groups.groups) + held.map(\.group).sorted() where !named.contains(where: { $0.sameBytes(as: group) })
        {
            named.append(group)
        }
        return named.map { group in
            GroupRow(
                group: group, items: held.first { $0.group.sameBytes(as: group) }?.items ?? 0,
                cells: targets.map { cell(group: group, caller: $0, tombstone: false, sync: false, locked: false) })
        }
    }

    /// Where each target's adds without a group land, and which targets may read them there.
    static func landings(_ targets: [Caller]) -> [Landing] {
        targets.map { writer in
            guard let group = writer.groups.defaultGroup else { return Landing(group: nil, visibleTo: [], hiddenFrom: []) }
            let indices = Array(targets.indices)
            let visible = indices.filter { targets[$0].groups.canRead(group) }
            return Landing(group: group, visibleTo: visible, hiddenFrom: indices.filter { !visible.contains($0) })
        }
    }

    /// One target's cell for an item in `group`.
    static func cell(group: String, caller: Caller, tombstone: Bool, sync: Bool, locked: Bool) -> Cell {
        var marks: [Mark] = []
        if !caller.groups.canRead(group) { marks.append(caller.groups.ignoredEntry(for: group) == nil ? .group : .platform) }
        if tombstone { marks.append(.tombstone) }
        if sync { marks.append(.sync) }
        if locked { marks.append(.locked) }
        let read = !marks.contains(where: \.hides)
        return Cell(read: read, write: read && caller.groups.canWrite(group), marks: marks)
    }
}
