import CommandLineKit
import Glibc
import KeychainCore
import TextEscaping

/// `keychainctl cloud`: the cloud store an account's devices sync through: making one, its head and
/// devices, rotating its account key (revoking a device), upgrading a version-1 store.
struct CloudCommand: Subcommand {
    static let name = "cloud"

    static let spec = CommandSpec(
        name: name,
        abstract: "Create and look after a cloud store: the directory an account's keychains sync through (see sync).",
        discussion: """
            init makes DIR (new or empty) a cloud store sealed under an account key: a random key written to a new \
            file (--generate-account-key-file, mode 0600), or an existing one (--account-key-file). Every device \
            of the account syncs with the same key; each keeps its own keychain key and signs what it writes with \
            a key of its own. DIR holds one encrypted file per item (records/, named by the item's UUID), a sealed \
            head (the chain of changes, the device list and what every record should be) and a sealed marker; a \
            .gitignore leaves the lock and temporary files out of git (sync --git). An existing store is never \
            overwritten (exit 74). rekey re-seals everything under a new account key: a device still holding the \
            old key is told of the rotation (exit 51) and reads and writes nothing; revoke DEVICE does the same \
            after marking DEVICE revoked, whose later writes every device refuses. A rotation that was \
            interrupted is finished by running it again with the same keys.
            """,
        sections: [
            (
                "options",
                [
                    SyncCommand.cloud.spec, Self.generateAccountKeyFile.spec, SyncCommand.accountKeyFile.spec, Self.newAccountKeyFile.spec,
                ]
            ),
            GlobalOptions.section,
        ],
        actions: [
            ("init", "Create the store at DIR."),
            (
                "head",
                "Print the store's head (SEQUENCE:LINK), to hand a new device (sync --expect-head); --format json adds the records it lists, live and deleted."
            ),
            ("devices", "List the devices that joined the store, active or revoked."),
            (
                "rekey",
                "Rotate the account key: re-seal everything under a new key (--new-account-key-file or --generate-account-key-file)."
            ),
            ("revoke", "Revoke DEVICE (a name 'cloud devices' lists) and rotate the account key, as rekey does."),
            ("upgrade", "Make a version-1 store (made by keychainctl 1.0 or earlier) a version-2 one, keeping every record."),
        ],
        operands: [("DIR|DEVICE", "init: the store's directory; revoke: the device to revoke.")],
        examples: [
            Example(
                "keychainctl cloud init ~/cloud --generate-account-key-file ~/account.key",
                "Create a cloud store and the account key that seals it."
            ),
            Example(
                "keychainctl cloud devices --cloud ~/cloud --account-key-file ~/account.key",
                "List the devices that joined the store: the names 'cloud revoke' takes."
            ),
        ])

    static let generateAccountKeyFile = Option.path(
        "generate-account-key-file", "init, rekey, revoke: write a new random account key (base64, mode 0600) to this file.")
    static let newAccountKeyFile = Option.path(
        "new-account-key-file", "rekey, revoke: the new account key, from a file (as --generate-account-key-file writes).")

    let context: CommandContext

    private var action: String { context.arguments.action ?? "init" }
    private var rotates: Bool { action == "rekey" || action == "revoke" }

    func validate() throws(UsageError) {
        switch action {
        case "init":
            guard context.arguments.operand != nil else { throw UsageError("cloud init needs the store's directory: cloud init DIR.") }
            if context[Self.generateAccountKeyFile] != nil, context[SyncCommand.accountKeyFile] != nil {
                throw UsageError("give one of --generate-account-key-file (a new account) and --account-key-file (an existing key).")
            }
        case "revoke":
            guard context.arguments.operand != nil else {
                throw UsageError("cloud revoke needs the device: cloud revoke DEVICE (a name 'keychainctl cloud devices' lists).")
            }
        default:
            guard context.arguments.operand == nil else { throw UsageError("cloud \(action) takes no operand; the store is --cloud DIR.") }
        }
        if action != "init", context[SyncCommand.cloud] == nil { throw UsageError("cloud \(action) needs --cloud DIR.") }
        if rotates, (context[Self.generateAccountKeyFile] != nil) == (context[Self.newAccountKeyFile] != nil) {
            throw UsageError("cloud \(action) needs the new account key: one of --new-account-key-file and --generate-account-key-file.")
        }
        if !rotates, context[Self.newAccountKeyFile] != nil {
            throw UsageError("--new-account-key-file goes with cloud rekey and cloud revoke.")
        }
        if !rotates, action != "init", context[Self.generateAccountKeyFile] != nil {
            throw UsageError("--generate-account-key-file goes with cloud init, rekey and revoke.")
        }
    }

    func run() throws {
        switch action {
        case "init": try create()
        case "head": try printHead()
        case "devices": try listDevices()
        case "upgrade": try upgrade()
        default: try rotate()
        }
    }

    private var store: String { context[SyncCommand.cloud] ?? "" }

    private func create() throws {
        let directory = context.arguments.operand ?? ""
        let generateKeyFile = context[Self.generateAccountKeyFile]
        let key: SecretBytes
        if let generateKeyFile {
            try SyncCommand.checkKeyOutside(store: directory, keyFile: generateKeyFile)
            guard case .key(let generated) = try KeyFile.writeNew(to: generateKeyFile) else { return }
            key = generated
        } else {
            key = try SyncCommand.accountKey(context[SyncCommand.accountKeyFile], store: directory)
        }
        do {
            try CloudStore.create(at: directory, accountKey: key)
        } catch {
            if let generateKeyFile { unlink(generateKeyFile) }
            throw error
        }
        switch context.resolvedFormat {
        case .text: StandardStreams.out("created cloud store \(directory.terminalSafe)\n")
        case .json: StandardStreams.out(JSON.render(.object(["cloud": .string(directory)])) + "\n")
        }
    }

    /// The store, opened with the account key; a version-1 store has no head or devices.
    private func openVersion2() throws -> CloudStore {
        let cloud = try CloudStore(path: store, accountKey: try SyncCommand.accountKey(context[SyncCommand.accountKeyFile], store: store))
        guard cloud.format != .v1 else {
            throw ConfigurationError(
                "\(store) is a version-1 cloud store: it has no head or device list until it is upgraded "
                    + "('keychainctl cloud upgrade --cloud \(store)'); nothing was changed.")
        }
        return cloud
    }

    private func printHead() throws {
        let head = try openVersion2().head()
        switch context.resolvedFormat {
        case .text: StandardStreams.out(head.text + "\n")
        case .json:
            let sorted = head.manifest.sorted { $0.key < $1.key }
            let names = { (deleted: Bool) in
                JSON.Value.array(sorted.filter { $0.value.isTombstone == deleted }.map { .string(CloudStore.name($0.key)) })
            }
            StandardStreams.out(
                JSON.render(
                    .object([
                        "head": .string(head.text), "sequence": .number(Int64(head.sequence)), "epoch": .number(Int64(head.epoch)),
                        "records": names(false), "deleted": names(true),
                    ])) + "\n")
        }
    }

    private func listDevices() throws {
        let head = try openVersion2().head()
        switch context.resolvedFormat {
        case .text:
            var out = ""
            for device in head.devices {
                out += "\(device.name.terminalSafe)\t\(Hex.lowercase(device.id.bytes))\t\(device.revoked ? "revoked" : "active")\n"
            }
            if head.devices.isEmpty { out = "no device has synced with \(store.terminalSafe) yet\n" }
            StandardStreams.out(out)
        case .json:
            StandardStreams.out(
                JSON.render(
                    .array(
                        head.devices.map {
                            .object(["name": .string($0.name), "id": .string(Hex.lowercase($0.id.bytes)), "revoked": .bool($0.revoked)])
                        })) + "\n")
        }
    }

    private func upgrade() throws {
        let key = try SyncCommand.accountKey(context[SyncCommand.accountKeyFile], store: store)
        let result = try CloudStore.upgrade(path: store, accountKey: key)
        let text =
            result.upgraded
            ? "upgraded cloud store \(store.terminalSafe) to version 2: its head lists \(result.records) record(s)"
                + (result.unopened.isEmpty ? "" : "; \(result.unopened.count) record file(s) that do not open were left out")
            : "\(store.terminalSafe) is already a version-2 cloud store; nothing was changed"
        switch context.resolvedFormat {
        case .text: StandardStreams.out(text + "\n")
        case .json:
            StandardStreams.out(
                JSON.render(
                    .object([
                        "cloud": .string(store), "upgraded": .bool(result.upgraded), "records": .number(Int64(result.records)),
                        "unopened": .array(result.unopened.map { .string(CloudStore.name($0)) }),
                    ])) + "\n")
        }
    }

    private func rotate() throws {
        let oldKey = try SyncCommand.accountKey(context[SyncCommand.accountKeyFile], store: store)
        let newKey: SecretBytes
        let generated = context[Self.generateAccountKeyFile]
        if let generated {
            try SyncCommand.checkKeyOutside(store: store, keyFile: generated)
            guard case .key(let key) = try KeyFile.writeNew(to: generated) else { return }
            newKey = key
        } else {
            newKey = try SyncCommand.accountKey(context[Self.newAccountKeyFile], store: store)
        }
        let rotation: CloudStore.Rotation
        do {
            rotation = try CloudStore.rotate(
                path: store, oldKey: oldKey, newKey: newKey, revoking: action == "revoke" ? context.arguments.operand : nil)
        } catch let error as ConfigurationError {
            // Refused before anything changed: the generated key opens nothing and is not kept.
            if let generated { unlink(generated) }
            throw error
        }
        let keyFile = generated ?? context[Self.newAccountKeyFile] ?? ""
        var text =
            (rotation.resumed ? "finished rotating" : "rotated") + " the account key of \(store.terminalSafe) to epoch \(rotation.epoch)"
        if let revoked = rotation.revoked { text += ", revoking \(revoked.terminalSafe)" }
        text +=
            ": \(rotation.resealed) record(s) re-sealed; the old key opens nothing written from now on. Give \(keyFile.terminalSafe) to every device that stays."
        if !rotation.unopened.isEmpty {
            text += " \(rotation.unopened.count) record file(s) opened under neither key and were left as they are."
        }
        switch context.resolvedFormat {
        case .text: StandardStreams.out(text + "\n")
        case .json:
            var members: [String: JSON.Value] = [
                "cloud": .string(store), "epoch": .number(Int64(rotation.epoch)), "resealed": .number(Int64(rotation.resealed)),
                "resumed": .bool(rotation.resumed), "unopened": .array(rotation.unopened.map { .string(CloudStore.name($0)) }),
            ]
            if let revoked = rotation.revoked { members["revoked"] = .string(revoked) }
            StandardStreams.out(JSON.render(.object(members)) + "\n")
        }
    }
}
