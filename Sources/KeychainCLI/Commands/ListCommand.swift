import CommandLineKit
import Glibc
import KeychainCore
import TextEscaping

/// `keychainctl ls [PATTERN]`: one line per stored secret.
struct ListCommand: Subcommand {
    static let name = "ls"

    static let spec = CommandSpec(
        name: name,
        abstract: "List the secrets: one line per generic password (service, account, group, label, modified, sync).",
        discussion: """
            PATTERN is a shell glob on the service (quote it: 'api.*'). On a terminal the columns are aligned \
            under a header; otherwise each line is tab-separated, without one. SYNC is yes for a synchronizable \
            item (one 'keychainctl sync' shares with every device of the account), no for a local one. \
            --format json gives an array of \
            objects with readable keys (service, account, group, label, modified, synchronizable, ref) beside \
            Apple's codes (svce, acct, agrp, labl, mdat, sync, v_PersistentRef). Items of every sync state \
            are listed. Nothing to list prints nothing and exits 0; when the keychain holds secrets in groups \
            the profile cannot read (a Swift program's own group), a warning on stderr names them and how to \
            read them. A shorthand for keychainctl find --limit all \
            --sync any.
            """,
        sections: [("options", [NamedItem.group.spec]), GlobalOptions.section],
        operands: [("PATTERN", "A glob the service must match (default: every service).")], briefGlobalOptions: true,
        operandIsStoredName: true,
        examples: [
            Example("keychainctl ls", "List every secret: service, account, group, label, modified, sync."),
            Example("keychainctl ls 'git*' --format json", "The secrets whose service starts with git, as JSON."),
        ])

    /// The columns: header, readable JSON key, Apple's code.
    static let columns: [(header: String, key: String, code: String)] = [
        ("SERVICE", "service", Schema.service), ("ACCOUNT", "account", Schema.account), ("GROUP", "group", Schema.accessGroup),
        ("LABEL", "label", Schema.label), ("MODIFIED", "modified", Schema.modificationDate),
    ]

    let context: CommandContext

    func run() throws {
        let caller = try context.caller()
        let keychain = try context.openKeychain()
        let request = ItemRequest(
            itemClass: .genericPassword, words: context[NamedItem.group].map { [(Schema.accessGroup, $0)] } ?? [], limit: .all,
            returns: .attributes, sync: .any)
        var items: [Item] = []
        do {
            let result = try keychain.find(request, caller: caller)
            try DamagedRows.finish(result.damaged, skip: true)
            items = result.items.map(\.item)
        } catch let error as KeychainError where error.status == .itemNotFound {}
        if let pattern = context.arguments.operand {
            items = items.filter { fnmatch(pattern, $0.attributes[Schema.service]?.stringValue ?? "", 0) == 0 }
        }
        items.sort { Self.sortKey($0).lexicographicallyPrecedes(Self.sortKey($1)) }
        if items.isEmpty, context.arguments.operand == nil, context[NamedItem.group] == nil,
            let hint = Self.unreadableHint(try keychain.unreadableGroups(of: .genericPassword, caller: caller), caller: caller)
        {
            StandardStreams.warn(hint)
        }
        StandardStreams.out(render(items))
    }

    /// Why a listing that found nothing is not an empty keychain: the secrets in groups this
    /// profile cannot read, and how to see them (a program's group: act as that program).
    static func unreadableHint(_ groups: [(group: String, count: Int)], caller: Caller) -> String? {
        guard !groups.isEmpty else { return nil }
        let total = groups.reduce(0) { $0 + $1.count }
        let named = groups.prefix(3).map { "\($0.group.terminalSafe) (\($0.count))" }.joined(separator: ", ")
        let readable = caller.groups.readable.map(\.terminalSafe).joined(separator: ", ")
        var hint =
            "nothing this profile reads (\(readable.isEmpty ? "no group" : readable)); \(total) secret\(total == 1 ? " is" : "s are") in "
            + "groups it cannot read: \(named)\(groups.count > 3 ? ", …" : "")."
        if let program = groups.lazy.compactMap({ BuiltInProfile.program(ofGroup: $0.group) }).first {
            let plist = (program.hasPrefix("-") ? "./" : "") + program + ".plist"
            hint +=
                " To act as the program \(program): keychainctl profile show --program=\(program) > \(plist), then keychainctl ls --profile \(plist)."
        } else {
            hint += " A profile whose keychain-access-groups name one of them reads it."
        }
        return hint
    }

    static func sortKey(_ item: Item) -> [String] { [Schema.service, Schema.account, Schema.accessGroup].map { value(item, $0) } }

    /// An attribute as the listing shows it: text, the date in ISO 8601, empty when absent.
    static func value(_ item: Item, _ code: String) -> String {
        guard let value = item.attributes[code] else { return "" }
        if case .date(let milliseconds) = value { return ISO8601.format(milliseconds) }
        // Names as get and rm take them (literally); data, which no name is, as --attr finds it.
        if case .data = value, let attribute = Schema.attribute(code) { return value.commandLineText(for: attribute.kind) }
        return value.displayText
    }

    private func render(_ items: [Item]) -> String {
        switch context.resolvedFormat {
        case .json:
            let objects: [JSON.Value] = items.map { item in
                var object: [String: JSON.Value] = [
                    "synchronizable": .bool(item.isSynchronizable), Schema.synchronizable: .bool(item.isSynchronizable),
                    "ref": .string(item.persistentRef.base64), ItemJSON.persistentRefKey: .string(item.persistentRef.base64),
                ]
                for column in Self.columns {
                    object[column.key] = .string(Self.value(item, column.code))
                    object[column.code] = .string(Self.value(item, column.code))
                }
                return .object(object)
            }
            return JSON.render(.array(objects)) + "\n"
        case .text:
            let rows = items.map { item in
                Self.columns.map { Self.value(item, $0.code).terminalSafe } + [item.isSynchronizable ? "yes" : "no"]
            }
            guard StandardStreams.isTerminal(1) else { return rows.map { $0.joined(separator: "\t") + "\n" }.joined() }
            let table = [Self.columns.map(\.header) + ["SYNC"]] + rows
            let widths = table[0].indices.map { column in table.map { $0[column].count }.max() ?? 0 }
            return table.map { row in
                zip(row, widths).enumerated().map { index, cell in
                    index == row.count - 1 ? cell.0 : cell.0 + String(repeating: " ", count: cell.1 - cell.0.count + 2)
                }.joined() + "\n"
            }.joined()
        }
    }
}
