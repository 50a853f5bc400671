/// The one read a sync makes of every synchronizable row: light, so that a sync with nothing to do
/// stays fast on a large keychain. Nothing is opened here; `Keychain+Sync` opens the rows whose
/// sealed columns changed since the last sync.
extension KeychainStore {
    /// A live synchronizable row as a sync first sees it.
    package struct SyncRow {
        package let rowid: Int64
        package let uuid: Bytes16
        /// `pdmn` and `accc` as their columns say (authenticated when the row is opened).
        package let accessibility: String
        package let accessControl: String
        /// What changes whenever the row is written: every write seals the metadata anew (fresh
        /// nonce, so a fresh authentication tag), and a secret never changes without it (the two
        /// are bound by the tamper check). The metadata's tag is that marker, read without opening
        /// or hashing anything. An edit of the ciphertext without the key that keeps the tag goes
        /// unseen here, but then the row does not open: nothing of it could travel anyway.
        package let sealedDigest: Bytes16

        package init(rowid: Int64, uuid: Bytes16, accessibility: String, accessControl: String, sealedDigest: Bytes16) {
            self.rowid = rowid
            self.uuid = uuid
            self.accessibility = accessibility
            self.accessControl = accessControl
            self.sealedDigest = sealedDigest
        }
    }

    /// Calls `body` for every row of `itemClass` with `sync = 1` that is not a tombstone, in one
    /// pass over the table that also counts the items that are not synchronizable and the
    /// synchronizable tombstones.
    @discardableResult
    package func forEachSyncRow(_ itemClass: ItemClass, _ body: (SyncRow) throws -> Void) throws
        -> (notSynchronizable: Int, tombstones: Int)
    {
        let table = table(itemClass).schema.table
        let columns = [Schema.protection, Schema.accessControl, "metadata", Schema.synchronizable, Schema.tombstone]
        let statement = try connection.prepare("SELECT rowid, uuid, \(columns.joined(separator: ", ")) FROM \(table)")
        var counts = (notSynchronizable: 0, tombstones: 0)
        while try statement.step() {
            let (sync, tomb) = (statement.integer(5) != 0, statement.integer(6) != 0)
            guard sync, !tomb else {
                if tomb { counts.tombstones += sync ? 1 : 0 } else { counts.notSynchronizable += 1 }
                continue
            }
            // A uuid that is not 16 bytes is a damaged row: opening it says so.
            let uuid = try statement.withBytes(1) { (bytes) throws(StoreError) in Bytes16(bytes) } ?? Bytes16.zero
            let marker = try statement.withBytes(4) { (bytes) throws(StoreError) in Self.sealMarker(bytes) }
            try body(
                SyncRow(
                    rowid: statement.integer(0), uuid: uuid, accessibility: statement.text(2), accessControl: statement.text(3),
                    sealedDigest: marker))
        }
        return counts
    }

    /// The `sealedDigest` of the row `sealed` is written as.
    package static func sealedDigest(of sealed: SealedItem) -> Bytes16 { sealed.metadata.withUnsafeBytes(sealMarker) }

    /// The last 16 bytes of a sealed value (its authentication tag); zero for a shorter one.
    private static func sealMarker(_ sealed: UnsafeRawBufferPointer) -> Bytes16 {
        sealed.count >= 16 ? Bytes16(UnsafeRawBufferPointer(rebasing: sealed[(sealed.count - 16)...])) ?? .zero : .zero
    }

    /// The rowid of the row the last INSERT wrote.
    package var lastInsertedRowID: Int64 { connection.lastInsertedRowID }

    /// Deletes every tombstone of `itemClass` (a sync has carried every deletion to the cloud);
    /// returns how many there were.
    package func purgeTombstones(_ itemClass: ItemClass) throws -> Int {
        let table = table(itemClass).schema.table
        try connection.execute("DELETE FROM \(table) WHERE \(Schema.tombstone) = 1 AND \(Schema.synchronizable) = 1")
        return connection.changes
    }
}
