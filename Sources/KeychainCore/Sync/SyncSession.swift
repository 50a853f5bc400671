import KeychainFormats
import KeychainFoundation

/// One sync of one keychain with the cloud store (docs/SYNC.md),
/// run inside the store's lock and the keychain's write transaction. `pull` applies what other
/// devices changed, by record UUID, resolving same-primary-key collisions as CKKS does; `push`
/// uploads what changed here. Cloud writes and deletions are collected and made by `commitCloud`
/// just before the keychain's transaction commits, so a process killed in between leaves the cloud
/// ahead of the keychain, which the next sync reconciles (a record that matches the item here
/// changes nothing).
final class SyncSession {
    let keychain: Keychain
    let cloud: CloudStore
    var state: SyncState
    var stateChanged = false
    var report = SyncReport()

    /// The live synchronizable rows by row UUID.
    var local: [Bytes16: (itemClass: ItemClass, row: KeychainStore.SyncRow)] = [:]
    /// The cloud's record files, in the folder's order.
    var listed: [(uuid: Bytes16, stamp: CloudStore.Stamp)] = []
    /// The same by UUID, built the first time a record's presence is asked beyond the state's
    /// entries (which `pull` marks `listed`): a sync with nothing to do never builds it.
    var listingIndex: [Bytes16: CloudStore.Stamp]?
    /// Records `pull` found gone after listing them.
    var vanished: Set<Bytes16> = []
    /// The cloud UUID each mapped row has (the state's entries, the other way round), built when
    /// first needed: a sync with nothing to do never needs it.
    var reverseIndex: [Bytes16: Bytes16]?
    /// Synchronizable tombstones found by the scan (purged at the end).
    var tombstones = 0
    /// Records this sync already dealt with (applied, failed, waiting): `push` leaves them alone.
    var settled: Set<Bytes16> = []
    var pendingWrites: [Bytes16: CloudRecord] = [:]
    var pendingDeletes: Set<Bytes16> = []

    var store: KeychainStore { keychain.store }
    var keys: KeyRing { keychain.keys }

    /// Reads the state and the keychain on this thread while another lists the cloud (a stat per
    /// record file: on a large store, as long as the keychain's scan).
    init(keychain: Keychain, cloud: CloudStore) throws {
        self.keychain = keychain
        self.cloud = cloud
        state = SyncState(deviceID: keychain.keys.syncDeviceID)
        let listingDone = ListingResult()
        var failure: Error?
        ParallelWork.run(2) { [self] worker in
            guard worker == 0 else {
                listingDone.result = Result { try cloud.listing() }
                return
            }
            do { try readKeychain() } catch { failure = error }
        }
        if let failure { throw failure }
        listed = try listingDone.result?.get() ?? []
    }

    /// Whether record `uuid` is in the cloud, as listed (less those found gone since).
    func isListed(_ uuid: Bytes16) -> Bool {
        if listingIndex == nil {
            var index: [Bytes16: CloudStore.Stamp] = [:]
            index.reserveCapacity(listed.count)
            for (uuid, stamp) in listed { index[uuid] = stamp }
            listingIndex = index
        }
        return listingIndex?[uuid] != nil && (vanished.isEmpty || !vanished.contains(uuid))
    }

    /// What the listing thread hands back.
    final class ListingResult: @unchecked Sendable {
        var result: Result<[(uuid: Bytes16, stamp: CloudStore.Stamp)], Error>?
    }

    /// The sync state and every synchronizable row.
    func readKeychain() throws {
        if let record = try store.syncStateRecord() {
            guard let bytes = keys.openSyncState(record), let state = SyncState(encoded: bytes) else {
                throw StoreError(
                    "\(store.connection.path)'s sync state does not open: the file was edited without its key; nothing was synced")
            }
            self.state = state
        }
        // Each entry maps a row: sized once, instead of rehashing 100,000 UUIDs as it grows.
        local.reserveCapacity(state.entries.count)
        for itemClass in ItemClass.stored {
            let counts = try store.forEachSyncRow(itemClass) { local[$0.uuid] = (itemClass, $0) }
            report.notSynchronizable += counts.notSynchronizable
            tombstones += counts.tombstones
        }
    }

    // MARK: Commit

    /// Makes the cloud's half of the sync: deletions, then writes (each atomic); returns whether
    /// the cloud changed.
    func commitCloud() throws -> Bool {
        try cloud.delete(pendingDeletes.sorted())
        for (uuid, stamp) in try cloud.write(pendingWrites.keys.sorted().compactMap { pendingWrites[$0] }) {
            state.entries[uuid]?.stamp = stamp
            stateChanged = true
        }
        return !pendingDeletes.isEmpty || !pendingWrites.isEmpty
    }

    /// Removes the tombstones of synchronizable items (every deletion reached the cloud) and saves
    /// the state when it changed.
    func finish() throws {
        if tombstones > 0 {
            for itemClass in ItemClass.stored { report.tombstonesPurged += try store.purgeTombstones(itemClass) }
        }
        if stateChanged { try store.writeSyncState(keys.sealSyncState(state.encoded)) }
    }

}
