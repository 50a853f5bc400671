import CommandLineKit
import Glibc
import KeychainCore

/// `keychainctl sync --cloud DIR`: this keychain as one device of an account, in step with the
/// account's other devices through a cloud store, by CKKS's rules (docs/SYNC.md).
struct SyncCommand: Subcommand {
    static let name = "sync"

    static let spec = CommandSpec(
        name: name,
        abstract: "Sync this keychain with the other devices of its account through a cloud store (iCloud Keychain's rules).",
        discussion: """
            Pull, then push, holding the store's lock: records changed elsewhere are applied here by UUID; items \
            added, changed or deleted here are uploaded. Only items with sync=1 whose class is ak, ck or dk travel; \
            the same item added on two devices keeps the copy written first (by its writer's signed time) once both \
            reached the cloud, and a copy that never reached it loses; of two changes to one item the first to reach the cloud wins. A \
            primary-key change travels as a deletion and an addition; turning sync off deletes the other devices' \
            copies. Class-A items from other devices wait while this device is locked. Needs the keychain's key, \
            not a profile. The report lists every item that moved and every synchronizable item that never will, \
            with why and the device that wrote each change (by=); never secrets. A record that does not open, that \
            the store's head does not list and no device in good standing signed, or that vanished without a \
            deletion record is listed and skipped (exit 93 at the end, 74 for one that cannot be read); an item \
            whose record vanished is kept here and uploaded again. A store whose head does not pass through the \
            last head this device saw (rewound, forked) is refused (exit 93) and nothing changes; the wrong or a \
            rotated account key is exit 51 and changes nothing. --git treats DIR as a \
            git working copy: fetch, sync, commit, push; a rejected push is CloudKit's server-record-changed: the \
            keychain's changes are rolled back and the sync runs again on the new remote state.
            """,
        sections: [
            (
                "options",
                [Self.cloud.spec, Self.accountKeyFile.spec, Self.dryRun.spec, Self.git.spec, Self.deviceName.spec, Self.expectHead.spec]
            ),
            GlobalOptions.section,
        ],
        examples: [
            Example(
                "keychainctl sync --cloud ~/cloud --account-key-file ~/account.key",
                "Push this keychain's synchronizable items and pull the other devices'."
            )
        ])

    /// The account key file, which cloud init also takes.
    static let accountKeyFile = Option.path(
        "account-key-file", environment: "KEYCHAINCTL_ACCOUNT_KEY_FILE", "File holding the account key, base64.")

    static let cloud = Option.path("cloud", "The cloud store's directory (made by 'keychainctl cloud init').")
    static let dryRun = Flag("dry-run", "Report what would happen; write nothing here or in the cloud.")
    static let git = Flag("git", "DIR is a git working copy: pull the remote state first, push the changes after.")
    static let deviceName = Option.text(
        "device-name", "name", "The name this device joins the store's device list under (default: the keychain file's name).")
    static let expectHead = Option.text(
        "expect-head", "head",
        "Take the store only if its head passes through this one ('keychainctl cloud head' prints it): a new device's first sync, "
            + "or accepting a store reset on purpose.")

    let context: CommandContext

    func validate() throws(UsageError) {
        guard context[Self.cloud] != nil else { throw UsageError("sync needs --cloud DIR (a store made by 'cloud init').") }
        if let name = context[Self.deviceName], name.isEmpty || name.count > 64 || !name.allSatisfy(Self.isNameCharacter) {
            throw UsageError("--device-name takes 1 to 64 letters, digits, '.', '_' or '-'.")
        }
        if let head = context[Self.expectHead], SyncOptions.parseHead(head) == nil {
            throw UsageError("--expect-head takes a head as 'keychainctl cloud head' prints it: SEQUENCE:LINK (64 hex digits).")
        }
    }

    func run() throws {
        let (cloudPath, dryRun) = (context[Self.cloud] ?? "", context[Self.dryRun])
        let key = try Self.accountKey(context[Self.accountKeyFile], store: cloudPath)
        let options = SyncOptions(deviceName: context[Self.deviceName] ?? defaultDeviceName, expectedHead: context[Self.expectHead])
        let report: SyncReport
        if context[Self.git] {
            let workingCopy = try GitWorkingCopy(path: cloudPath)
            // Opened once: a retried attempt must not derive a passphrase's key again.
            let keychain = try context.openKeychain()
            report = try workingCopy.sync(accountKey: key, dryRun: dryRun) { cloud, publish in
                Self.warnIfVersion1(cloud)
                return try keychain.sync(with: cloud, options: options, dryRun: dryRun, publish: publish)
            }
        } else {
            let cloud = try CloudStore(path: cloudPath, accountKey: key)
            Self.warnIfVersion1(cloud)
            report = try context.openKeychain().sync(with: cloud, options: options, dryRun: dryRun)
        }
        StandardStreams.out(SyncRenderer.render(report, keychain: context.keychainPath, cloud: cloudPath, format: context.resolvedFormat))
        switch report.failure {
        case .decode?:
            throw KeychainError(
                .decode,
                hint:
                    "\(report.entries(.failed).count) record(s) or item(s) failed (listed above, with why); nothing was applied from them.")
        case .io?:
            throw StoreError("\(report.entries(.failed).count) cloud record(s) could not be read and were skipped (listed above)")
        case nil: break
        }
    }

    /// The keychain file's name without its folder and extension (`mac.db`: mac).
    /// Letters, digits, `.`, `_` and `-` kept, anything else a `-`, at most 64.
    private var defaultDeviceName: String {
        let file = context.keychainPath.split(separator: "/").last.map(String.init) ?? "device"
        let stem = file.split(separator: ".", omittingEmptySubsequences: false).first.map(String.init) ?? file
        let name = String(stem.prefix(64).map { Self.isNameCharacter($0) ? $0 : "-" })
        return name.isEmpty ? "device" : name
    }

    private static func isNameCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || "._-".contains(character))
    }

    /// A version-1 store syncs as before, with the warning that its host can delete items
    /// everywhere and the command that ends it.
    static func warnIfVersion1(_ cloud: CloudStore) {
        guard cloud.format == .v1 else { return }
        StandardStreams.warn(
            "\(cloud.path) is a version-1 cloud store: its host can delete or rewind items on every device. Once every device "
                + "runs this keychainctl, upgrade it: keychainctl cloud upgrade --cloud \(cloud.path)")
    }

    /// Refuses an account key file inside the store's folder (exit 78): whatever carries the store
    /// (git, a shared folder) would carry the key that opens every record with it.
    static func checkKeyOutside(store: String, keyFile: String) throws {
        let folder = Folders.absolute(store)
        let key = Folders.absolute(keyFile)
        guard key.hasPrefix(folder == "/" ? "/" : folder + "/") else { return }
        throw ConfigurationError(
            "the account key file \(keyFile) is inside the cloud store \(store), which carries it to every copy of the store "
                + "(and to a git remote's history); keep it outside the store's folder. Nothing was done.")
    }

    /// The account key of the store at `store`, from `path` or KEYCHAINCTL_ACCOUNT_KEY_FILE, a file
    /// outside that store.
    static func accountKey(_ path: String?, store: String) throws -> SecretBytes {
        guard let path = path ?? accountKeyFile.environmentValue else {
            throw ConfigurationError("no account key: pass --account-key-file PATH or set KEYCHAINCTL_ACCOUNT_KEY_FILE.")
        }
        try checkKeyOutside(store: store, keyFile: path)
        let text: SecretBytes
        do { text = try SecretFiles.readKeyFile(path) } catch let error as InputError {
            throw ConfigurationError("cannot read the account key file: \(error.description)")
        } catch is InputTooLarge {
            throw ConfigurationError("\(path) is not an account key file: longer than \(InputLimits.keyFileBytes) bytes.")
        }
        guard let key = text.base64Decoded(strict: true), key.count == KeyRing.keyBytes else {
            throw ConfigurationError(
                "\(path) does not hold an account key: expected 32 random bytes in base64 (as 'cloud init --generate-account-key-file' writes)."
            )
        }
        return key
    }
}
