import Glibc
import KeychainCore

/// `keychainctl import`: items from json, jsonl, dotenv or the environment, added in one
/// transaction with conflicts handled by one policy (research `ci-anchors.md` §5.4).
struct ImportCommand: Subcommand {
    static let spec = CommandSpec(
        name: "import",
        abstract: "Add items from json, jsonl, dotenv or the environment, all or nothing.",
        discussion: """
            FILE (default: standard input, '-') holds what export writes: json ({"format":"keychainctl-items","version":1,"items":[…]} \
            or a bare array), jsonl (one item per line, streamed), or dotenv (NAME=VALUE: generic passwords \
            with svce from --service and acct NAME). Items use find's JSON keys plus v_Data, the secret in \
            base64. Conflicts (an item already holding the primary key) are all found first: fail (exit 45, \
            nothing imported), skip, replace, or update (re-importing the same items reports them unchanged). \
            The report names items by attributes and reference, never a secret.
            """,
        sections: [
            (
                "options",
                [
                    .value("input-format", nil, "json|jsonl|dotenv", "The input's format (default: from the file name, else sniffed)."),
                    .value("from-env", nil, "NAME,…", repeatable: true, "Import these variables of keychainctl's own environment."),
                    .value("service", nil, "service", "dotenv and --from-env: the items' service (svce); required for them."),
                    .value("group", nil, "group", "dotenv and --from-env: the items' access group (default: the profile's)."),
                    .value("label", nil, "label", "dotenv and --from-env: the items' label (labl)."),
                    .value("accessible", nil, "class", "dotenv and --from-env: the items' accessibility (pdmn)."),
                    .value("on-conflict", nil, "fail|skip|replace|update", "What to do with an item already stored (default fail)."),
                    .flag("dry-run", "Do everything and report it, then roll it back."),
                ]
            ),
            ("global options", GlobalOptions.specs),
        ],
        operand: ("FILE", "The input (default '-', standard input)."))

    enum InputFormat: String { case json, jsonl, dotenv }

    let globals: GlobalOptions
    let file: String?
    let inputFormat: InputFormat?
    let fromEnv: [String]
    let service: String?
    let group: String?
    let label: String?
    let accessible: String?
    let policy: Keychain.ImportPolicy
    let dryRun: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        globals = try GlobalOptions(arguments)
        file = arguments.operand
        inputFormat = try arguments.value("input-format", choices: "json, jsonl or dotenv", InputFormat.init(rawValue:))
        fromEnv = arguments.all("from-env").flatMap { $0.split(separator: ",").map(String.init) }
        service = arguments.value("service")
        group = arguments.value("group")
        label = arguments.value("label")
        accessible = arguments.value("accessible")
        policy =
            try arguments.value("on-conflict", choices: "fail, skip, replace or update", Keychain.ImportPolicy.init(rawValue:)) ?? .fail
        dryRun = arguments.flag("dry-run")
        if !fromEnv.isEmpty, file != nil { throw UsageError("import reads a FILE or --from-env, not both.") }
        if !fromEnv.isEmpty || inputFormat == .dotenv, service == nil {
            throw UsageError("dotenv and --from-env items need --service (their svce; each NAME becomes an account).")
        }
    }

    func run() throws {
        let caller = try globals.caller()
        let source = try ImportSource(self)
        let keychain = try globals.openKeychain()
        let report = try keychain.importItems(
            caller: caller, policy: policy, dryRun: dryRun, keepingItems: globals.resolvedFormat == .json, next: source.next)
        for warning in source.warnings { StandardStreams.warn(warning) }
        StandardStreams.out(ImportReportRenderer.render(report, format: globals.resolvedFormat))
    }

    /// The request for a dotenv or environment variable `name`.
    func request(name: String) -> ItemRequest {
        var attributes: [(code: String, value: String)] = [("svce", service ?? ""), ("acct", name)]
        if let group { attributes.append(("agrp", group)) }
        if let label { attributes.append(("labl", label)) }
        if let accessible { attributes.append(("pdmn", accessible)) }
        return ItemRequest(attributes: attributes)
    }
}
