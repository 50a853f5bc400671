import CommandLineKit
import Glibc
import KeychainCore
import KeychainPlatform
import TextEscaping

/// `keychainctl lock`: forgets the key `unlock` cached (docs/CI.md).
struct LockCommand: Subcommand {
    static let name = "lock"

    static let spec = CommandSpec(
        name: name,
        abstract: "Remove the keychain's cached key from the kernel keyring (--all: every keychain's).",
        discussion: """
            The key is invalidated, not just unlinked: it is gone from every keyring at once. Only this file's \
            key goes: a copy of the same keychain at another path keeps its own. Exit 0 \
            also when nothing was cached, or when the keyring is unavailable (nothing can be cached there). \
            When the keychain file is gone or unreadable (so its identity cannot be read), the keys \
            'unlock' cached for that path (as given, or as its links led when it was unlocked) are removed, \
            and no other: a cleanup step never fails open, and \
            never locks another keychain, or another job's, of the same user.
            """,
        sections: [("options", [Self.all.spec, Self.keyring.spec]), GlobalOptions.section],
        examples: [
            Example("keychainctl lock", "Forget the cached key now.")
        ])

    static let all = Flag("all", "Remove the cached key of every keychain, not only this one's.")
    static let keyring = Option.choice(
        "keyring", nil, "session|user", "With --all: sweep only this keyring (default both).", KernelKeyring.Ring.init(rawValue:))

    let context: CommandContext

    func validate() throws(UsageError) {
        if context[Self.keyring] != nil, !context[Self.all] { throw UsageError("--keyring chooses the keyring --all sweeps; give --all.") }
    }

    func run() throws {
        let path = context.keychainPath
        let removed: Int
        if context[Self.all] {
            // Noted for the commands that find the keys gone: other jobs of this user, which
            // did not ask for it. Locking one keychain by name is its owner's own doing.
            removed = KeyCache.invalidateAll(
                in: context[Self.keyring].map { [$0] } ?? KernelKeyring.Ring.allCases, by: "keychainctl lock --all")
        } else {
            let store: KeychainStore
            do {
                try KeychainStore.checkExists(path)
                store = try KeychainStore(path: path)
            } catch {
                // The key must not outlive an unreadable file: what was cached for its path goes.
                let removed = KeyCache.invalidate(taggedLike: KeyCache.Slot(id: [], path: path))
                let gone = access(path, F_OK) != 0
                if !gone {
                    StandardStreams.warn(
                        "cannot read \(path.terminalSafe) to name its cached key (\(ErrorReporter.summary(of: error))); "
                            + "removed the keys cached for that path instead (\(removed)).")
                }
                return report(removed, path: path, gone: gone)
            }
            guard case .v2(let id) = store.unlocking.format else { return report(0, path: path) }
            removed = KeyCache.invalidate(KeyCache.Slot(id: id, path: path)) ? 1 : 0
        }
        report(removed, path: path)
        // A key unlocked into a file ('unlock --to-key-file') is locked by removing the file.
        if let file = Self.removeUnlockedKeyFile(context), context.resolvedFormat == .text {
            StandardStreams.err(
                "locked \(path.terminalSafe): removed the key file \(file.terminalSafe) that 'keychainctl unlock --to-key-file' wrote\n")
        }
    }

    /// Removes the key file --key-file or KEYCHAINCTL_KEY_FILE names when `unlock --to-key-file`
    /// wrote it (`KeyFile.unlockedNote`): its path, or `nil` when there was none to remove.
    static func removeUnlockedKeyFile(_ context: CommandContext) -> String? {
        guard let file = context.given(GlobalOptions.keyFile) ?? SettingVariable.keyFile.value, !file.hasPrefix("/dev/fd/"),
            KeyFile.isUnlocked(file), unlink(file) == 0
        else { return nil }
        return file
    }

    private func report(_ removed: Int, path: String, gone: Bool = false) {
        switch context.resolvedFormat {
        case .text:
            if context[Self.all] {
                StandardStreams.err("locked: \(removed) cached key\(removed == 1 ? "" : "s") removed\n")
            } else {
                let name = path.terminalSafe
                StandardStreams.err(
                    removed > 0
                        ? "locked \(name): the key 'keychainctl unlock' cached is gone\n"
                        : gone
                            ? "no keychain at \(name) and no key cached for it: nothing to lock\n"
                            : "no key is cached for \(name): nothing to lock\n")
            }
        case .json:
            StandardStreams.out(
                JSON.render(.object(["keychain": context[Self.all] ? .null : .string(path), "removed": .number(Int64(removed))])) + "\n")
        }
    }
}
