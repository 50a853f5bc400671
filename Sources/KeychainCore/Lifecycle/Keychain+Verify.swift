import KeychainFormats
import KeychainFoundation

/// `keychainctl verify`: the whole file checked with its key, and damaged rows removed on request.
extension Keychain {
    /// What a verification found.
    package struct VerifyReport: Sendable {
        /// The file's schema version.
        package var version = 0
        /// SQLite's integrity-check complaints (none when the b-trees are sound).
        package var integrity: [String] = []
        /// Accessibility classes whose class key does not open.
        package var classKeys: [String] = []
        /// Rows checked, per class, tombstones included.
        package var rows: [ItemClass: Int] = [:]
        /// Rows that do not open or do not match their own columns.
        package var damaged: [DamagedRow] = []
        /// Rows removed (`repair`).
        package var removed: [DamagedRow] = []
        /// Items behind an application password: checked up to it (their metadata and the outer
        /// layer of their key); the secret itself opens only with the password.
        package var behindPassword = 0

        /// Whether nothing is wrong.
        package var isClean: Bool { integrity.isEmpty && classKeys.isEmpty && damaged.isEmpty }
    }

    /// Runs SQLite's integrity check, opens every class key, and opens every row of every class
    /// with its secret. Changes nothing.
    package func verify() throws -> VerifyReport {
        try store.read { try scan(removing: false) }
    }

    /// Verifies again inside one write transaction and deletes every damaged row found then (a
    /// damaged row's attributes are unknown, so none leaves a tombstone).
    package func repair() throws -> VerifyReport {
        try store.write { try scan(removing: true) }
    }

    /// Every class key must be at hand: a locked device's classes cannot be checked, so verify
    /// refuses (-25308) rather than report their rows as damaged.
    private func scan(removing: Bool) throws -> VerifyReport {
        guard keys.device.allowsEveryClass else {
            throw KeychainError(
                .interactionNotAllowed,
                hint: "the device is \(keys.device.lock.rawValue): verify opens every item of every class, so unlock it first "
                    + "('keychainctl device unlock', or --device-state unlocked for this call).")
        }
        var report = VerifyReport()
        report.version = try store.currentVersion()
        report.integrity = try store.integrityCheck()
        // Without a passcode the akpu class key is destroyed by design.
        for accessibility in Accessibility.allCases where keys.device.allows(accessibility) {
            do { _ = try keys.classKey(accessibility) } catch { report.classKeys.append(accessibility.rawValue) }
        }
        for itemClass in ItemClass.stored {
            var damagedRows: [Int64] = []
            var count = 0
            try store.forEachRow(itemClass, filter: .everyRow, withSecret: true) { rowid, row in
                count += 1
                let before = report.damaged.count
                _ = try containingDamage(&report.damaged) {
                    let opened = try keys.openRow(row, itemClass: itemClass)
                    if !row.isTombstone, keys.hasPasswordLayer(opened) {
                        try keys.checkOuterLayer(opened)
                        report.behindPassword += 1
                    } else {
                        _ = try keys.openSecret(of: opened)
                    }
                }
                if report.damaged.count > before { damagedRows.append(rowid) }
                return true
            }
            report.rows[itemClass] = count
            if removing {
                for rowid in damagedRows { try store.delete(itemClass, rowid: rowid) }
            }
        }
        if removing { report.removed = report.damaged }
        return report
    }
}
