import CommandLineKit
import KeychainCore
import TextEscaping

/// `keychainctl error`: a status by number or name, as `security error` prints it, with what
/// usually causes it in keychainctl; `--list` prints the whole table.
struct ErrorCommand: Subcommand {
    static let name = "error"

    static let spec = CommandSpec(
        name: name,
        abstract: "Explain a keychain status: its name, Apple's message, the exit status and what usually causes it.",
        discussion: """
            STATUS is an exit status keychainctl ended with (0 to 255: 'error 44' after 'echo $?' said 44), \
            an OSStatus (-25300, or 25300: statuses are negative), the same in hex (0xFFFF9D2C), or Apple's \
            constant name, with or without its errSec prefix (errSecItemNotFound, ItemNotFound). A number from \
            0 to 255 is read as an exit status first, and the OSStatus of its negative is shown too where one \
            exists (exit 36 is errSecInteractionNotAllowed; OSStatus -36 is errSecIO). --exit N reads N as an \
            exit status only. --list prints every exit status keychainctl can end with.
            """,
        sections: [("options", [Self.list.spec, Self.exit.spec, GlobalOptions.format.spec])],
        operands: [("STATUS", "An exit status (0 to 255), an OSStatus in decimal or hex, or its name.")],
        examples: [
            Example("keychainctl error -34018", "What errSecMissingEntitlement means and what usually causes it."),
            Example("keychainctl error 44", "What exit status 44 means: errSecItemNotFound, and what usually causes it."),
        ])

    static let list = Flag("list", "Print every exit status with its meaning.")
    static let exit = Option<Int32>(
        "exit", nil, "n", expected: "an exit status from 0 to 255", "Look up the status behind this exit status."
    ) {
        Int32($0).flatMap { (0...255).contains($0) ? $0 : nil }
    }

    let context: CommandContext

    func validate() throws(UsageError) {
        if [context.arguments.operand != nil, context[Self.exit] != nil, context[Self.list]].filter({ $0 }).count != 1 {
            throw UsageError("error takes one of: a STATUS, --exit N, or --list.")
        }
    }

    func run() throws {
        let (query, list) = (context.arguments.operand, context[Self.list])
        let rows: [ExitStatusTable.Row]
        if list {
            rows = ExitStatusTable.rows
        } else if let exit = context[Self.exit] {
            rows = ExitStatusTable.rows.filter { $0.exit == exit }
            guard !rows.isEmpty else {
                throw UsageError("keychainctl never exits \(exit); 'keychainctl error --list' shows the exits it has.")
            }
        } else if let exit = Self.exitStatus(query ?? ""), case let exitRows = ExitStatusTable.rows.filter({ $0.exit == exit }),
            !exitRows.isEmpty
        {
            return explainExit(exit, rows: exitRows, alsoOSStatus: Self.appleStatus(query ?? ""))
        } else if let status = Self.status(query ?? "") {
            rows = ExitStatusTable.rows.filter { $0.status == status }
        } else if let apple = Self.appleStatus(query ?? "") {
            return explainApple(apple)
        } else {
            throw UsageError(
                "'\(query?.terminalSafe ?? "")' is no status of Apple's Security framework (SecBase.h); 'keychainctl error --list' shows those keychainctl returns."
            )
        }
        switch context.resolvedFormat {
        case .json:
            let objects = rows.map(Self.json)
            StandardStreams.out(JSON.render(list || objects.count != 1 ? .array(objects) : objects[0]) + "\n")
        case .text:
            StandardStreams.out(rows.map(Self.text).joined(separator: list ? "" : "\n"))
        }
    }

    /// The exit status `text` spells: plain decimal digits from 0 to 255 (no sign, no hex).
    static func exitStatus(_ text: String) -> Int32? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let number = Int32(text), number <= 255 else { return nil }
        return number
    }

    /// Exit status `exit` (its rows), said to be keychainctl's exit status, and the OSStatus its
    /// negative names too, where Apple has one.
    private func explainExit(_ exit: Int32, rows: [ExitStatusTable.Row], alsoOSStatus: AppleStatuses.Row?) {
        let other = alsoOSStatus.flatMap { apple in apple.status == 0 || rows.contains { $0.status?.rawValue == apple.status } ? nil : apple
        }
        switch context.resolvedFormat {
        case .json:
            let osStatus: JSON.Value =
                other.map { .object(["status": .number(Int64($0.status)), "name": .string($0.name), "message": .string($0.message)]) }
                ?? .null
            let objects = rows.map { row -> JSON.Value in
                guard case .object(var object) = Self.json(row) else { return Self.json(row) }
                object["readAs"] = .string("exit")
                object["osStatus"] = osStatus
                return .object(object)
            }
            StandardStreams.out(JSON.render(objects.count == 1 ? objects[0] : .array(objects)) + "\n")
        case .text:
            var out = "keychainctl's exit status \(exit):\n" + rows.map(Self.text).joined(separator: "\n")
            if let other {
                out += "OSStatus \(other.status) (not an exit status) is \(other.name): \(other.message)"
                out += " ('keychainctl error \(other.status)').\n"
            }
            StandardStreams.out(out)
        }
    }

    /// The number `text` spells: decimal (a positive one meaning its negative, as statuses are
    /// negative: `34018` is -34018) or `0x` hex of the 32-bit value.
    static func number(_ text: String) -> Int32? {
        if let number = Int32(text) { return number > 0 ? -number : number }
        if text.lowercased().hasPrefix("0x"), let bits = UInt32(text.dropFirst(2), radix: 16) { return Int32(bitPattern: bits) }
        return nil
    }

    /// The status `text` names: a number (`number`) or a constant name, among keychainctl's own.
    static func status(_ text: String) -> KeychainStatus? { appleStatus(text).flatMap { KeychainStatus(rawValue: $0.status) } }

    /// The status `text` names among all of Apple's (SecBase.h and its kin).
    static func appleStatus(_ text: String) -> AppleStatuses.Row? {
        if let number = number(text) { return AppleStatuses.row(status: number) }
        return AppleStatuses.row(named: text)
    }

    /// A status of Apple's that keychainctl never returns: what it is, and that.
    private func explainApple(_ row: AppleStatuses.Row) {
        let note = "keychainctl never returns it: it comes from an Apple API or code path keychainctl does not model."
        switch context.resolvedFormat {
        case .json:
            let object: [String: JSON.Value] = [
                "status": .number(Int64(row.status)), "name": .string(row.name), "message": .string(row.message),
                "appleMessage": .string(row.message), "exit": .null, "causes": .string(note), "commands": .array([]),
            ]
            StandardStreams.out(JSON.render(.object(object)) + "\n")
        case .text:
            StandardStreams.out("\(row.name) (\(row.status), \(row.hex)): \(row.message)\n  \(note)\n")
        }
    }

    private static func text(_ row: ExitStatusTable.Row) -> String {
        guard let status = row.status else { return "exit \(row.exit): \(row.meaning)\n" }
        let apple = status.appleMessage == status.message ? "" : "  Apple's message: \(status.appleMessage)\n"
        return """
            \(status.name) (\(status.rawValue), \(status.apple.hex)): \(status.message)
            \(apple)  exit status: \(row.exit)
              usually: \(row.meaning)
              from: \(status.row.commands.joined(separator: ", "))

            """
    }

    private static func json(_ row: ExitStatusTable.Row) -> JSON.Value {
        var object: [String: JSON.Value] = ["exit": .number(Int64(row.exit)), "causes": .string(row.meaning)]
        object["status"] = row.status.map { .number(Int64($0.rawValue)) } ?? .null
        object["name"] = row.status.map { .string($0.name) } ?? .null
        object["message"] = row.status.map { .string($0.message) } ?? .null
        object["appleMessage"] = row.status.map { .string($0.appleMessage) } ?? .null
        object["commands"] = row.status.map { .array($0.row.commands.map { .string($0) }) } ?? .null
        return .object(object)
    }
}
