import Foundation
import KeychainFoundation
import Testing

/// The connection's transactions (their statements compiled once and reused) and its
/// checkpointing, which bounds what one write in a long-lived process can cost.
@Suite struct SQLiteConnectionTests {
    private static func database() throws -> (connection: SQLiteConnection, path: String) {
        let folder = NSTemporaryDirectory() + "keychainctl-connection-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/test.db"
        let connection = try SQLiteConnection(path: path, create: true)
        try connection.execute("PRAGMA journal_mode = WAL; CREATE TABLE t (k INTEGER PRIMARY KEY, v BLOB)")
        return (connection, path)
    }

    private static func count(_ connection: SQLiteConnection) throws -> Int64 {
        let statement = try connection.prepare("SELECT count(*) FROM t")
        _ = try statement.step()
        return statement.integer(0)
    }

    private struct Failure: Error {}

    /// Each transaction statement runs many times from one compiled copy: a failed write still
    /// rolls back, and the writes and reads after it still commit and see what was committed.
    @Test func transactionsCommitAndRollBackTimeAfterTime() throws {
        let (connection, path) = try Self.database()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let insert = try connection.prepare("INSERT INTO t (v) VALUES (?)")
        for round in 0..<5 {
            try connection.writeTransaction { try insert.run([.blob([UInt8(round)])]) }
            #expect(throws: Failure.self) {
                try connection.writeTransaction {
                    try insert.run([.blob([0xFF])])
                    // Joined, not begun again: the outer write rolls back both.
                    try connection.writeTransaction { try insert.run([.blob([0xFE])]) }
                    throw Failure()
                }
            }
            #expect(try connection.readTransaction { try Self.count(connection) } == Int64(round + 1))
        }
    }

    /// A process that stays (an app using the library) checkpoints every 100 pages: the WAL never
    /// holds SQLite's default 1,000 (4 MB), whose copy made one write in several hundred slow.
    @Test func theWriteAheadLogIsCheckpointedEveryHundredPages() throws {
        let (connection, path) = try Self.database()
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let insert = try connection.prepare("INSERT INTO t (v) VALUES (?)")
        var largest = 0
        for _ in 0..<600 {
            try connection.writeTransaction { try insert.run([.blob([UInt8](repeating: 7, count: 3000))]) }
            let size = (try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
            largest = max(largest, size)
        }
        let pageSize = 4096 + 24
        #expect(largest > 50 * pageSize, "the test wrote too little to reach a checkpoint: \(largest) bytes")
        #expect(largest < 200 * pageSize, "the WAL grew to \(largest / pageSize) pages")
    }
}
