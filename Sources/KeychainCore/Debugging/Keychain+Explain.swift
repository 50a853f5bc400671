import KeychainFormats
import KeychainFoundation

/// `explain`: the status a SecItem call would return for this caller, and every item that nearly
/// matches with each reason it is or is not included (docs/DEBUGGING.md).
///
/// Nothing is written and no secret is read. Items are compared by their plaintext columns and
/// keyed digests, so locked classes are compared too; only the listed candidates are opened, to
/// show their attributes. Dimensions, in securityd's order: class, each attribute the query
/// gives, access group, sync, tombstone; then the lock state, which fails the whole call. A
/// candidate differs in at most two dimensions; items that differ in more are only counted.
extension Keychain {
    /// One dimension an item fails.
    private enum Miss: Equatable {
        case itemClass
        case attribute(String)
        case group
        case sync
        case tombstone

        /// Whether the query's own words decide it (a near miss) rather than an implicit filter.
        var isQueryOwn: Bool {
            switch self {
            case .itemClass, .attribute: true
            case .group, .sync, .tombstone: false
            }
        }
    }

    private struct Scanned {
        let itemClass: ItemClass
        let rowid: Int64
        let row: SealedItem
        let misses: [Miss]
        let locked: Bool
    }

    /// Explains `operation` for `request` as `caller` would make it; at most `limit` candidates.
    package func explain(_ operation: Explanation.Operation, _ request: ItemRequest, caller: Caller, limit: Int = 20) throws
        -> Explanation
    {
        if ItemClass(parsing: request.itemClass ?? "") == .identity {
            return try explainIdentities(operation, request, caller: caller, limit: limit)
        }
        // The call's own checks, made as it makes them: the first refusal is the prediction. A
        // refusal before the query is parsed still leaves the query to compare the items with.
        var predicted: KeychainError? = nil
        let query: ItemQuery
        var landingGroup: String?
        do {
            let checked = try preflight(
                operation, request, caller: caller, makingSynchronizable: operation == .add && request.makesSynchronizable)
            (query, landingGroup) = (checked.query, checked.landingGroup)
        } catch let refusal as KeychainError {
            let parsed: ItemQuery
            do { parsed = try Self.parse(operation, request) } catch let malformed as KeychainError {
                // A malformed query has nothing to compare item by item: explaining it is the
                // error itself, unless the call refuses earlier (no group, the App Clip, a group it
                // lacks), which is then the prediction.
                if malformed.status == refusal.status && malformed.hint == refusal.hint { throw malformed }
                return Explanation(operation: operation, predicted: refusal, candidates: [], omitted: 0, unrelated: 0)
            }
            predicted = refusal
            query = parsed
            // A refused add is still compared in the group it would have landed in.
            if operation == .add { landingGroup = Self.landingGroup(of: query, caller: caller) }
        }
        // An update checks its persistent reference after its changes, which explain has none of.
        if predicted == nil, operation == .update {
            do { try Self.checkPersistentRefStandsAlone(query) } catch { predicted = error }
        }
        let groups = caller.groups
        let explicit = query.attributes[Schema.accessGroup]?.stringValue
        // An add is compared by the new item's primary key in the group it would land in.
        let addGroup = landingGroup
        var compared = query.attributes.filter { $0.key != Schema.accessGroup && $0.key != Schema.synchronizable }
        if operation == .add {
            compared = compared.filter { query.schema.primaryKey.contains($0.key) }
            for code in query.schema.primaryKey where compared[code] == nil && code != Schema.accessGroup && code != Schema.synchronizable {
                compared[code] = .defaultValue(for: query.schema.attribute(code)!.kind)
            }
        }
        let sibling: ItemClass? =
            switch query.itemClass {
            case .genericPassword: .internetPassword
            case .internetPassword: .genericPassword
            default: nil
            }
        // What every row is compared with, worked out once: the attributes, and the sync value
        // wanted (`nil`: either).
        var comparer = AttributeComparer(compared)
        let wantsSync: Bool? = operation == .add ? query.sync == .yes : query.sync == .any ? nil : query.sync == .yes
        var scanned: [Scanned] = []
        var unrelated = 0
        try store.read {
            for itemClass in [query.itemClass] + (sibling.map { [$0] } ?? []) {
                comparer.prepare(for: itemClass, keys: keys)
                try store.forEachRow(itemClass, filter: .everyRow, withSecret: false) { rowid, row in
                    guard row.malformed == nil else { return true }
                    var misses: [Miss] = itemClass == query.itemClass ? [] : [.itemClass]
                    misses += comparer.misses(row).map(Miss.attribute)
                    // The digests match bytes alone; a query also compares kinds, on the opened row (an
                    // add's primary key does not: a twin of another kind still collides).
                    if misses.isEmpty, operation != .add, !isLocked(row),
                        let opened = try? keys.open(row, itemClass: itemClass, withSecret: false)
                    {
                        misses += comparer.codes.filter { code in
                            guard let given = query.attributes[code], let stored = opened.opened.item.attributes[code] else { return false }
                            return !given.matches(stored)
                        }.map(Miss.attribute)
                    }
                    if let addGroup {
                        if !row.accessGroup.sameBytes(as: addGroup) { misses.append(.group) }
                    } else if let explicit {
                        if !row.accessGroup.sameBytes(as: explicit) { misses.append(.attribute(Schema.accessGroup)) }
                    } else if !groups.canRead(row.accessGroup) {
                        misses.append(.group)
                    }
                    if let wantsSync, wantsSync != row.isSynchronizable { misses.append(.sync) }
                    if row.isTombstone { misses.append(.tombstone) }
                    guard misses.count <= 2 else {
                        unrelated += 1
                        return true
                    }
                    scanned.append(Scanned(itemClass: itemClass, rowid: rowid, row: row, misses: misses, locked: isLocked(row)))
                    return true
                }
            }
        }
        if predicted == nil { predicted = predict(operation, query: query, caller: caller, addGroup: addGroup, scanned) }
        func rank(_ entry: Scanned) -> (Int, Int, Int64) { (entry.misses.count, entry.itemClass == query.itemClass ? 0 : 1, entry.rowid) }
        let ranked = scanned.sorted { rank($0) < rank($1) }
        let listed = try ranked.prefix(limit).map {
            try candidate($0, operation: operation, query: query, caller: caller, addGroup: addGroup)
        }
        return Explanation(
            operation: operation, predicted: predicted, candidates: listed, omitted: max(0, ranked.count - limit), unrelated: unrelated)
    }

    /// The call's status from the scanned rows, walking full matches in row order as the call does.
    private func predict(
        _ operation: Explanation.Operation, query: ItemQuery, caller: Caller, addGroup: String?, _ scanned: [Scanned]
    ) -> KeychainError? {
        let matches = scanned.filter { $0.misses.isEmpty }
        switch operation {
        case .add:
            let protection =
                query.attributes[Schema.protection]?.stringValue.flatMap(Accessibility.init(rawValue:)) ?? .defaultFor(query.itemClass)
            if !keys.device.allows(protection) { return keys.device.refusal(protection) }
            if let twin = matches.first {
                return KeychainError(
                    .duplicateItem,
                    hint:
                        "an item with the same primary key (\(query.schema.primaryKey.joined(separator: ", "))) is already in \(addGroup ?? "the group"): \(PersistentRef(itemClass: twin.itemClass, uuid: twin.row.uuid).base64)."
                )
            }
            return nil
        case .find, .update:
            let rowLimit = operation == .find ? query.limit.rowLimit : nil
            var seen = 0
            for match in matches {
                if let rowLimit, seen >= rowLimit { break }
                if match.locked {
                    let protection = Accessibility(rawValue: match.row.accessibility) ?? .whenUnlocked
                    return keys.device.refusal(protection)
                }
                if !(operation == .update && !caller.groups.canWrite(match.row.accessGroup)) { seen += 1 }
            }
            return seen > 0 ? nil : caller.notFound(notFound(query, filter: filter(for: query, caller: caller, writing: operation.writes)))
        case .delete:
            let deletable = matches.filter { caller.groups.grantsEveryGroup || caller.groups.canWrite($0.row.accessGroup) }
            return deletable.isEmpty ? notFound(query, filter: filter(for: query, caller: caller, writing: true)) : nil
        }
    }

    /// A listed candidate: opened when its class allows, with its verdict, reasons, notes and fixes.
    private func candidate(
        _ scanned: Scanned, operation: Explanation.Operation, query: ItemQuery, caller: Caller, addGroup: String?
    ) throws -> Explanation.Candidate {
        let row = scanned.row
        var item = Item(itemClass: scanned.itemClass, uuid: row.uuid, attributes: row.plaintext)
        var opened = false
        var damaged = false
        if !scanned.locked {
            if let open = try? keys.open(row, itemClass: scanned.itemClass, withSecret: false) {
                item = open.opened.item
                opened = true
            } else {
                damaged = true
            }
        }
        // Why the item's own values cannot be shown, when they cannot.
        let unreadable: String? = opened ? nil : damaged ? "the item is damaged" : "its class is locked"
        var reasons: [Explanation.Reason] = []
        var fixes: [String] = []
        for miss in scanned.misses {
            let (reason, fix) = explainMiss(miss, item: item, unreadable: unreadable, query: query, caller: caller, addGroup: addGroup)
            reasons.append(reason)
            // An add queries nothing: a fix that changes the query does not apply to it.
            if let fix, operation != .add || !fix.changesQuery { fixes.append(fix.text(for: caller, writing: operation.writes)) }
        }
        let readOnly = operation.writes && scanned.misses.isEmpty && !caller.groups.canWrite(row.accessGroup)
        let verdict: Explanation.Verdict
        let explicit = query.attributes[Schema.accessGroup]?.stringValue
        if scanned.misses.isEmpty, operation != .add, let explicit, !caller.mayUse(explicit, writing: operation.writes) {
            verdict = .blocked
            reasons.append(
                .init(
                    code: .groupNotEntitled, attribute: Schema.accessGroup, itemValue: explicit,
                    text:
                        "matches, but the query names \(explicit), which this profile may not \(operation.writes ? "write" : "read"): the whole call fails with errSecMissingEntitlement (-34018)"
                ))
            fixes.append(
                "add \(explicit) to this target's \(Self.entitlementListing(explicit)) (with its provisioning profile), or leave the group out of the query"
            )
        } else if scanned.misses.isEmpty {
            if operation == .add {
                verdict = .blocked
                reasons.append(
                    .init(
                        code: .primaryKeyCollision,
                        text:
                            "has the same primary key (\(query.schema.primaryKey.joined(separator: ", "))): the add fails with errSecDuplicateItem (-25299) even if a find with other attributes missed it"
                    ))
                fixes.append("update it instead (or add -U), or give the new item another account or service")
            } else if scanned.locked, operation != .delete {
                verdict = .blocked
                reasons.append(
                    .init(
                        code: .locked,
                        text:
                            "its class \(row.accessibility) is locked in the device state \(keys.device.lock.rawValue): the whole call fails with errSecInteractionNotAllowed (-25308)"
                    ))
                fixes.append(
                    "run the call unlocked, narrow the query with --accessible so it misses this item, or store it after-first-unlock (ck) if it is read in the background"
                )
            } else if readOnly {
                verdict = .readOnly
                reasons.append(
                    .init(code: .notWritable, text: "is in \(row.accessGroup), which this profile may read but never write"))
            } else {
                verdict = .visible
            }
        } else {
            verdict = scanned.misses.contains(where: \.isQueryOwn) ? .nearMiss : .hidden
        }
        var notes: [Explanation.Note] = []
        if let protection = Accessibility(rawValue: row.accessibility), protection.isThisDeviceOnly {
            notes.append(row.isSynchronizable ? .syncThisDeviceOnly : .thisDeviceOnly)
        }
        if row.hasAccessControl { notes.append(.asksAuthentication) }
        if damaged { notes.append(.damaged) }
        return Explanation.Candidate(item: item, opened: opened, verdict: verdict, reasons: reasons, notes: notes, fixes: fixes)
    }

    /// The reason for one missed dimension, and its fix.
    private func explainMiss(
        _ miss: Miss, item: Item, unreadable: String?, query: ItemQuery, caller: Caller, addGroup: String?
    ) -> (Explanation.Reason, Fix?) {
        let groups = caller.groups
        switch miss {
        case .itemClass:
            return (
                .init(
                    code: .classMismatch, itemValue: item.itemClass.rawValue, queryValue: query.itemClass.rawValue,
                    text: "is \(Self.article(item.itemClass.longName)), the query asks for \(Self.article(query.itemClass.longName))"),
                .query("--class \(item.itemClass.rawValue)")
            )
        case .attribute(let code):
            let name = query.schema.attribute(code)?.name ?? code
            let wanted = query.attributes[code]?.displayText ?? ""
            let has =
                unreadable == nil || code == Schema.protection || code == Schema.accessGroup
                ? item.attributes[code]?.displayText ?? "(none)" : nil
            var text = "\(code) (\(name)) differs: "
            if let stored = item.attributes[code], let given = query.attributes[code], unreadable == nil,
                stored.canonicalBytes == given.canonicalBytes
            {
                // The same bytes, another kind: what an app's Data account against a String query meets.
                text +=
                    "the item holds \(stored.storageClass.article), the query gives \(given.storageClass.article) of the same bytes; "
                    + "Apple's keychain compares kinds, so they do not match"
                return (.init(code: .attributeMismatch, attribute: code, itemValue: has, queryValue: wanted, text: text), nil)
            }
            text +=
                has.map { "item \"\($0)\", query \"\(wanted)\"" }
                ?? "query \"\(wanted)\"; the item's value cannot be read: \(unreadable ?? "")"
            if code == Schema.service { text += " (wrappers default the service to the bundle identifier, which differs per target)" }
            // The item's group is the queried one with a Team ID prefix: the prefix was left out.
            if code == Schema.accessGroup, let has, has.count == wanted.count + 11, has.hasSuffix("." + wanted),
                TeamChange.isTeamID(String(has.prefix(10)))
            {
                return (
                    .init(
                        code: .groupMissingPrefix, attribute: code, itemValue: has, queryValue: wanted,
                        text: text + " (the query leaves out the Team ID prefix, which access groups carry)"),
                    .group(has)
                )
            }
            let fix: Fix? = has.map {
                code == Schema.accessGroup ? .group($0) : .query("\(code)=\"\($0)\", or give every target the same \(name)")
            }
            return (.init(code: .attributeMismatch, attribute: code, itemValue: has, queryValue: wanted, text: text), fix)
        case .group:
            let group = item.accessGroup
            if let addGroup {
                return (
                    .init(
                        code: .groupNotEntitled, attribute: Schema.accessGroup, itemValue: group, queryValue: addGroup,
                        text: "is in \(group); this add lands in \(addGroup), so it makes a second item rather than colliding"),
                    nil
                )
            }
            if let ignored = groups.ignoredEntry(for: group) {
                return (
                    .init(
                        code: .appGroupIgnoredPlatform, attribute: Schema.accessGroup, itemValue: group,
                        text:
                            "is in \(group), which this profile claims in \(ignored.source) but macOS ignores: no provisioning profile validates these entitlements"
                    ),
                    .entitlements(
                        "pass --provisioning PATH (the profile that signs this target), or claim the group in keychain-access-groups")
                )
            }
            let suffix = group.split(separator: ".", maxSplits: 1).last.map(String.init) ?? group
            if let twin = groups.groups.first(where: { $0.hasSuffix("." + suffix) && !$0.sameBytes(as: group) && group.contains(".") }) {
                return (
                    .init(
                        code: .groupOtherTeam, attribute: Schema.accessGroup, itemValue: group, queryValue: twin,
                        text:
                            "is in \(group): the same group name under another App ID prefix than this profile's \(twin). Was the app transferred, or its prefix migrated? (forums 706128, QA1726)"
                    ),
                    .entitlements("before a transfer, move the items with migrate-group to an app group that moves with the app")
                )
            }
            let list = groups.readable.joined(separator: ", ")
            if let program = BuiltInProfile.program(ofGroup: group) {
                // The name holds only letters, digits, '.', '-' and '_': a word for the shell as it
                // is, and for the parser too once a leading '-' is attached or behind './'.
                let plist = (program.hasPrefix("-") ? "./" : "") + program + ".plist"
                return (
                    .init(
                        code: .groupNotEntitled, attribute: Schema.accessGroup, itemValue: group,
                        text:
                            "is in \(group), the group of the program \(program) when it is given no profile; this profile does not read it (it reads \(list.isEmpty ? "nothing" : list))"
                    ),
                    .entitlements(
                        "act as that program: keychainctl profile show --program=\(program) > \(plist), then pass --profile \(plist)"
                    )
                )
            }
            return (
                .init(
                    code: .groupNotEntitled, attribute: Schema.accessGroup, itemValue: group,
                    text: "is in \(group), which this profile does not read (it reads \(list.isEmpty ? "nothing" : list))"),
                .entitlements(Self.sharingFix(group, readable: groups.readable))
            )
        case .sync:
            let wanted = query.sync == .yes ? "yes" : "no"
            return (
                .init(
                    code: .syncFilter, attribute: Schema.synchronizable, itemValue: item.isSynchronizable ? "yes" : "no",
                    queryValue: wanted,
                    text: item.isSynchronizable
                        ? "is synchronizable and the query \(query.mentionsSync ? "asks for sync=no" : "has no sync key (so only sync=no items)")"
                        : "is not synchronizable and the query asks for sync=yes"),
                .query("--sync any")
            )
        case .tombstone:
            return (
                .init(code: .tombstone, text: "is a tombstone: a deleted synchronizable item kept for sync, invisible to every query"),
                nil
            )
        }
    }

    /// A fix `explain` proposes. One that names a group for the query is checked against the
    /// caller's own groups before it is printed: a group the target may not use would turn a miss
    /// into errSecMissingEntitlement (-34018), so the fix says what the target lacks instead.
    private enum Fix {
        /// Query with these words added.
        case query(String)
        /// Query with `agrp` set to this group.
        case group(String)
        /// Change the entitlements or the item: advice that is not a query.
        case entitlements(String)

        var changesQuery: Bool {
            switch self {
            case .query, .group: true
            case .entitlements: false
            }
        }

        func text(for caller: Caller, writing: Bool) -> String {
            switch self {
            case .query(let words): return "query with \(words)"
            case .entitlements(let text): return text
            case .group(let group):
                if caller.mayUse(group, writing: writing) { return "query with agrp=\"\(group)\"" }
                let own = (writing ? caller.groups.writable : caller.groups.readable).joined(separator: ", ")
                return "this target may not \(writing ? "write" : "read") \(group), so querying it would fail with -34018: "
                    + "add it to this target's \(Keychain.entitlementListing(group)), or store the item in a group this target "
                    + "\(writing ? "writes" : "reads") (\(own.isEmpty ? "none" : own))"
            }
        }
    }

    /// The entitlement a target lists `group` in for a fix: an iOS app group (`group.…`) in
    /// com.apple.security.application-groups (in keychain-access-groups it is KC001, refused by
    /// every provisioning profile), any other group in keychain-access-groups.
    /// The fix for an item in a group this target does not read, as `lint` gives it for the build:
    /// an app group is listed in the target's application groups; another target's own group is
    /// not (this target's adds would then land in it too), so the targets share a default instead,
    /// one Team-prefixed group first in every target's keychain-access-groups, or the writer passes
    /// a group both read; the item already written is moved with migrate-group.
    static func sharingFix(_ group: String, readable: [String]) -> String {
        if group.hasPrefix("group.") {
            return "add \(group) to this target's \(entitlementListing(group)), or write the item to a group every target reads"
        }
        let prefix = [group] + readable
        let team =
            prefix.lazy.compactMap { $0.split(separator: ".", maxSplits: 1).first.map(String.init) }
            .first { $0.count == 10 && $0.allSatisfy { $0.isUppercase || $0.isNumber } } ?? "TEAMID"
        let shared = readable.filter { $0.hasPrefix("group.") }
        let passing = shared.isEmpty ? "a group every target reads" : "a group it reads (\(shared.joined(separator: ", ")))"
        return "list one Team-prefixed group, such as \(team).shared, first in every target's keychain-access-groups, or have the "
            + "target that adds the item pass \(passing) as kSecAttrAccessGroup; then move this item there with migrate-group"
    }

    package static func entitlementListing(_ group: String) -> String {
        group.hasPrefix("group.") ? AccessGroupList.Key.applicationGroups : AccessGroupList.Key.keychainAccessGroups
    }

    /// "a generic password", "an internet password".
    private static func article(_ noun: String) -> String { ("aeiou".contains(noun.first ?? "x") ? "an " : "a ") + noun }
}
