import Foundation
import KeychainFoundation
import KeychainTestSupport
import Testing

@testable import KeychainCore

/// An open runs every upgrade an old file needs, in order, and stretches a passphrase once: the
/// committed schema-1 keychain, made a passphrase keychain here (its class keys re-wrapped under a
/// key derived with Argon2id's cheapest parameters, as version 1 stored them), opens by its
/// passphrase through all three steps with one derivation, and keeps its items.
@Suite(.serialized) struct KeychainMigratorTests {
    static let passphrase = "correct horse battery staple"

    /// A copy of the schema-1 fixture whose key is derived from `passphrase`. Version 1 keyed the
    /// digests with the keychain key and bound them into each row, so every row is sealed again
    /// under the derived key (in a second copy, given the `accc` column today's store reads rows
    /// with) and copied back, column for column, into the first, which keeps version 1's tables.
    static func versionOnePassphraseKeychain() throws -> String {
        let folder = NSTemporaryDirectory() + "keychainctl-migrator-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/keychain.db"
        let worker = folder + "/worker.db"
        for copy in [path, worker] {
            try FileManager.default.copyItem(atPath: PackagePaths.fixtures + "/Keychains/schema-v1.db", toPath: copy)
        }
        let keyText = try String(contentsOfFile: PackagePaths.fixtures + "/Keychains/schema-v1.key", encoding: .utf8)
        guard case .key(let oldKey) = try KeychainCredential.key(base64: SecretBytes(copying: Array(keyText.utf8)), source: "fixture")
        else { throw KeychainError(.param, hint: "no key") }
        let wrappedBefore = try KeychainStore(path: path).unlocking.wrappedClassKeys
        let old = KeyRing(keychainKey: oldKey, wrappedClassKeys: wrappedBefore, format: .v1)
        let kdf = try PassphraseKDF(
            opsLimit: PassphraseKDF.opsRange.lowerBound, memLimit: PassphraseKDF.memRange.lowerBound,
            salt: Sodium.randomBytes(PassphraseKDF.saltBytes), encoding: .raw)
        let derived = try #require(kdf.deriveKey(from: SecretBytes(copying: Array(passphrase.utf8))))
        let wrapped = try old.rewrappedClassKeys(keychainKey: derived, format: .v1)
        let new = KeyRing(keychainKey: derived, wrappedClassKeys: wrapped, format: .v1)

        _ = try KeychainStore(path: worker).upgradeTables()
        let store = try KeychainStore(path: worker)
        try store.write {
            for itemClass in ItemClass.stored {
                for (rowid, row) in try store.rows(itemClass, filter: .everyRow, withSecret: true) {
                    let opened = try old.open(row, itemClass: itemClass, withSecret: true)
                    _ = try store.update(itemClass, rowid: rowid, try new.seal(opened.opened.item, secret: opened.secret))
                }
            }
        }
        let source = try SQLiteConnection(path: worker, create: false)
        let target = try SQLiteConnection(path: path, create: false)
        try target.execute("BEGIN IMMEDIATE")
        for itemClass in ItemClass.stored {
            let table = itemClass.rawValue
            let info = try target.prepare("PRAGMA table_info(\(table))")
            var columns: [String] = []
            while try info.step() { columns.append(info.text(1)) }
            let read = try source.prepare("SELECT rowid, \(columns.joined(separator: ", ")) FROM \(table)")
            let write = try target.prepare(
                "UPDATE \(table) SET \(columns.map { "\($0) = ?" }.joined(separator: ", ")) WHERE rowid = ?")
            while try read.step() {
                let values: [SQLiteStatement.Value] = (1...Int32(columns.count)).map { index in
                    switch read.type(index) {
                    case .integer: .integer(read.integer(index))
                    case .text: .text(read.text(index))
                    case .null: .null
                    default: .blob(read.blob(index))
                    }
                }
                try write.run(values + [.integer(read.integer(0))])
            }
        }
        let meta = try target.prepare("INSERT OR REPLACE INTO keychain_meta VALUES (?, ?)")
        for (name, value) in [
            ("key_check", KeyRing.keyCheck(for: derived, format: .v1, kdfRecord: nil)), ("kdf_salt", kdf.salt),
            ("kdf_ops", Array(String(kdf.opsLimit).utf8)), ("kdf_mem", Array(String(kdf.memLimit).utf8)),
        ] {
            try meta.run([.text(name), .blob(value)])
        }
        let classKeys = try target.prepare("UPDATE class_keys SET wrapped = ? WHERE pdmn = ?")
        for (pdmn, value) in wrapped { try classKeys.run([.blob(value), .text(pdmn)]) }
        try target.execute("COMMIT")
        return path
    }

    @Test func anOldPassphraseKeychainIsUpgradedWithOneDerivation() throws {
        let path = try Self.versionOnePassphraseKeychain()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let before = try KeychainStore(path: path)
        #expect(before.unlocking.version == 1 && before.tableLayout == .original && before.unlocking.passphrase != nil)
        #expect(
            KeychainMigrator.steps.filter {
                $0.isNeeded(
                    (before, KeyRing(keychainKey: SecretBytes(count: 32), wrappedClassKeys: [:], format: .v1), SecretBytes(count: 32)))
            }.map(\.name)
                == ["table layout", "version 2", "device state"])

        // Counted for this test's task alone: other suites derive keys in parallel.
        let derivations = WorkCounter()
        try PassphraseKDF.$counted.withValue(derivations) {
            let keychain = try Keychain(path: path, credential: .passphrase(SecretBytes(copying: Array(Self.passphrase.utf8))))
            #expect(derivations.value == 1)

            let after = try KeychainStore(path: path)
            #expect(after.unlocking.version >= 3 && after.tableLayout == .current && after.unlocking.deviceRecord != nil)
            let caller = Caller(
                try Profile.load(path: PackagePaths.fixtures + "/Profiles/app.plist", teamID: nil, platform: nil, allowWildcard: false))
            var request = ItemRequest(words: [("svce", "fixture"), ("acct", "v1")])
            request.returns = .value([.data])
            let found = try keychain.find(request, caller: caller)
            #expect(
                found.items.first?.secret.map { String(decoding: $0.withUnsafeBytes { Array($0) }, as: UTF8.self) } == "written-by-schema-1"
            )

            // Opened again, the file needs no step, and the passphrase still opens it.
            _ = try Keychain(path: path, credential: .passphrase(SecretBytes(copying: Array(Self.passphrase.utf8))))
            #expect(derivations.value == 2)
        }
    }
}
