import KeychainFormats
import KeychainFoundation

/// `sync`: this keychain as one device of an account, in step with the account's cloud store
/// (docs/SYNC.md). See `SyncSession` for the rules.
extension Keychain {
    /// Pulls then pushes, holding the cloud store's lock and one write transaction of this file.
    /// `publish` runs after the cloud's files are written and before the keychain commits (with
    /// whether the cloud changed): `sync --git` pushes there, and a rejected push thrown from it
    /// rolls the keychain back. A dry run writes nothing anywhere.
    package func sync(
        with cloud: CloudStore, options: SyncOptions, dryRun: Bool, publish: (_ cloudChanged: Bool) throws -> Void = { _ in }
    ) throws -> SyncReport {
        try beginCall("sync")
        guard case .v2 = keys.format else {
            throw StoreError("a version-1 keychain is upgraded when first opened with write access; it cannot sync before")
        }
        return try cloud.withLock {
            try writeOrRehearse(dryRun: dryRun) {
                let session = try SyncSession(keychain: self, cloud: cloud, options: options)
                try session.pull()
                try session.push()
                session.reportVanished()
                if !dryRun {
                    let changed = try session.commitCloud()
                    try session.finish()
                    try publish(changed)
                }
                var report = session.report
                report.dryRun = dryRun
                return report
            }
        }
    }
}
