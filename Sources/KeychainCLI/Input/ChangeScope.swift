import CommandLineKit
import KeychainCore

/// What a delete or an update acts on besides its query attributes, declared once for both: how
/// many (`--limit`), one item by `--persistent-ref`, `--dry-run`, `--all` (an empty selection meant)
/// and `--skip-damaged`; and the guard every such call passes before it changes anything.
struct ChangeScope {
    /// The options, their help naming the command's verb.
    struct Options {
        let limit: Option<String>
        let persistentRef: Option<String>
        let dryRun: Flag

        init(verb: String, dryRun: String) {
            let capitalized = verb.prefix(1).uppercased() + verb.dropFirst()
            limit = Option.text("limit", nil, "one|all|n", suggestions: .limits, "How many to \(verb): all (default), one, or a number.")
            persistentRef = Option.text("persistent-ref", nil, "base64", "\(capitalized) one item by its persistent reference.")
            self.dryRun = Flag("dry-run", dryRun)
        }

        /// The section help lists.
        var specs: [OptionSpec] { [limit.spec, persistentRef.spec, dryRun.spec, EverythingGuard.all.spec, DamagedRows.option.spec] }
    }

    let limit: String?
    let persistentRef: String?
    let dryRun: Bool
    let all: Bool
    let skipDamaged: Bool

    init(_ arguments: ParsedArguments, _ options: Options) {
        limit = arguments[options.limit]
        persistentRef = arguments[options.persistentRef]
        dryRun = arguments[options.dryRun]
        all = arguments[EverythingGuard.all]
        skipDamaged = arguments[DamagedRows.option]
    }

    /// The request `item` selects within this scope.
    func request(_ item: ItemOptions) -> ItemRequest { item.request(limit: limit, persistentRef: persistentRef) }

    /// Runs `act` (given whether to only rehearse, and whether to skip damaged rows) once
    /// `EverythingGuard` lets a selection of the whole class through: its count comes from a
    /// rehearsal that skips damaged rows.
    func perform<Result>(
        _ request: ItemRequest, verb: String, count: (Result) -> Int, _ act: (_ dryRun: Bool, _ skipDamaged: Bool) throws -> Result
    ) throws -> Result {
        try EverythingGuard.check(request, all: all, dryRun: dryRun, verb: verb) { count(try act(true, true)) }
        return try act(dryRun, skipDamaged)
    }
}
