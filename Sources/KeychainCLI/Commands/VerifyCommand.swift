import CommandLineKit
import KeychainCore

/// `keychainctl verify`: opens the key hierarchy and every row, runs SQLite's integrity check, and
/// names every damaged row; `--repair` deletes those rows.
struct VerifyCommand: Subcommand {
    static let name = "verify"

    static let spec = CommandSpec(
        name: name,
        abstract: "Check the whole keychain with its key: structure, class keys, every item; --repair removes damaged items.",
        discussion: """
            Needs the key, not a profile: it reads every access group. Exit 0 when everything opens, 93
            (errSecDecode) when an item or class key does not, 74 when SQLite's integrity check fails.
            --repair deletes the damaged items after confirmation on a terminal (--yes otherwise; without a
            terminal and --yes it is exit 36). A damaged item leaves no tombstone: its attributes are unknown.
            """,
        sections: [("options", [Self.repair.spec, Self.yes.spec]), GlobalOptions.section],
        examples: [
            Example("keychainctl verify", "Check every item opens with the key, and the file's structure.")
        ])

    static let repair = Flag("repair", "Delete every damaged item.")
    static let yes = Flag("yes", "Do not ask before deleting.")

    let context: CommandContext

    func run() throws {
        let keychain = try context.openKeychain()
        var report = try keychain.verify()
        let format = context.resolvedFormat
        if context[Self.repair], !report.damaged.isEmpty {
            if format == .text { StandardStreams.out(Self.text(report, path: context.keychainPath)) }
            let go =
                try context[Self.yes]
                || Confirmation.ask("Delete \(report.damaged.count) damaged item\(report.damaged.count == 1 ? "" : "s")? [y/N] ")
            guard go else { throw KeychainError(.decode, hint: "nothing was deleted.", damaged: report.damaged) }
            report = try keychain.repair()
            if format == .text {
                StandardStreams.out("removed \(report.removed.count) damaged item\(report.removed.count == 1 ? "" : "s")\n")
            }
        } else if format == .text {
            StandardStreams.out(Self.text(report, path: context.keychainPath))
        }
        if format == .json { StandardStreams.out(JSON.render(Self.json(report, path: context.keychainPath)) + "\n") }
        guard report.integrity.isEmpty else {
            throw StoreError(
                "SQLite's integrity check of \(context.keychainPath) failed: \(report.integrity.prefix(3).joined(separator: "; "))")
        }
        if !report.classKeys.isEmpty {
            throw KeychainError(
                .decode,
                hint:
                    "the class keys of \(report.classKeys.joined(separator: ", ")) do not open: the items of those classes cannot be read.")
        }
        let left = report.damaged.filter { row in !report.removed.contains(row) }
        if !left.isEmpty { throw DamagedRow.refusal(left, changedNothing: false) }
    }

    private static func text(_ report: Keychain.VerifyReport, path: String) -> String {
        var lines = ["keychain: \(path) (schema version \(report.version))"]
        lines.append("integrity: " + (report.integrity.isEmpty ? "ok" : report.integrity.joined(separator: "; ")))
        lines.append("class keys: " + (report.classKeys.isEmpty ? "ok" : "damaged: " + report.classKeys.joined(separator: ", ")))
        lines.append("items: " + ItemClass.stored.map { "\($0.rawValue) \(report.rows[$0] ?? 0)" }.joined(separator: ", "))
        if report.behindPassword > 0 {
            lines.append("behind an application password: \(report.behindPassword) (checked up to the password)")
        }
        lines.append("damaged items: \(report.damaged.count)")
        for row in report.damaged { lines.append("  \(row.ref.base64) (\(row.ref.itemClass.rawValue)): \(row.reason.rawValue)") }
        return lines.map { $0 + "\n" }.joined()
    }

    private static func json(_ report: Keychain.VerifyReport, path: String) -> JSON.Value {
        func rows(_ list: [DamagedRow]) -> JSON.Value {
            .array(
                list.map {
                    .object([
                        ItemJSON.persistentRefKey: .string($0.ref.base64), ItemJSON.classKey: .string($0.ref.itemClass.rawValue),
                        "reason": .string($0.reason.rawValue),
                    ])
                })
        }
        var counts: [String: JSON.Value] = [:]
        for itemClass in ItemClass.stored { counts[itemClass.rawValue] = .number(Int64(report.rows[itemClass] ?? 0)) }
        return .object([
            "keychain": .string(path), "version": .number(Int64(report.version)), "ok": .bool(report.isClean),
            "integrity": .array(report.integrity.map { .string($0) }), "classKeys": .array(report.classKeys.map { .string($0) }),
            "items": .object(counts), "damaged": rows(report.damaged), "removed": rows(report.removed),
            "behindPassword": .number(Int64(report.behindPassword)),
        ])
    }
}
