import KeychainFormats
import KeychainFoundation

/// One sync of one keychain with the cloud store (docs/SYNC.md),
/// run inside the store's lock and the keychain's write transaction. `pull` applies what other
/// devices changed, by record UUID, resolving same-primary-key collisions as CKKS does; `push`
/// uploads what changed here. Cloud writes and deletions are collected and made by `commitCloud`
/// just before the keychain's transaction commits, so a process killed in between leaves the cloud
/// ahead of the keychain, which the next sync reconciles (a record that matches the item here
/// changes nothing). In a version-2 store (`SyncSession+Head.swift`) the head is checked first,
/// every record read is checked against it and its writer's signature, and deletions are
/// tombstones.
final class SyncSession {
    let keychain: Keychain
    let cloud: CloudStore
    let options: SyncOptions
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
    /// Records to delete, with their class and the last version known: unlinked in a version-1
    /// store, replaced by a tombstone one version newer in a version-2 one.
    var pendingDeletes: [Bytes16: (itemClass: ItemClass, tag: UInt64)] = [:]
    /// The store's head (version 2), once read: it is read when its file changed since the last
    /// sync, when a record must be checked against it, and before a sync that writes.
    var head: CloudHead?
    /// This device's signing key (version 2).
    var signer: DeviceSigningKey?
    /// Records read this sync that the head does not list yet (a writer killed before it wrote the
    /// head), each checked: the next head lists them.
    var verified: [Bytes16: CloudHead.Entry] = [:]

    var store: KeychainStore { keychain.store }
    var keys: KeyRing { keychain.keys }

    /// Reads the state and the keychain on this thread while another lists the cloud (a stat per
    /// record file: on a large store, as long as the keychain's scan).
    init(keychain: Keychain, cloud: CloudStore, options: SyncOptions) throws {
        self.keychain = keychain
        self.cloud = cloud
        self.options = options
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
        if cloud.format != .v1 { try checkHead() }
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

    /// Makes the cloud's half of the sync: deletions, then writes (each atomic), then (version 2)
    /// the head; returns whether the cloud changed.
    func commitCloud() throws -> Bool {
        if cloud.format == .v1 {
            try cloud.delete(pendingDeletes.keys.sorted())
        } else {
            for (uuid, retired) in pendingDeletes {
                let known = max(retired.tag, head?.manifest[uuid]?.tag ?? 0)
                var tombstone = CloudRecord.tombstone(
                    uuid: uuid, tag: Self.newTag(after: known), itemClass: retired.itemClass, origin: state.deviceID)
                tombstone.written = Self.now()
                pendingWrites[uuid] = tombstone
            }
        }
        let written = try cloud.write(pendingWrites.keys.sorted().compactMap { pendingWrites[$0] }, signer: signer)
        for (uuid, file) in written {
            state.entries[uuid]?.stamp = file.stamp
            stateChanged = true
        }
        if cloud.format != .v1 { try commitHead(written: written) }
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
