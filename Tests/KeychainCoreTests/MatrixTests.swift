import Testing

@testable import KeychainCore

/// `matrix`'s cells are what each target's real calls do.
@Suite struct MatrixTests {
    /// Items in the groups of Fixtures' three targets, a synchronizable one and a tombstone.
    private static func crowded() throws -> TemporaryKeychain {
        let keychain = try TemporaryKeychain()
        let app = try Fixtures.caller("app.plist")
        try keychain.add([("svce", "api"), ("acct", "alice")], as: app)
        try keychain.add([("svce", "api"), ("acct", "bob"), ("agrp", Fixtures.sharedGroup)], as: app)
        try keychain.add([("svce", "api"), ("acct", "ci"), ("agrp", "group.com.example"), ("sync", "yes")], as: app)
        try keychain.add([("svce", "api"), ("acct", "w"), ("pdmn", "ak")], as: try Fixtures.caller("widget.plist"))
        try keychain.add([("svce", "api"), ("acct", "gone"), ("agrp", "group.com.example"), ("sync", "yes")], as: app)
        _ = try keychain.keychain.delete(TemporaryKeychain.request([("acct", "gone"), ("sync", "yes")]), caller: app)
        try keychain.add([("svce", "other"), ("acct", "unrelated")], as: app)
        return keychain
    }

    private static let targets = ["app.plist", "share-extension.plist", "widget.plist", "token-reader.plist", "no-entitlements.plist"]

    /// Every cell says what a find (with --sync any) and an update by that target return.
    @Test(arguments: [DeviceState.Lock.unlocked, .locked])
    func cellsAreWhatTheCallsReturn(_ lock: DeviceState.Lock) throws {
        let keychain = try Self.crowded()
        let callers = try Self.targets.map(Fixtures.caller)
        _ = try keychain.keychain.changeDevice(lock == .unlocked ? .unlock : .lock)
        let matrix = try keychain.keychain.matrix(TemporaryKeychain.request([("svce", "api")]), targets: callers)
        #expect(matrix.items.count == 5)  // the unrelated service is not a row; the tombstone is
        let opened = try keychain.reopen()
        for row in matrix.items {
            let group = row.item.accessGroup
            let uuid = row.item.uuid
            for (caller, cell) in zip(callers, row.cells) {
                let pairs = [("svce", "api"), ("agrp", group), ("sync", "any")]
                var read = false
                if status({ _ = try opened.find(TemporaryKeychain.request(pairs, limit: "all"), caller: caller) }) == 0 {
                    let found = try opened.find(TemporaryKeychain.request(pairs, limit: "all"), caller: caller)
                    read = found.items.contains { $0.item.uuid == uuid }
                }
                let wrote =
                    status {
                        _ = try opened.update(
                            TemporaryKeychain.request(pairs + [("acct", row.item.attributes["acct"]?.stringValue ?? "")]),
                            changes: [(code: "labl", value: "x")], secret: nil, caller: caller, dryRun: true)
                    } == 0
                #expect(cell.read == read, "\(caller.name) reading \(group), \(lock)")
                #expect(cell.write == (read && wrote), "\(caller.name) writing \(group), \(lock)")
            }
        }
    }

    @Test func marksSayWhy() throws {
        let keychain = try Self.crowded()
        let callers = try ["app.plist", "widget.plist"].map(Fixtures.caller)
        let matrix = try keychain.keychain.matrix(TemporaryKeychain.request([("svce", "api")]), targets: callers)
        func cells(_ account: String) -> [AccessMatrix.Cell] {
            matrix.items.first { $0.item.attributes["acct"] == .string(account) }?.cells ?? []
        }
        #expect(cells("alice").map(\.marks) == [[], [.group]])
        #expect(cells("ci").map(\.marks) == [[.sync], [.sync]])
        #expect(cells("ci").map(\.read) == [true, true])  // readable with --sync any
        let tombstone = try #require(matrix.items.first { $0.item.isTombstone })
        #expect(tombstone.cells.allSatisfy { !$0.read && $0.marks.contains(.tombstone) })
        #expect(matrix.landings.map(\.group) == ["SKMME9E2Y8.com.example.app", "SKMME9E2Y8.com.example.app.widget"])
        #expect(matrix.landings[0].visibleTo == [0] && matrix.landings[0].hiddenFrom == [1])
        // --sync any lifts the sync mark.
        let any = try keychain.keychain.matrix(TemporaryKeychain.request([("svce", "api"), ("sync", "any")]), targets: callers)
        #expect(any.items.allSatisfy { $0.cells.allSatisfy { !$0.marks.contains(.sync) } })
        // Groups: each target's, then those only items hold, with live item counts.
        let shared = try #require(matrix.groups.first { $0.group == "group.com.example" })
        #expect(shared.items == 1)
        #expect(shared.cells.map(\.write) == [true, true])
    }

    @Test func macOSWithoutAProvisioningProfileMarksIgnoredGroupsP() throws {
        let keychain = try Self.crowded()
        let mac = Caller(try Fixtures.profile("mac-app.entitlements", platform: .macos))
        let matrix = try keychain.keychain.matrix(TemporaryKeychain.request([("svce", "api"), ("sync", "any")]), targets: [mac])
        let inAppGroup = try #require(matrix.items.first { $0.item.attributes["acct"] == .string("ci") })
        #expect(inAppGroup.cells[0].marks == [.platform])
    }

    @Test func lockedRowsStaySealed() throws {
        let keychain = try Self.crowded()
        _ = try keychain.keychain.changeDevice(.lock)
        let matrix = try keychain.keychain.matrix(
            TemporaryKeychain.request([("svce", "api")]), targets: [try Fixtures.caller("widget.plist")])
        let locked = try #require(matrix.items.first { $0.sealed == .locked && $0.item.accessGroup.hasSuffix(".widget") })
        #expect(locked.item.attributes["acct"] == nil)  // sealed attributes are not read
        #expect(locked.cells[0].marks == [.locked])
    }

    /// An attacker without the key moves a row into the share extension's group by editing the
    /// plaintext column: matrix must not say the extension can read it.
    @Test func aRowEditedWithoutTheKeyIsDamagedNotReadable() throws {
        let keychain = try TemporaryKeychain()
        try keychain.add([("svce", "api"), ("acct", "token")], as: try Fixtures.caller("app.plist"))
        let connection = try SQLiteConnection(path: keychain.path, create: false)
        try connection.execute("UPDATE genp SET agrp = 'SKMME9E2Y8.com.example.app.share'")
        let share = try Fixtures.caller("share-extension.plist")
        let matrix = try keychain.reopen().matrix(TemporaryKeychain.request([("svce", "api")]), targets: [share])
        let row = try #require(matrix.items.first)
        #expect(row.sealed == .damaged)
        #expect(row.cells == [AccessMatrix.Cell(read: false, write: false, marks: [.damaged])])
        #expect(matrix.groups.first { $0.group == "SKMME9E2Y8.com.example.app.share" }?.items == 0)
        #expect(status { _ = try keychain.reopen().find(TemporaryKeychain.request([("svce", "api")]), caller: share) } == -26275)
    }
}
