import Glibc
import KeychainCore

/// `keychainctl import`: items from json, jsonl, dotenv or the environment, added in one
/// transaction with conflicts handled by one policy (research `ci-anchors.md` §5.4).
struct ImportCommand: Subcommand {
    static let spec = CommandSpec(
        name: "import",
        abstract: "Add items from json, jsonl, dotenv, a PKCS#12 file or the environment, all or nothing.",
        discussion: """
            FILE (default: standard input, '-') holds what export writes: json ({"format":"keychainctl-items","version":1,"items":[…]} \
            or a bare array), jsonl (one item per line, streamed), or dotenv (NAME=VALUE: generic passwords \
            with svce from --service and acct NAME). Items use find's JSON keys plus v_Data, the secret in \
            base64. Conflicts (an item already holding the primary key) are all found first: fail (exit 45, \
            nothing imported), skip, replace, or update (re-importing the same items reports them unchanged). \
            The report names items by attributes and reference, never a secret. A PKCS#12 file (.p12, .pfx, or \
            --input-format pkcs12) adds each identity (certificate and private key) and every other certificate, \
            as SecPKCS12Import does: its passphrase comes from --p12-passphrase-fd (none: empty), an item already \
            stored counts as success, --group, --label and --accessible apply to every item. Wrong passphrase: \
            exit 51; a malformed or unsupported file: exit 93.
            """,
        sections: [
            (
                "options",
                [
                    .value(
                        "input-format", nil, "json|jsonl|dotenv|pkcs12", "The input's format (default: from the file name, else sniffed)."),
                    .value("p12-passphrase-fd", nil, "n", "pkcs12: read the file's passphrase from this file descriptor."),
                    .value("from-env", nil, "NAME,…", repeatable: true, "Import these variables of keychainctl's own environment."),
                    .value("service", nil, "service", "dotenv and --from-env: the items' service (svce); required for them."),
                    .value("group", nil, "group", "dotenv, pkcs12 and --from-env: the items' access group (default: the profile's)."),
                    .value("label", nil, "label", "dotenv, pkcs12 and --from-env: the items' label (labl)."),
                    .value("accessible", nil, "class", "dotenv, pkcs12 and --from-env: the items' accessibility (pdmn)."),
                    .value("on-conflict", nil, "fail|skip|replace|update", "What to do with an item already stored (default fail)."),
                    .flag("dry-run", "Do everything and report it, then roll it back."),
                ]
            ),
            ("global options", GlobalOptions.specs),
        ],
        operand: ("FILE", "The input (default '-', standard input)."))

    enum InputFormat: String { case json, jsonl, dotenv, pkcs12 }

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
    let p12PassphraseFD: Int32?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        globals = try GlobalOptions(arguments)
        file = arguments.operand
        inputFormat = try arguments.value("input-format", choices: "json, jsonl, dotenv or pkcs12", InputFormat.init(rawValue:))
        p12PassphraseFD = try arguments.value("p12-passphrase-fd", choices: "a file descriptor number") { Int32($0) }
        fromEnv = arguments.all("from-env").flatMap { $0.split(separator: ",").map(String.init) }
        service = arguments.value("service")
        group = arguments.value("group")
        label = arguments.value("label")
        accessible = arguments.value("accessible")
        policy =
            try arguments.value("on-conflict", choices: "fail, skip, replace or update", Keychain.ImportPolicy.init(rawValue:)) ?? .fail
        dryRun = arguments.flag("dry-run")
        if !fromEnv.isEmpty, file != nil { throw UsageError("import reads a FILE or --from-env, not both.") }
        if p12PassphraseFD != nil, !isPKCS12 { throw UsageError("--p12-passphrase-fd is for a PKCS#12 file (--input-format pkcs12).") }
        if isPKCS12, file == nil || file == "-" { throw UsageError("a PKCS#12 import reads a FILE, not standard input.") }
        if !fromEnv.isEmpty || inputFormat == .dotenv, service == nil {
            throw UsageError("dotenv and --from-env items need --service (their svce; each NAME becomes an account).")
        }
    }

    /// Whether the input is a PKCS#12 file: by --input-format, else by its name.
    var isPKCS12: Bool {
        inputFormat == .pkcs12 || (inputFormat == nil && [".p12", ".pfx"].contains { file?.lowercased().hasSuffix($0) == true })
    }

    func run() throws {
        if isPKCS12, let file { return try importPKCS12(file) }
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
        ItemRequest(attributes: [(Schema.service, service ?? ""), (Schema.account, name)] + givenAttributes)
    }

    /// The attributes --group, --label and --accessible give every item of a dotenv, environment
    /// or PKCS#12 import.
    private var givenAttributes: [(code: String, value: String)] {
        [(Schema.accessGroup, group), (Schema.label, label), (Schema.protection, accessible)].compactMap { code, value in
            value.map { (code, $0) }
        }
    }

    /// A PKCS#12 file's identities and certificates (`SecPKCS12Import`).
    private func importPKCS12(_ path: String) throws {
        let passphrase =
            try p12PassphraseFD.map { try GlobalOptions.passphrase(fromFD: $0, what: "the PKCS#12 passphrase") } ?? SecretBytes(count: 0)
        let contents = try SecretReader.readFile(path, limit: InputLimits.objectFileBytes)
        let archive: PKCS12Archive
        do {
            archive = try PKCS12Archive(der: contents, passphrase: passphrase)
        } catch {
            throw KeychainError(error.status, hint: "\(path.terminalSafe): \(error.hint)")
        }
        let caller = try globals.caller()
        let report = try globals.openKeychain().importPKCS12(
            archive, request: ItemRequest(attributes: givenAttributes), caller: caller, dryRun: dryRun)
        StandardStreams.out(PKCS12ReportRenderer.render(report, format: globals.resolvedFormat))
    }
}
