import Foundation
import KeychainCore
import Testing

/// An attacker who can write the keychain file but has no key, column by column (docs/SECURITY.md):
/// every column of every table the file has is flipped, swapped between two rows, set to NULL,
/// given another type, and copied from a keychain made with the same key. Each case ends with a
/// documented status, never hands out another item's secret, is reported by `verify`, and
/// `verify --repair` leaves a keychain whose every remaining item opens.
@Suite(.serialized) struct TamperMatrixTests {
    /// The secrets of the pristine keychain and of the other keychain made with the same key.
    static let secrets = ["alice": "alice-secret", "bob": "bob-secret"]
    static let otherSecrets = ["other-alice-secret", "other-bob-secret"]

    enum Mutation: String, CaseIterable {
        case flip, swap, null, retype, transplant
    }

    /// A keychain with alice and bob as generic and internet passwords (bob's internet password
    /// with a data field), and a synchronizable item deleted into a tombstone; `other` is the same made with the same key and other secrets.
    final class Pristine {
        let sandbox: Sandbox
        let other: String

        init() throws {
            sandbox = try Sandbox()
            other = sandbox.folder + "/other.db"
            for (name, made) in [
                (sandbox.keychain, TamperMatrixTests.secrets), (other, ["alice": "other-alice-secret", "bob": "other-bob-secret"]),
            ] {
                let environment = ["KEYCHAINCTL_KEYCHAIN": name]
                if name == other { #expect(sandbox.run(["init"], profile: nil, environment: environment).status == 0) }
                // Bob's internet password also has a data field: its row's secret is an envelope,
                // so swaps and transplants mix the two sealed forms.
                let notes = sandbox.folder + "/notes"
                try Data("bob-notes".utf8).write(to: URL(fileURLWithPath: notes))
                for account in ["alice", "bob"] {
                    let secret = Data(made[account]!.utf8)
                    let field = account == "bob" ? ["--data-field", "binn=" + notes] : []
                    #expect(sandbox.run(["add", "-s", "svc", "-a", account], stdin: secret, environment: environment).status == 0)
                    #expect(
                        sandbox.run(
                            ["add", "--class", "inet", "--server", "example.com", "-a", account] + field, stdin: secret,
                            environment: environment
                        )
                        .status == 0)
                }
                #expect(
                    sandbox.run(["add", "-s", "svc", "-a", "gone", "--sync", "yes"], stdin: Data("x".utf8), environment: environment).status
                        == 0)
                #expect(sandbox.run(["delete", "-s", "svc", "-a", "gone", "--sync", "yes"], environment: environment).status == 0)
            }
        }

        /// A fresh copy of the pristine keychain to attack.
        func copy(_ name: String) throws -> String {
            let path = sandbox.folder + "/\(name).db"
            try? FileManager.default.removeItem(atPath: path)
            try FileManager.default.copyItem(atPath: sandbox.keychain, toPath: path)
            return path
        }
    }

    /// Every `(table, column)` of the file, as SQLite lists them.
    static func columns(of path: String) throws -> [(table: String, column: String)] {
        let connection = try SQLiteConnection(path: path, create: false)
        var tables: [String] = []
        let list = try connection.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
        while try list.step() { tables.append(list.text(0)) }
        var columns: [(String, String)] = []
        for table in tables {
            columns.append((table, "rowid"))
            let info = try connection.prepare("SELECT name FROM pragma_table_info('\(table)')")
            while try info.step() {
                if info.text(0) != "rowid" { columns.append((table, info.text(0))) }
            }
        }
        return columns
    }

    /// A value as an SQL literal that keeps its storage class and exact bytes.
    static func literal(_ statement: SQLiteStatement, _ index: Int32) -> String {
        switch statement.type(index) {
        case .null: return "NULL"
        case .integer: return String(statement.integer(index))
        case .real: return "1.5"
        case .text, .blob:
            let bytes = statement.type(index) == .text ? Array(statement.text(index).utf8) : statement.blob(index)
            let hex = "x'" + bytes.map { String(format: "%02x", $0) }.joined() + "'"
            return statement.type(index) == .text ? "CAST(\(hex) AS TEXT)" : hex
        }
    }

    /// Applies `mutation` to `column` of the first row of `table` (the second row is the swap
    /// partner); returns whether the table's contents changed (SQLite's type affinity turns some
    /// type changes back, and NULL set on NULL changes nothing).
    static func apply(_ mutation: Mutation, _ table: String, _ column: String, path: String, other: String) throws -> Bool {
        let connection = try SQLiteConnection(path: path, create: false)
        func snapshot() throws -> [String] {
            let statement = try connection.prepare("SELECT rowid, typeof(\(column)), quote(\(column)) FROM \(table) ORDER BY rowid")
            var rows: [String] = []
            while try statement.step() { rows.append("\(statement.integer(0)) \(statement.text(1)) \(statement.text(2))") }
            return rows
        }
        let before = try snapshot()
        guard try mutate(mutation, table, column, connection: connection, other: other) else { return false }
        return try snapshot() != before
    }

    private static func mutate(_ mutation: Mutation, _ table: String, _ column: String, connection: SQLiteConnection, other: String)
        throws -> Bool
    {
        func value(_ db: SQLiteConnection, rowOffset: Int) throws -> (rowid: Int64, literal: String, type: SQLiteStatement.ColumnType)? {
            let statement = try db.prepare("SELECT rowid, \(column) FROM \(table) ORDER BY rowid LIMIT 1 OFFSET \(rowOffset)")
            guard try statement.step() else { return nil }
            return (statement.integer(0), literal(statement, 1), statement.type(1))
        }
        guard let first = try value(connection, rowOffset: 0) else { return false }
        func set(_ literal: String, rowid: Int64) throws {
            try connection.execute("UPDATE \(table) SET \(column) = \(literal) WHERE rowid = \(rowid)")
        }
        do {
            switch mutation {
            case .flip:
                let statement = try connection.prepare("SELECT \(column) FROM \(table) WHERE rowid = \(first.rowid)")
                _ = try statement.step()
                switch first.type {
                case .integer: try set(String(statement.integer(0) ^ 1), rowid: first.rowid)
                case .text, .blob:
                    var bytes = first.type == .text ? Array(statement.text(0).utf8) : statement.blob(0)
                    guard !bytes.isEmpty else { return false }
                    bytes[bytes.count / 2] ^= 0x01
                    let hex = "x'" + bytes.map { String(format: "%02x", $0) }.joined() + "'"
                    try set(first.type == .text ? "CAST(\(hex) AS TEXT)" : hex, rowid: first.rowid)
                default: return false
                }
            case .swap:
                guard let second = try value(connection, rowOffset: 1), second.literal != first.literal else { return false }
                let placeholder = column == "rowid" ? "1000000" : first.type == .integer ? "99" : "randomblob(17)"
                try set(placeholder, rowid: first.rowid)
                try set(first.literal, rowid: second.rowid)
                try set(second.literal, rowid: column == "rowid" ? 1_000_000 : first.rowid)
            case .null:
                try set("NULL", rowid: first.rowid)
            case .retype:
                let cast =
                    switch first.type {
                    case .integer: "CAST(\(column) AS TEXT)"
                    case .text: "CAST(\(column) AS BLOB)"
                    case .blob: "CAST(\(column) AS TEXT)"
                    default: "NULL"
                    }
                try set(cast, rowid: first.rowid)
            case .transplant:
                guard let donor = try value(try SQLiteConnection(path: other, create: false), rowOffset: 0), donor.literal != first.literal
                else { return false }
                try set(donor.literal, rowid: first.rowid)
            }
        } catch let error as StoreError {
            // SQLite itself refused (NOT NULL, UNIQUE, a rowid that must be an integer): nothing changed.
            #expect(error.sqliteCode != nil, "\(error)")
            return false
        }
        return true
    }

    @Test func everyColumnOfEveryTable() throws {
        let pristine = try Pristine()
        let columns = try Self.columns(of: pristine.sandbox.keychain)
        #expect(columns.contains { $0 == ("genp", "h_acct") } && columns.contains { $0 == ("keychain_meta", "value") })
        // Every column of an item table is one the schema declares, with how it is protected.
        for itemClass in ItemClass.stored {
            let declared = KeychainStore.table(itemClass).columns.map(\.name)
            #expect(columns.filter { $0.table == itemClass.rawValue }.map(\.column).sorted() == declared.sorted())
        }
        var detected = 0
        var cases = 0
        for (table, column) in columns {
            for mutation in Mutation.allCases {
                let path = try pristine.copy("case")
                let changed = try Self.apply(mutation, table, column, path: path, other: pristine.other)
                cases += 1
                // A mutation that changed nothing (a table the pristine file leaves empty, a value
                // SQLite's affinity turned back) leaves the pristine file: nothing new to try.
                guard changed else { continue }
                let label = "\(mutation.rawValue) \(table).\(column)"
                let environment = ["KEYCHAINCTL_KEYCHAIN": path]
                let isItemTable = ["genp", "inet"].contains(table)
                let classOptions = table == "inet" ? ["--class", "inet", "--server", "example.com"] : ["-s", "svc"]
                // The attacked item: its own secret or a documented failure, never another secret.
                for account in ["alice", "bob"] {
                    let found = sandbox(pristine).run(["find"] + classOptions + ["-a", account, "-w"], environment: environment)
                    #expect(
                        [0, 44, 51, 74, 93].contains(found.status), "\(label): find \(account) exited \(found.status): \(found.stderr)")
                    if found.status == 0 {
                        #expect(found.stdout == Self.secrets[account], "\(label): find \(account) printed another secret")
                    } else {
                        #expect(found.stdout.isEmpty, "\(label): a failed find printed \(found.stdout)")
                    }
                    for secret in Array(Self.secrets.values) + Self.otherSecrets {
                        #expect(!found.stderr.contains(secret), "\(label): a secret reached stderr")
                    }
                }
                let broad = sandbox(pristine).run(
                    ["find"] + classOptions.prefix(table == "inet" ? 2 : 0) + ["--limit", "all", "--sync", "any"], environment: environment)
                #expect([0, 44, 51, 74, 93].contains(broad.status), "\(label): find --limit all exited \(broad.status)")
                // verify sees every change that could matter (a rowid names a row and decides nothing).
                let verify = sandbox(pristine).run(["verify"], profile: nil, environment: environment)
                #expect([0, 51, 74, 93].contains(verify.status), "\(label): verify exited \(verify.status)")
                // Schema versions 4 and 5 differ only in that 5 may hold a sync state, which this
                // file has not: flipping one into the other gives an equally valid file (a version-5
                // file with a sync state flipped to 4 is refused: SyncHostileTests).
                let equivalent = table == "schema_version" && mutation == .flip
                if column != "rowid", !equivalent {
                    #expect(verify.status != 0, "\(label): verify did not notice: \(verify.stdout)")
                    detected += 1
                }
                // Damaged items are removable, and what remains opens.
                if verify.status == 93, isItemTable {
                    let repair = sandbox(pristine).run(["verify", "--repair", "--yes"], profile: nil, environment: environment)
                    #expect(repair.status == 0, "\(label): repair exited \(repair.status): \(repair.stderr)")
                    #expect(
                        sandbox(pristine).run(["verify"], profile: nil, environment: environment).status == 0, "\(label): still damaged")
                }
            }
        }
        #expect(cases > 200)
        #expect(detected > 100)
    }

    private func sandbox(_ pristine: Pristine) -> Sandbox { pristine.sandbox }

    @Test func aWholeRowFromAnotherKeychainWithTheSameKeyDoesNotOpen() throws {
        let pristine = try Pristine()
        let path = try pristine.copy("transplant")
        let connection = try SQLiteConnection(path: path, create: false)
        /// Replaces rows of `table` with the other keychain's rows that `condition` selects.
        func transplant(_ table: String, where condition: String) throws {
            try connection.execute("ATTACH DATABASE '\(pristine.other)' AS other")
            defer { try? connection.execute("DETACH DATABASE other") }
            try connection.execute("DELETE FROM \(table) WHERE \(condition)")
            try connection.execute("INSERT INTO \(table) SELECT * FROM other.\(table) WHERE \(condition)")
        }
        let find = { pristine.sandbox.run(["find", "-s", "svc", "-a", "alice", "-w"], environment: ["KEYCHAINCTL_KEYCHAIN": path]) }
        try transplant("genp", where: "rowid = 1")
        let found = find()
        #expect(found.status == 93)
        #expect(found.stdout.isEmpty)
        // Every class key row copied too: still nothing opens, because the keychain identity differs.
        try transplant("class_keys", where: "1")
        let again = find()
        #expect(again.status == 93)
        #expect(again.stdout.isEmpty)
    }

    /// The identity join under the same attack: every column of the certificate and key tables of a
    /// keychain holding two identities, flipped, swapped, nulled, retyped and transplanted. A find
    /// of every identity with its private key either fails with a documented status or returns
    /// identities whose certificate and key are exactly the pair that was stored: no tampering
    /// pairs a certificate with another certificate's key.
    @Test func theIdentityJoinNeverPairsACertificateWithAnotherKey() throws {
        let sandbox = try Sandbox()
        let fixtures = Sandbox.packageRoot + "/Fixtures/Certificates/"
        let other = sandbox.folder + "/other.db"
        let passphrase = Data("fixture\n".utf8)
        #expect(sandbox.run(["init"], profile: nil, environment: ["KEYCHAINCTL_KEYCHAIN": other]).status == 0)
        for (path, file) in [(sandbox.keychain, "identity-multiple.p12"), (other, "identity-modern.p12")] {
            let imported = sandbox.run(
                ["import", fixtures + file, "--p12-passphrase-fd", "0"], stdin: passphrase, environment: ["KEYCHAINCTL_KEYCHAIN": path])
            #expect(imported.status == 0, "\(imported.stderr)")
        }
        let query = [
            "find", "--class", "idnt", "--limit", "all", "--return", "attributes,ref", "--allow-private-key-export", "--format", "json",
        ]
        func identities(_ path: String) -> (status: Int32, pairs: [String: String]) {
            let run = sandbox.run(query, environment: ["KEYCHAINCTL_KEYCHAIN": path])
            guard run.status == 0, let items = try? run.json() as? [[String: Any]] else { return (run.status, [:]) }
            var pairs: [String: String] = [:]
            for item in items { pairs[item["labl"] as? String ?? "?"] = item["v_Ref"] as? String ?? "" }
            return (run.status, pairs)
        }
        let pristine = identities(sandbox.keychain)
        #expect(pristine.pairs.count == 2 && pristine.pairs.values.allSatisfy { $0.contains("PRIVATE KEY") })
        var cases = 0
        for (table, column) in try Self.columns(of: sandbox.keychain) where table == "cert" || table == "keys" {
            for mutation in Mutation.allCases {
                let path = sandbox.folder + "/identity-case.db"
                try? FileManager.default.removeItem(atPath: path)
                try FileManager.default.copyItem(atPath: sandbox.keychain, toPath: path)
                guard try Self.apply(mutation, table, column, path: path, other: other) else { continue }
                cases += 1
                let label = "\(mutation.rawValue) \(table).\(column)"
                let found = identities(path)
                #expect([0, 44, 93].contains(found.status), "\(label): exited \(found.status)")
                for (name, reference) in found.pairs {
                    #expect(pristine.pairs[name] == reference, "\(label): \(name) came back with another certificate or key")
                }
            }
        }
        #expect(cases > 40)
    }
}
