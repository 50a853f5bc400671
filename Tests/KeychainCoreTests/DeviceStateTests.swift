import Foundation
import Testing

@testable import KeychainCore

/// Lock states and the passcode (docs/FIDELITY.md).
@Suite struct DeviceStateTests {
    static let classes: [Accessibility] = Accessibility.allCases
    static let app = try! Fixtures.caller("app.plist")

    /// A keychain holding one generic password per class (`acct` = the class code), opened as if the
    /// device were in `state`.
    static func keychain(in state: DeviceState.Lock) throws -> (TemporaryKeychain, Keychain) {
        let keychain = try TemporaryKeychain()
        for accessibility in classes {
            try keychain.add([("svce", "api"), ("acct", accessibility.rawValue), ("pdmn", accessibility.rawValue)], as: app)
        }
        return (keychain, try Keychain(path: keychain.path, credential: .key(keychain.key), deviceState: state))
    }

    /// Which classes each state leaves readable: the table in docs/GUIDE.md.
    static func readable(_ accessibility: Accessibility, in state: DeviceState.Lock) -> Bool {
        switch state {
        case .unlocked: true
        case .locked: !["ak", "aku", "akpu"].contains(accessibility.rawValue)
        case .beforeFirstUnlock: ["dk", "dku"].contains(accessibility.rawValue)
        }
    }

    /// find (attributes only, or data), update and add are -25308 on a locked class and work on the
    /// others; delete works on every class.
    @Test(arguments: DeviceState.Lock.allCases)
    func everyOperationOnEveryClass(_ state: DeviceState.Lock) throws {
        let (_, keychain) = try Self.keychain(in: state)
        for accessibility in Self.classes {
            let expected: Int32 = Self.readable(accessibility, in: state) ? 0 : -25308
            let key = [("svce", "api"), ("acct", accessibility.rawValue)]
            #expect(status { _ = try keychain.find(TemporaryKeychain.request(key), caller: Self.app) } == expected, "find \(accessibility)")
            #expect(
                status { _ = try keychain.find(TemporaryKeychain.request(key, returns: ["data"]), caller: Self.app) } == expected,
                "find data \(accessibility)")
            #expect(
                status { _ = try keychain.update(TemporaryKeychain.request(key), changes: [("labl", "x")], secret: nil, caller: Self.app) }
                    == expected, "update \(accessibility)")
            // An add of the existing item: the lock comes before the duplicate.
            #expect(
                status {
                    _ = try keychain.add(
                        TemporaryKeychain.request(key + [("pdmn", accessibility.rawValue)]), secret: SecretBytes(copying: [1]),
                        caller: Self.app)
                }
                    == (expected == 0 ? -25299 : -25308), "add existing \(accessibility)")
            #expect(
                status {
                    _ = try keychain.add(
                        TemporaryKeychain.request([("svce", "new"), ("acct", accessibility.rawValue), ("pdmn", accessibility.rawValue)]),
                        secret: SecretBytes(copying: [1]), caller: Self.app)
                } == expected, "add \(accessibility)")
            #expect(status { _ = try keychain.delete(TemporaryKeychain.request(key), caller: Self.app) } == 0, "delete \(accessibility)")
        }
    }

    /// A find matching several rows, one of them locked, fails as a whole and hands nothing over;
    /// one whose SQL filter leaves the locked rows out succeeds.
    @Test func oneLockedRowFailsTheWholeFindWithNoPartialResult() throws {
        let (_, keychain) = try Self.keychain(in: .locked)
        var handed = 0
        let all = TemporaryKeychain.request([("svce", "api")], limit: "all")
        #expect(status { _ = try keychain.find(all, caller: Self.app) { _, _ in handed += 1 } } == -25308)
        #expect(handed == 0)
        let found = try keychain.find(TemporaryKeychain.request([("svce", "api"), ("pdmn", "ck")], limit: "all"), caller: Self.app)
        #expect(found.items.map { $0.item.attributes["acct"] } == [.string("ck")])
    }

    /// The checks before the database win over the lock (docs/FIDELITY.md): another app's locked item is
    /// -25300 to a widget that cannot see its group, an explicit unentitled group -34018, a
    /// malformed accessibility -50.
    @Test func checksBeforeTheDatabaseWinOverTheLock() throws {
        let (_, keychain) = try Self.keychain(in: .locked)
        let widget = try Fixtures.caller("widget.plist")
        #expect(status { _ = try keychain.find(TemporaryKeychain.request([("svce", "api"), ("acct", "ak")]), caller: widget) } == -25300)
        #expect(
            status {
                _ = try keychain.find(
                    TemporaryKeychain.request([("svce", "api"), ("agrp", "SKMME9E2Y8.com.example.app")]), caller: widget)
            } == -34018)
        #expect(status { _ = try keychain.find(TemporaryKeychain.request([("svce", "api"), ("pdmn", "never")]), caller: Self.app) } == -50)
    }

    /// A locked synchronizable item is deleted without a tombstone: its attributes cannot be read.
    @Test func aLockedSyncItemIsDeletedWithoutATombstone() throws {
        let unlocked = try TemporaryKeychain()
        try unlocked.add([("svce", "sync"), ("sync", "yes")], as: Self.app)
        let locked = try Keychain(path: unlocked.path, credential: .key(unlocked.key), deviceState: .locked)
        #expect(try locked.delete(TemporaryKeychain.request([("svce", "sync"), ("sync", "yes")]), caller: Self.app).count == 1)
        #expect(try unlocked.reopen().store.rows(.genericPassword, filter: .everyRow, withSecret: false).isEmpty)
    }

    /// In a locked state the key ring refuses the locked classes' keys outright, and drops any it
    /// had unwrapped.
    @Test func theKeyRingNeverUnwrapsALockedClass() throws {
        let keychain = try TemporaryKeychain()
        _ = try keychain.keychain.keys.classKey(.whenUnlocked)
        keychain.keychain.keys.device.lock = .locked
        #expect(status { _ = try keychain.keychain.keys.classKey(.whenUnlocked) } == -25308)
        #expect(status { _ = try keychain.keychain.keys.classKey(.afterFirstUnlock) } == 0)
        keychain.keychain.keys.device.lock = .beforeFirstUnlock
        #expect(status { _ = try keychain.keychain.keys.classKey(.afterFirstUnlockThisDeviceOnly) } == -25308)
        #expect(status { _ = try keychain.keychain.keys.classKey(.alwaysThisDeviceOnly) } == 0)
    }

    /// The stored state changes with `changeDevice`; a device without a passcode never locks, has
    /// no akpu class, and its old akpu items are gone for good.
    @Test func passcodeRemovalDeletesAkpuItemsForGood() throws {
        let (temporary, keychain) = try Self.keychain(in: .unlocked)
        #expect(try keychain.invalidatedCount(by: .passcodeRemove) == 1)
        #expect(try keychain.changeDevice(.lock).state.lock == .locked)
        let removed = try keychain.changeDevice(.passcodeRemove)
        #expect(removed.invalidated == 1 && !removed.state.passcode)
        let reopened = try temporary.reopen()
        #expect(reopened.device == removed.state && removed.state.lock == .unlocked)
        #expect(try reopened.changeDevice(.lock).state.lock == .locked)
        // Locked, but with no passcode every class but akpu is available.
        #expect(try reopened.find(TemporaryKeychain.request([("svce", "api")], limit: "all"), caller: Self.app).items.count == 6)
        let akpu = TemporaryKeychain.request([("svce", "again"), ("pdmn", "akpu")])
        #expect(status { _ = try reopened.add(akpu, secret: SecretBytes(copying: [1]), caller: Self.app) } == -25293)
        #expect(try reopened.changeDevice(.passcodeSet).state.passcode)
        #expect(status { _ = try reopened.add(akpu, secret: SecretBytes(copying: [1]), caller: Self.app) } == 0)
        #expect(
            status { _ = try reopened.find(TemporaryKeychain.request([("svce", "api"), ("acct", "akpu")]), caller: Self.app) } == -25300)
        #expect(try reopened.verify().isClean)
    }

    /// The device state is sealed: a record edited or swapped without the key refuses the file.
    @Test func anEditedDeviceStateRefusesTheFile() throws {
        let keychain = try TemporaryKeychain()
        let other = try TemporaryKeychain()
        let foreign = try #require(try other.keychain.store.deviceRecord())
        try keychain.keychain.store.connection.execute(
            "UPDATE keychain_meta SET value = x'\(Hex.lowercase(foreign))' WHERE name = 'device'")
        #expect(throws: StoreError.self) { _ = try keychain.reopen() }
        try keychain.keychain.store.connection.execute("DELETE FROM keychain_meta WHERE name = 'device'")
        #expect(throws: StoreError.self) { _ = try keychain.reopen() }
    }

    /// The stored form round-trips and refuses anything else.
    @Test func theStoredFormIsStrict() {
        let state = DeviceState(lock: .beforeFirstUnlock, passcode: false, biometrySet: Array(repeating: 7, count: 16))
        #expect(DeviceState(encoded: state.encoded) == state)
        #expect(DeviceState(encoded: DeviceState(lock: .locked, passcode: true, biometrySet: nil).encoded)?.biometrySet == nil)
        for bad: [UInt8] in [[], [1, 0], [2, 0, 1], [1, 3, 1], [1, 0, 2], [1, 0, 1, 5]] { #expect(DeviceState(encoded: bad) == nil) }
    }
}
