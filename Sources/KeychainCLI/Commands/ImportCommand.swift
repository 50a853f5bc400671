import CommandLineKit
import Glibc
import KeychainCore
import TextEscaping

/// `keychainctl import`: items from json, jsonl, dotenv or the environment, added in one
/// transaction with conflicts handled by one policy (docs/CI.md).
struct ImportCommand: ImportOptions, Subcommand {
    static let name = "import"

    static let spec = CommandSpec(
        name: name,
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
                    Self.inputFormat.spec, Self.p12PassphraseFD.spec, Self.fromEnv.spec, Self.service.spec, Self.group.spec,
                    Self.label.spec, Self.accessible.spec,
                    Self.onConflict.spec, Self.dryRun.spec,
                ]
            ),
            GlobalOptions.section,
        ],
        operands: [("FILE", "The input (default '-', standard input).")],
        examples: [
            Example(
                "NPM_TOKEN=npm_example keychainctl import --from-env NPM_TOKEN -s ci",
                "Store a CI variable as the item service ci, account NPM_TOKEN."
            )
        ])

    static let inputFormat = Option.choice(
        "input-format", nil, "json|jsonl|dotenv|pkcs12", "The input's format (default: from the file name, else sniffed).",
        ImportFormat.init(rawValue:))
    static let p12PassphraseFD = Option.descriptor("p12-passphrase-fd", "pkcs12: read the file's passphrase from this file descriptor.")
    static let fromEnv = Option.text(
        "from-env", nil, "NAME,…", repeatable: true, "Import these variables of keychainctl's own environment.")
    static let service = Option.text("service", "s", "service", "dotenv and --from-env: the items' service (svce); required for them.")
    static let group = Option.text(
        "group", "g", "group", "The items' access group; for json and jsonl, of the items that name none (default: the profile's).")
    static let label = Option.text("label", "l", "label", "dotenv, pkcs12 and --from-env: the items' label (labl).")
    static let accessible = Option.text(
        "accessible", nil, "class", suggestions: .accessibilities, "dotenv, pkcs12 and --from-env: the items' accessibility (pdmn).")
    static let onConflict = Option.choice(
        "on-conflict", nil, "fail|skip|replace|update", "What to do with an item already stored (default fail).",
        Keychain.ImportPolicy.init(rawValue:))
    static let dryRun = Flag("dry-run", "Do everything and report it, then roll it back.")

    let context: CommandContext

    func validate() throws(UsageError) {
        if !fromEnv.isEmpty, file != nil { throw UsageError("import reads a FILE or --from-env, not both.") }
        if context[Self.p12PassphraseFD] != nil, !isPKCS12 {
            throw UsageError("--p12-passphrase-fd is for a PKCS#12 file (--input-format pkcs12).")
        }
        if isPKCS12, file == nil || file == "-" { throw UsageError("a PKCS#12 import reads a FILE, not standard input.") }
        if !fromEnv.isEmpty || inputFormat == .dotenv, context[Self.service] == nil {
            throw UsageError("dotenv and --from-env items need --service (their svce; each NAME becomes an account).")
        }
    }

    /// The file to read (`-` or none: standard input).
    var file: String? { context.arguments.operand }
    var inputFormat: ImportFormat? { context[Self.inputFormat] }
    /// The variables `--from-env` names.
    var fromEnv: [String] { context.all(Self.fromEnv).flatMap { $0.split(separator: ",").map(String.init) } }
    var service: String? { context[Self.service] }

    /// Whether the input is a PKCS#12 file: by --input-format, else by its name.
    var isPKCS12: Bool {
        inputFormat == .pkcs12 || (inputFormat == nil && [".p12", ".pfx"].contains { file?.lowercased().hasSuffix($0) == true })
    }

    func run() throws {
        if isPKCS12, let file { return try importPKCS12(file) }
        let caller = try context.caller()
        let source = try ImportSource(self)
        let keychain = try context.openKeychain()
        let progress = ProgressLine("importing")
        defer { progress.finish() }
        let report = try keychain.importItems(
            caller: caller, policy: context[Self.onConflict] ?? .fail, dryRun: context[Self.dryRun],
            keepingItems: context.resolvedFormat == .json
        ) {
            let item = try source.next()
            if item != nil { progress.advance() }
            return item
        }
        progress.finish()
        for warning in source.warnings { StandardStreams.warn(warning) }
        StandardStreams.out(ImportReportRenderer.render(report, format: context.resolvedFormat))
    }

    /// The request for a dotenv or environment variable `name`.
    func request(name: String) -> ItemRequest {
        ItemRequest(
            words: [(Schema.service, AttributeValue.literal(service ?? "")), (Schema.account, AttributeValue.literal(name))]
                + givenAttributes)
    }

    /// A json or jsonl `item` in --group when it names no group of its own.
    func inDefaultGroup(_ item: Keychain.ImportItem) -> Keychain.ImportItem {
        guard let group = context[Self.group], item.request.explicitGroup == nil else { return item }
        var grouped = item
        grouped.request.attributes.append((Schema.accessGroup, .word(group)))
        return grouped
    }

    /// The attributes --group, --label and --accessible give every item of a dotenv, environment
    /// or PKCS#12 import.
    private var givenAttributes: [(code: String, value: String)] {
        [(Schema.accessGroup, context[Self.group]), (Schema.label, context[Self.label]), (Schema.protection, context[Self.accessible])]
            .compactMap { code, value in
                value.map { (code, $0) }
            }
    }

    /// A PKCS#12 file's identities and certificates (`SecPKCS12Import`).
    private func importPKCS12(_ path: String) throws {
        let passphrase =
            try context[Self.p12PassphraseFD].map { try CommandContext.passphrase(fromFD: $0, what: "the PKCS#12 passphrase") }
            ?? SecretBytes(count: 0)
        let contents = try SecretFiles.readFile(path, limit: InputLimits.objectFileBytes)
        let archive: PKCS12Archive
        do {
            archive = try PKCS12Archive(der: contents, passphrase: passphrase)
        } catch {
            throw KeychainError(error.status, hint: "\(path.terminalSafe): \(error.hint)")
        }
        let caller = try context.caller()
        let report = try context.openKeychain().importPKCS12(
            archive, request: ItemRequest(words: givenAttributes), caller: caller, dryRun: context[Self.dryRun])
        StandardStreams.out(PKCS12ReportRenderer.render(report, format: context.resolvedFormat))
    }
}
