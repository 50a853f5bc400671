import Foundation
import Testing

@testable import KeychainCore

/// docs/SECURITY.md: what the file reveals, what the key protects, and tampering.
@Suite struct StorageTests {
    @Test func fileAndWALRevealNoAccountServiceLabelServerOrSecret() throws {
        let keychain = try TemporaryKeychain()
        let app = try Fixtures.caller("app.plist")
        try keychain.add(
            [("svce", "svc-PLAINTEXT-1"), ("acct", "acct-PLAINTEXT-2"), ("labl", "labl-PLAINTEXT-3")], secret: "secret-PLAINTEXT-4", as: app
        )
        try keychain.add(
            [("srvr", "srvr-PLAINTEXT-5.example.com"), ("acct", "acct-PLAINTEXT-2")], secret: "secret-PLAINTEXT-6", class: "inet", as: app)
        for suffix in ["", "-wal"] {
            let bytes = (try? Data(contentsOf: URL(fileURLWithPath: keychain.path + suffix))) ?? Data()
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(!text.contains("PLAINTEXT"), "keychain\(suffix) reveals a value")
        }
    }

    @Test func wrongKeyIsAuthFailedAndChangesNothing() throws {
        let keychain = try TemporaryKeychain()
        #expect(status { _ = try Keychain(path: keychain.path, credential: .key(SecretBytes.random(count: 32))) } == -25293)
        #expect(status { _ = try Keychain(path: keychain.path, credential: .passphrase(SecretBytes(copying: Array("pw".utf8)))) } == -25293)
    }

    @Test func passphraseKeychainsOpenOnlyWithThePassphrase() throws {
        let folder = NSTemporaryDirectory() + "kc-pass-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/nested/k.db"
        try Keychain.create(path: path, credential: .passphrase(SecretBytes(copying: Array("correct horse".utf8))), preset: .interactive)
        _ = try Keychain(path: path, credential: .passphrase(SecretBytes(copying: Array("correct horse".utf8))))
        #expect(status { _ = try Keychain(path: path, credential: .passphrase(SecretBytes(copying: Array("wrong".utf8)))) } == -25293)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let folderAttributes = try FileManager.default.attributesOfItem(atPath: folder + "/nested")
        #expect((folderAttributes[.posixPermissions] as? Int) == 0o700)
        #expect(status { try Keychain.create(path: path, credential: .key(SecretBytes.random(count: 32))) } == -25296)
    }

    @Test func missingKeychainIsNotAvailable() {
        #expect(status { _ = try Keychain(path: "/nonexistent/k.db", credential: .key(SecretBytes.random(count: 32))) } == -25291)
    }

    @Test func aFlippedByteIsDecodeErrorNamingTheItemAndTheRowIsKept() throws {
        let keychain = try TemporaryKeychain()
        let app = try Fixtures.caller("app.plist")
        let item = try keychain.add([("svce", "api")], as: app)
        try tamper(
            keychain.path,
            "UPDATE genp SET secret = CAST(substr(secret, 1, 30) || CASE WHEN substr(secret, 31, 1) = x'00' THEN x'01' ELSE x'00' END "
                + "|| substr(secret, 32) AS BLOB)")
        let reopened = try keychain.reopen()
        // Attributes still open; the secret does not.
        #expect(try reopened.find(TemporaryKeychain.request([("svce", "api")]), caller: app).items.count == 1)
        do {
            _ = try reopened.find(TemporaryKeychain.request([("svce", "api")], returns: ["data"]), caller: app)
            Issue.record("tampered secret opened")
        } catch let error as KeychainError {
            #expect(error.status == .decode)
            #expect(error.hint.contains(item.persistentRef.base64))
        }
        try tamper(
            keychain.path,
            "UPDATE genp SET metadata = substr(metadata, 1, 40) || CASE WHEN substr(metadata, 41, 1) = x'ff' THEN x'fe' ELSE x'ff' END "
                + "|| substr(metadata, 42)")
        #expect(status { _ = try keychain.reopen().find(TemporaryKeychain.request([("svce", "api")]), caller: app) } == -26275)
        #expect(try keychain.reopen().store.rows(.genericPassword, filter: RowFilter(groups: nil, sync: nil), withSecret: false).count == 1)
    }

    @Test func sealedDataSwappedBetweenItemsDoesNotOpen() throws {
        let keychain = try TemporaryKeychain()
        let app = try Fixtures.caller("app.plist")
        try keychain.add([("svce", "one")], secret: "first", as: app)
        try keychain.add([("svce", "two")], secret: "second", as: app)
        try tamper(
            keychain.path,
            """
            CREATE TEMP TABLE saved AS SELECT rowid AS r, item_key, secret FROM genp;
            UPDATE genp SET item_key = (SELECT item_key FROM saved WHERE r != genp.rowid),
                            secret = (SELECT secret FROM saved WHERE r != genp.rowid);
            """)
        let result = status {
            _ = try keychain.reopen().find(TemporaryKeychain.request([("svce", "two")], returns: ["data"]), caller: app)
        }
        #expect(result == -26275)
        // Moving a row to another group (a plaintext column) breaks its authenticated data too.
        try tamper(keychain.path, "UPDATE genp SET agrp = 'group.com.example' WHERE rowid = 1")
        #expect(status { _ = try keychain.reopen().find(TemporaryKeychain.request([("svce", "one")]), caller: app) } == -26275)
    }
}

/// The statement cache: a query nested in another's row loop gets its own statement.
@Suite struct StatementCacheTests {
    @Test func nestedIdenticalQueriesDoNotDisturbEachOther() throws {
        let keychain = try TemporaryKeychain()
        let app = try Fixtures.caller("app.plist")
        for account in ["a", "b", "c"] { try keychain.add([("svce", "s"), ("acct", account)], as: app) }
        let store = keychain.keychain.store
        let all = RowFilter(groups: nil, sync: nil)
        var outer: [Int64] = []
        var inner = 0
        try store.forEachRow(.genericPassword, filter: all, withSecret: false) { rowid, _ in
            outer.append(rowid)
            inner += try store.rows(.genericPassword, filter: all, withSecret: false).count
            return true
        }
        #expect(outer == [1, 2, 3])
        #expect(inner == 9)
    }
}
