import Foundation
import Testing

@testable import KeychainCore

/// The cloud store that sync uses: sealed records keyed by UUID, nothing readable without
/// the account key, and every hostile file a named refusal.
@Suite struct CloudStoreTests {
    final class Folder {
        let path = NSTemporaryDirectory() + "keychainctl-cloud-" + UUID().uuidString
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    static func record(_ uuid: Bytes16, tag: UInt64 = 1, secret: String = "SECRET-cloud\u{0}bytes") -> CloudRecord {
        CloudRecord(
            uuid: uuid, tag: tag, itemClass: .genericPassword,
            attributes: [
                "svce": .string("api"), "acct": .string("ci"), "agrp": .string("SKMME9E2Y8.com.example.shared"),
                "pdmn": .string("ak"), "sync": .bool(true), "port": .number(443), "gena": .data([0, 1, 2]),
                "cdat": .date(1_700_000_000_000),
            ], secret: ItemSecret(data: SecretBytes(copying: Array(secret.utf8))))
    }

    /// A record whose item has data fields, or no data, is a `kcr2` record: its envelope comes
    /// back whole, and an unchanged item keeps the content digest a bare record had.
    @Test func aRecordCarriesDataFieldsAndItemsWithoutData() throws {
        let folder = Folder()
        let key = SecretBytes.random(count: 32)
        try CloudStore.create(at: folder.path, accountKey: key)
        let store = try CloudStore(path: folder.path, accountKey: key)
        let uuid = Bytes16((0..<16).map { UInt8($0 + 1) })!
        var record = Self.record(uuid)
        record.itemClass = .internetPassword
        record.attributes = ["srvr": .string("example.com"), "sync": .bool(true), "pdmn": .string("ak"), "agrp": .string("g")]
        record.secret = ItemSecret(data: nil, fields: ["binn": SecretBytes(copying: Array("NOTES-field".utf8))])
        _ = try store.write(record, signer: nil)
        let read = try #require(try store.record(uuid))
        #expect(
            read.secret.data == nil
                && read.secret.fields["binn"].map { String(decoding: $0.withUnsafeBytes { Array($0) }, as: UTF8.self) } == "NOTES-field")
        #expect(read.contentDigest == record.contentDigest)
        let bare = Self.record(uuid)
        var same = bare
        same.secret = ItemSecret(data: bare.secret.data)
        #expect(same.contentDigest == bare.contentDigest)
        var emptyData = bare
        emptyData.secret = ItemSecret(data: SecretBytes(count: 0))
        var noData = bare
        noData.secret = ItemSecret(data: nil)
        #expect(emptyData.contentDigest != noData.contentDigest, "no data and empty data are two contents")
    }

    @Test func recordsRoundTripAndRevealNothing() throws {
        let folder = Folder()
        let key = SecretBytes.random(count: 32)
        try CloudStore.create(at: folder.path, accountKey: key)
        #expect(throws: StoreError.self) { try CloudStore.create(at: folder.path, accountKey: key) }
        let store = try CloudStore(path: folder.path, accountKey: key)
        let uuid = Bytes16((0..<16).map { UInt8($0 * 17) })!
        _ = try store.write(Self.record(uuid, tag: 7), signer: nil)
        #expect(try store.listing().map(\.uuid) == [uuid])
        let read = try #require(try store.record(uuid))
        #expect(read.tag == 7 && read.itemClass == .genericPassword)
        #expect(read.attributes == Self.record(uuid).attributes)
        #expect(read.secret.data?.equals(SecretBytes(copying: Array("SECRET-cloud\u{0}bytes".utf8))) == true)
        // Nothing but the name is readable on disk.
        for file in try FileManager.default.subpathsOfDirectory(atPath: folder.path) {
            let data = try? Data(contentsOf: URL(fileURLWithPath: folder.path + "/" + file))
            for needle in ["SECRET", "api", "SKMME9E2Y8", "genp"] {
                #expect(data.map { $0.range(of: Data(needle.utf8)) == nil } ?? true, "\(file) shows \(needle)")
            }
        }
        try store.delete(uuid)
        try store.delete(uuid)
        #expect(try store.record(uuid) == nil && store.listing().isEmpty)
    }

    @Test func wrongKeyAndWrongDirectoryAreRefused() throws {
        let folder = Folder()
        try CloudStore.create(at: folder.path, accountKey: SecretBytes.random(count: 32))
        do {
            _ = try CloudStore(path: folder.path, accountKey: SecretBytes.random(count: 32))
            Issue.record("a wrong account key opened the store")
        } catch let error as KeychainError { #expect(error.status == .authFailed) }
        #expect(throws: StoreError.self) { try CloudStore(path: NSTemporaryDirectory(), accountKey: SecretBytes.random(count: 32)) }
    }

    /// A record renamed to another UUID, cut short, altered, from another account, or huge: a
    /// refusal naming it (errSecDecode, or a StoreError for a file no record could be).
    @Test func hostileRecordsAreNamedRefusals() throws {
        let folder = Folder()
        let key = SecretBytes.random(count: 32)
        try CloudStore.create(at: folder.path, accountKey: key)
        let store = try CloudStore(path: folder.path, accountKey: key)
        let a = Bytes16([UInt8](repeating: 0xAA, count: 16))!
        let b = Bytes16([UInt8](repeating: 0xBB, count: 16))!
        _ = try store.write(Self.record(a), signer: nil)
        let records = folder.path + "/records/"
        let original = try Data(contentsOf: URL(fileURLWithPath: records + CloudStore.name(a)))
        func expectDecode(_ uuid: Bytes16, _ what: String) {
            do {
                _ = try store.record(uuid)
                Issue.record("\(what) opened")
            } catch let error as KeychainError {
                #expect(error.status == .decode && error.hint.contains(CloudStore.name(uuid)), "\(what)")
            } catch { Issue.record("\(what): \(error)") }
        }
        try original.write(to: URL(fileURLWithPath: records + CloudStore.name(b)))
        expectDecode(b, "a renamed record")
        for cut in [0, 10, original.count / 2, original.count - 1] {
            try original.prefix(cut).write(to: URL(fileURLWithPath: records + CloudStore.name(a)))
            expectDecode(a, "a record cut at \(cut)")
        }
        var flipped = original
        flipped[flipped.count / 2] ^= 1
        try flipped.write(to: URL(fileURLWithPath: records + CloudStore.name(a)))
        expectDecode(a, "an altered record")
        let other = Folder()
        let otherKey = SecretBytes.random(count: 32)
        try CloudStore.create(at: other.path, accountKey: otherKey)
        _ = try CloudStore(path: other.path, accountKey: otherKey).write(Self.record(a), signer: nil)
        try FileManager.default.removeItem(atPath: records + CloudStore.name(a))
        try FileManager.default.copyItem(atPath: other.path + "/records/" + CloudStore.name(a), toPath: records + CloudStore.name(a))
        expectDecode(a, "another account's record")
        try Data(count: CloudStore.recordLimit + 1).write(to: URL(fileURLWithPath: records + CloudStore.name(b)))
        expectDecode(b, "a file larger than any record")
        // Names that are not 32 hex digits are not records.
        for name in ["notes.txt", String(repeating: "A", count: 32), String(repeating: "0", count: 31)] {
            try #require(FileManager.default.createFile(atPath: records + name, contents: Data("x".utf8)))
        }
        #expect(try Set(store.listing().map(\.uuid)) == [a, b])
    }

    /// Two writers under the store's lock take turns.
    @Test func theLockSerializesWriters() throws {
        let folder = Folder()
        let key = SecretBytes.random(count: 32)
        try CloudStore.create(at: folder.path, accountKey: key)
        let uuid = Bytes16([UInt8](repeating: 1, count: 16))!
        let first = try CloudStore(path: folder.path, accountKey: key)
        _ = try first.write(Self.record(uuid, tag: 0), signer: nil)
        let path = folder.path
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            guard let store = try? CloudStore(path: path, accountKey: key) else { return }
            for _ in 0..<25 {
                try? store.withLock {
                    guard let record = try store.record(uuid) else { return }
                    var next = record
                    next.tag += 1
                    _ = try store.write(next, signer: nil)
                }
            }
        }
        #expect(try first.record(uuid)?.tag == 100)
    }

    /// The sync state keeps the UUIDs it saw deleted (format 2) and the device's signing seed,
    /// name, last head and pinned devices (format 3), and still reads formats 1 and 2; a version
    /// is one more than the tag it replaces, whatever its random bits.
    @Test func syncStateKeepsDeletionsAndVersionsOrderChanges() throws {
        var state = SyncState(deviceID: .random())
        state.deleted = [.random(), .random()]
        state.signingSeed = Sodium.randomBytes(32)
        state.deviceName = "mac"
        state.head = SyncState.RememberedHead(
            epoch: 2, sequence: 7, link: Sodium.randomBytes(32), stamp: .init(inode: 1, changed: 2, size: 3))
        state.devices[.random()] = SyncState.PinnedDevice(publicKey: Sodium.randomBytes(32), revoked: true, name: "ci")
        let decoded = try #require(SyncState(encoded: state.encoded))
        #expect(decoded == state)
        var formatTwo = Array(state.encoded.prefix(21 + 4 + 32))
        formatTwo[0] = 2
        let two = try #require(SyncState(encoded: formatTwo))
        #expect(two.deleted == state.deleted && two.devices.isEmpty && two.head.sequence == 0)
        var formatOne = Array(state.encoded.prefix(21))
        formatOne[0] = 1
        let old = try #require(SyncState(encoded: formatOne))
        #expect(old.deleted.isEmpty && old.deviceID == state.deviceID)
        for cut in [1, 10, 40] {
            #expect(SyncState(encoded: Array(state.encoded.dropLast(cut))) == nil, "a state cut short by \(cut) is refused")
        }
        var tag = SyncSession.newTag(after: nil)
        #expect(SyncSession.version(tag) == 1)
        for _ in 0..<5 {
            let next = SyncSession.newTag(after: tag)
            #expect(SyncSession.version(next) == SyncSession.version(tag)! + 1)
            tag = next
        }
        // A tag from before versions (random) has no order, and the next write starts at 1.
        let legacy: UInt64 = 0xC3A5_9F01_7E22_41D9
        #expect(SyncSession.version(legacy) == nil)
        #expect(SyncSession.version(SyncSession.newTag(after: legacy)) == 1)
    }

    /// Two writers sharing the folder without a working lock (a synced folder, some SMB mounts),
    /// here two stores in one process, so with one pid: their staging files never coincide, and
    /// every record left is whole. With staging files named by pid they wrote into one file.
    @Test func writersWithoutALockNeverShareAStagingFile() throws {
        let folder = Folder()
        let key = SecretBytes.random(count: 32)
        try CloudStore.create(at: folder.path, accountKey: key)
        let uuid = Bytes16.random()
        final class Failures: @unchecked Sendable {
            let lock = NSLock()
            var errors: [String] = []
            func add(_ error: Error) { lock.withLock { errors.append("\(error)") } }
        }
        let failures = Failures()
        let path = folder.path
        DispatchQueue.concurrentPerform(iterations: 8) { writer in
            do {
                let store = try CloudStore(path: path, accountKey: key)
                for round in 0..<40 {
                    _ = try store.write(
                        Self.record(uuid, tag: UInt64(writer * 100 + round), secret: String(repeating: "w\(writer)", count: 2_000)),
                        signer: nil)
                }
            } catch { failures.add(error) }
        }
        #expect(failures.errors.isEmpty, "\(failures.errors.prefix(3))")
        let store = try CloudStore(path: folder.path, accountKey: key)
        #expect(try store.record(uuid) != nil, "the record left is whole")
        let staging = try FileManager.default.contentsOfDirectory(atPath: folder.path + "/records").filter { $0.contains(".new-") }
        #expect(staging.isEmpty, "\(staging)")
    }

    /// A record is applied only with a class CKKS carries (`ak`, `ck`, `dk`): one another device
    /// wrote with a this-device-only class, an unknown class, or an access control is refused.
    @Test func aPulledRecordIsAppliedOnlyWithAClassThatSyncs() {
        let uuid = Bytes16((0..<16).map { UInt8($0 + 3) })!
        func problem(pdmn: String, accc: String? = nil) -> String? {
            var record = Self.record(uuid)
            record.attributes["port"] = nil
            record.attributes["pdmn"] = .string(pdmn)
            if let accc { record.attributes["accc"] = .string(accc) }
            return SyncSession.problem(with: record)
        }
        for pdmn in ["ak", "ck", "dk"] { #expect(problem(pdmn: pdmn) == nil, "\(pdmn)") }
        let refused = "is not a synchronizable item (sync, tomb, agrp, pdmn or accc)"
        for pdmn in ["aku", "cku", "dku", "akpu", "zz", "", "AK"] { #expect(problem(pdmn: pdmn) == refused, "\(pdmn)") }
        #expect(problem(pdmn: "ak", accc: "ak") == nil)
        #expect(problem(pdmn: "ak", accc: "ck") == refused)
    }
}
