import Testing

@testable import KeychainCore

/// migrate-group in-process: outcomes, conflicts, refusals, filters, sync items and tombstones.
@Suite struct MigrationTests {
    static let app = "SKMME9E2Y8.com.example.app"
    static let shared = "SKMME9E2Y8.com.example.shared"
    let caller: Caller
    let keychain: TemporaryKeychain

    init() throws {
        caller = try Fixtures.caller("app.plist")
        keychain = try TemporaryKeychain()
        for account in ["a", "b", "c"] {
            try keychain.add([("svce", "svc"), ("acct", account)], secret: "secret-\(account)", as: caller)
        }
    }

    func migrate(
        _ filters: [(String, String)] = [], class itemClass: String? = nil, from: String = app, to: String = shared,
        copy: Bool = false, onConflict: ConflictPolicy = .fail, dryRun: Bool = false, as profile: String = "app.plist"
    ) throws -> MigrationReport {
        var migration = Keychain.Migration(from: from, to: to, request: TemporaryKeychain.request(filters, class: itemClass))
        migration.copy = copy
        migration.onConflict = onConflict
        migration.dryRun = dryRun
        return try keychain.keychain.migrateGroup(migration, caller: try Fixtures.caller(profile))
    }

    func items(in group: String, sync: String = "no") throws -> [Keychain.FoundItem] {
        let request = TemporaryKeychain.request([("agrp", group), ("sync", sync)], limit: "all", returns: ["attributes", "data"])
        do {
            return try keychain.keychain.find(request, caller: caller).items
        } catch let error as KeychainError where error.status == .itemNotFound {
            return []
        }
    }

    @Test func moveKeepsSecretsReferencesAndCreationDates() throws {
        let before = try items(in: Self.app)
        let report = try migrate()
        #expect(report.entries(.moved).count == 3)
        let after = try items(in: Self.shared)
        #expect(after.count == 3)
        #expect(try items(in: Self.app).isEmpty)
        for (old, new) in zip(before, after) {
            #expect(new.item.persistentRef == old.item.persistentRef)
            #expect(new.item.attributes["cdat"] == old.item.attributes["cdat"])
            #expect(new.secret?.string == old.secret?.string)
            guard case .date(let oldDate) = old.item.attributes["mdat"], case .date(let newDate) = new.item.attributes["mdat"] else {
                Issue.record("no dates")
                return
            }
            #expect(newDate > oldDate)
        }
        // The share extension sees them now.
        let request = TemporaryKeychain.request([("acct", "b")], returns: ["data"])
        #expect(
            try keychain.keychain.find(request, caller: try Fixtures.caller("share-extension.plist")).items[0].secret?.string == "secret-b")
    }

    @Test func copyKeepsTheSourceAndGivesCopiesNewReferences() throws {
        let report = try migrate(copy: true)
        #expect(report.entries(.copied).count == 3)
        #expect(try items(in: Self.app).count == 3)
        let copies = try items(in: Self.shared)
        #expect(copies.count == 3)
        #expect(Set(copies.map(\.item.persistentRef)).isDisjoint(with: Set(try items(in: Self.app).map(\.item.persistentRef))))
        #expect(report.entries.compactMap(\.copy) == copies.map(\.item.persistentRef))
        #expect(copies.map { $0.secret?.string } == ["secret-a", "secret-b", "secret-c"])
    }

    @Test func conflictsFailByDefaultAndChangeNothing() throws {
        try keychain.add([("svce", "svc"), ("acct", "b"), ("agrp", Self.shared)], secret: "target-b", as: caller)
        try keychain.add([("svce", "svc"), ("acct", "c"), ("agrp", Self.shared)], secret: "target-c", as: caller)
        do {
            _ = try migrate()
            Issue.record("migrated despite conflicts")
        } catch let refused as MigrationConflictError {
            #expect(refused.error.status == .duplicateItem)
            #expect(refused.report.refused)
            #expect(refused.report.conflicts.map { $0.item.attributes["acct"] } == [.string("b"), .string("c")])
            #expect(refused.error.hint.contains("acct=b") && refused.error.hint.contains("acct=c"))
        }
        #expect(try items(in: Self.app).count == 3)
        #expect(try items(in: Self.shared).map { $0.secret?.string } == ["target-b", "target-c"])
    }

    @Test func skipLeavesConflictsAndReplaceOverwritesTheTarget() throws {
        try keychain.add([("svce", "svc"), ("acct", "b"), ("agrp", Self.shared)], secret: "target-b", as: caller)
        let skipped = try migrate(onConflict: .skip)
        #expect(skipped.entries(.moved).count == 2)
        #expect(skipped.entries(.skipped).count == 1)
        #expect(try items(in: Self.app).map { $0.item.attributes["acct"] } == [.string("b")])
        let replaced = try migrate(onConflict: .replace)
        #expect(replaced.entries(.replaced).count == 1)
        #expect(try items(in: Self.app).isEmpty)
        let target = try items(in: Self.shared)
        #expect(target.count == 3)
        #expect(target.first { $0.item.attributes["acct"] == .string("b") }?.secret?.string == "secret-b")
    }

    @Test func dryRunPlansAndChangesNothing() throws {
        let plan = try migrate(dryRun: true)
        #expect(plan.dryRun)
        #expect(plan.entries(.moved).count == 3)
        #expect(try items(in: Self.app).count == 3)
        #expect(try items(in: Self.shared).isEmpty)
    }

    @Test func refusalsNothingSelectedAndBadRequests() throws {
        #expect(status { _ = try migrate(as: "widget.plist") } == -34018)
        #expect(status { _ = try migrate(to: "com.apple.token") } == -34018)
        #expect(status { _ = try migrate(to: "com.example.shared") } == -34018)
        #expect(status { _ = try migrate(to: Self.app) } == -50)
        #expect(status { _ = try migrate([("agrp", Self.app)]) } == -50)
        #expect(status { _ = try migrate([("acct", "nobody")]) } == -25300)
        #expect(status { _ = try migrate(from: "group.com.example") } == -25300)
        #expect(status { _ = try migrate([("zzzz", "1")]) } == -25303)
        #expect(status { _ = try migrate(class: "bogus") } == -25306)
        #expect(try items(in: Self.app).count == 3)
    }

    @Test func filtersNarrowTheFamilyAcrossClasses() throws {
        try keychain.add([("srvr", "example.com"), ("acct", "a")], class: "inet", as: caller)
        let byAccount = try migrate([("acct", "a")])
        #expect(byAccount.entries.map(\.item.itemClass) == [.genericPassword, .internetPassword])
        // A filter only some classes have selects from those classes.
        let byService = try migrate([("svce", "svc")], from: Self.app, to: "group.com.example")
        #expect(byService.entries.count == 2)
        #expect(byService.entries.allSatisfy { $0.item.itemClass == .genericPassword })
        let narrowed = try migrate(class: "genp", from: Self.shared, to: "group.com.example")
        #expect(narrowed.entries.count == 1)
    }

    @Test func syncItemsNeedTheSyncFilterAndLeaveTombstones() throws {
        try keychain.add([("svce", "synced"), ("sync", "yes")], secret: "s", as: caller)
        let plain = try migrate()
        #expect(plain.entries.count == 3)
        #expect(plain.unselectedSynchronizable == 1)
        let synced = try migrate([("sync", "any")], from: Self.app, to: "group.com.example")
        #expect(synced.entries.count == 1)
        #expect(try items(in: "group.com.example", sync: "yes").count == 1)
        var tombstones = RowFilter(groups: [Self.app], sync: true)
        tombstones.tombstone = true
        #expect(try keychain.keychain.store.rows(.genericPassword, filter: tombstones, withSecret: true).map(\.row.secret) == [nil])
    }

    /// The plan finds each target holder once; a tombstone there is replaced by the write, as an add
    /// replaces it, and a live holder is only ever replaced when asked.
    @Test func aTombstoneInTheTargetGroupIsReplacedByTheMoveAndTheCopy() throws {
        try keychain.add([("svce", "synced"), ("sync", "yes")], secret: "first", as: caller)
        _ = try migrate([("svce", "synced"), ("sync", "yes")], from: Self.app, to: Self.shared)  // leaves a tombstone in app
        let back = try migrate([("svce", "synced"), ("sync", "yes")], from: Self.shared, to: Self.app)
        #expect(back.entries.map(\.outcome) == [.moved])
        #expect(back.conflicts.isEmpty)
        let returned = try items(in: Self.app, sync: "yes")
        #expect(returned.count == 1)
        #expect(returned.first.flatMap { $0.secret.map { String(decoding: $0.withUnsafeBytes { Array($0) }, as: UTF8.self) } } == "first")
        // Now the tombstone is in shared: a copy over it replaces it too, and the original stays.
        let copied = try migrate([("svce", "synced"), ("sync", "yes")], from: Self.app, to: Self.shared, copy: true)
        #expect(copied.entries.map(\.outcome) == [.copied])
        #expect(try items(in: Self.shared, sync: "yes").count == 1)
        #expect(try items(in: Self.app, sync: "yes").count == 1)
        var tombstones = RowFilter(groups: [Self.app, Self.shared], sync: true)
        tombstones.tombstone = true
        #expect(try keychain.keychain.store.rows(.genericPassword, filter: tombstones, withSecret: true).isEmpty)
    }
}
