/// The one read a sync makes of every synchronizable row: light, so that a sync with nothing to do
/// stays fast on a large keychain. Nothing is opened here; `Keychain+Sync` opens the rows whose
/// sealed columns changed since the last sync.
extension KeychainStore {
    /// A live synchronizable row as a sync first sees it.
    package struct SyncRow {
        package let rowid: Int64
        package let uuid: [UInt8]
        /// `pdmn` and `accc` as their columns say (authenticated when the row is opened).
        package let accessibility: String
        package let accessControl: String
        /// A digest of the sealed columns (metadata, item key, secret): any write of the row
        /// re-seals its metadata, so an unchanged digest means an unchanged row.
        package let sealedDigest: [UInt8]
    }

    /// Calls `body` for every row of `itemClass` with `sync = 1` that is not a tombstone.
    package func forEachSyncRow(_ itemClass: ItemClass, _ body: (SyncRow) throws -> Void) throws {
        let table = table(itemClass).schema.table
        let statement = try connection.prepare(
            "SELECT rowid, uuid, pdmn, accc, metadata, item_key, secret FROM \(table) WHERE sync = 1 AND tomb = 0")
        while try statement.step() {
            let digest = try Sodium.pieceDigest { (feed) throws(StoreError) in
                for column in Int32(4)...6 where !statement.isNull(column) {
                    try statement.withBytes(column) { (bytes) throws(StoreError) in feed(bytes) }
                }
            }
            try body(
                SyncRow(
                    rowid: statement.integer(0), uuid: statement.blob(1), accessibility: statement.text(2),
                    accessControl: statement.text(3), sealedDigest: digest))
        }
    }

    /// The digest `forEachSyncRow` gives the row `sealed` is written as.
    package static func sealedDigest(of sealed: SealedItem) -> [UInt8] {
        Sodium.pieceDigest { (feed) throws(Never) in
            for column in [sealed.metadata, sealed.wrappedItemKey, sealed.secret] {
                column?.withUnsafeBytes(feed)
            }
        }
    }

    /// The rowid of the row the last INSERT wrote.
    package var lastInsertedRowID: Int64 { connection.lastInsertedRowID }

    /// Deletes every tombstone of `itemClass` (a sync has carried every deletion to the cloud);
    /// returns how many there were.
    package func purgeTombstones(_ itemClass: ItemClass) throws -> Int {
        let table = table(itemClass).schema.table
        try connection.execute("DELETE FROM \(table) WHERE tomb = 1 AND sync = 1")
        return connection.changes
    }
}
