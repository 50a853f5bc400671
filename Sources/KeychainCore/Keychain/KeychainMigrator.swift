import KeychainFoundation

/// The upgrades an open runs on a file of an earlier schema version: named, in order, each once,
/// as GRDB's `DatabaseMigrator` runs its migrations. A step whose change (by this process or
/// another) means the file must be read again reads it with the key the open already has: a
/// passphrase is stretched once per open, however many steps run.
enum KeychainMigrator {
    struct Step: Sendable {
        let name: String
        /// Whether the file as read needs the step.
        let isNeeded: @Sendable (Keychain.OpenedFile) -> Bool
        /// Runs the step (its code is in `Keychain+Upgrade.swift`, beside this file); `true` when the file
        /// must be read again (it changed under the open).
        let apply: @Sendable (inout Keychain.OpenedFile, _ path: String) throws -> Bool
    }

    static let steps: [Step] = [
        // The item tables of an older layout (versions 1 to 3 had no `accc` column), rebuilt in
        // the current one before anything else is read.
        Step(name: "table layout", isNeeded: { $0.store.tableLayout < .current }) { opened, path in
            try Keychain.upgradeTables(opened.store, path: path)
        },
        // Version 1 to 2: an identity, an authenticated Argon2id record, every row re-sealed.
        Step(name: "version 2", isNeeded: { $0.store.unlocking.version == 1 }) { opened, _ in
            try !Keychain.upgrade(&opened.keys, store: opened.store, key: opened.key)
        },
        // Version 2 to 3: the simulated device's state.
        Step(name: "device state", isNeeded: { $0.store.unlocking.deviceRecord == nil }) { opened, _ in
            try !Keychain.addDeviceState(to: opened.keys, store: opened.store)
        },
    ]

    /// Runs every step `opened` needs, in order, reading the file again (with the key it has)
    /// after a step that changed it under the open.
    static func run(_ opened: inout Keychain.OpenedFile, path: String) throws {
        for step in steps where step.isNeeded(opened) {
            if try step.apply(&opened, path) {
                opened = try Keychain.open(path: path, credential: .key(opened.key))
            }
        }
    }
}
