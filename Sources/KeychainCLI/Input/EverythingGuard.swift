import CommandLineKit
import KeychainCore

/// A `delete` or `update` whose query names no attribute, reference or group acts on every item
/// of the class the profile may write: SecItem's meaning, and a script's accident. It needs
/// `--all`, or a yes typed at the terminal; `--dry-run` needs neither (it changes nothing).
enum EverythingGuard {
    static let all = Flag("all", "Mean it when no attribute, reference or group selects: act on every item of the class.")

    /// Whether `request` selects by nothing but its class.
    static func selectsEverything(_ request: ItemRequest) -> Bool { request.attributes.isEmpty && request.persistentRef == nil }

    /// Lets the call go on, asks at the terminal (how many: `count`), or refuses. Without a
    /// terminal the refusal is a usage error (exit 64) naming `--all`; a no is errSecUserCanceled.
    static func check(_ request: ItemRequest, all: Bool, dryRun: Bool, verb: String, count: () throws -> Int) throws {
        guard selectsEverything(request), !all, !dryRun else { return }
        let kind = (ItemClass(parsing: request.itemClass ?? "") ?? .genericPassword).longName
        guard StandardStreams.isTerminal(0), StandardStreams.isTerminal(2) else {
            throw UsageError(
                "\(verb) with no attribute, reference or group selects every \(kind) the profile may write; "
                    + "pass --all to mean it (--dry-run lists them).")
        }
        let matched = try count()
        guard
            try Confirmation.ask(
                "\(verb.prefix(1).uppercased() + verb.dropFirst()) every \(kind) the profile may write (\(matched)\(matched == 1 ? " item" : " items"))? [y/N] "
            )
        else {
            throw KeychainError(.userCanceled, hint: "nothing was changed.")
        }
    }
}
