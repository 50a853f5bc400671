import CommandLineKit
import Glibc
import KeychainCore

/// `keychainctl export`: the items the profile can read, attributes only unless --with-secrets, in
/// the formats `import`, dotenv loaders, shells and GitHub Actions read (docs/CI.md).
struct ExportCommand: Subcommand {
    static let name = "export"

    static let spec = CommandSpec(
        name: name,
        abstract: "Write items out: attributes only, or with their secrets for import, dotenv, a shell or $GITHUB_ENV.",
        discussion: """
            Selects with the attribute options (default: every item of every class the profile can read; \
            --class all). Without --with-secrets nothing secret is written. With it, stdout may not be a \
            terminal (use --output); --output creates the file 0600 and refuses an existing one unless \
            --force (which replaces it whole). json and jsonl are what import reads: export --with-secrets \
            | import --on-conflict update changes nothing.
            """,
        sections: [
            (
                "options",
                [
                    Self.format.spec, Self.withSecrets.spec, Self.allowPrivateKeyExport.spec, Self.output.spec, Self.force.spec,
                    Self.appendTo.spec,
                ] + Self.naming.specs + [Self.skipBinary.spec, Self.strict.spec]
            ),
            ItemOptions.section,
            (ProgramSpec.globalSectionTitle, GlobalOptions.specsWithoutFormat),
        ],
        examples: [
            Example(
                "keychainctl export -s ci --with-secrets --format dotenv --allow-names 'NPM_*,DEPLOY_*' --output ci.env",
                "Write the service's secrets as a dotenv file (mode 0600)."
            )
        ])

    static let format = Option.choice(
        "format", nil, "json|jsonl|dotenv|shell|github-env", "What to write (default json).", ExportFormat.init(rawValue:))
    static let withSecrets = Flag("with-secrets", "Include each item's secret (v_Data in json and jsonl; the value in the others).")
    static let allowPrivateKeyExport = Flag(
        "allow-private-key-export",
        "With --with-secrets: let private keys' bytes out too (only extractable ones); without it a private key refuses the export.")
    static let output = Option.path("output", short: "o", "Write to this new file (mode 0600) instead of stdout.")
    static let force = Flag("force", "With --output: replace an existing file (atomically).")
    static let appendTo = Option.path("append-to", "Append to this file (such as $GITHUB_ENV).")
    static let naming = VariableNaming.Options(scope: "dotenv, shell, github-env")
    static let skipBinary = Flag("skip-binary", "dotenv, shell, github-env: leave out (with a warning) secrets that are not text.")
    static let strict = Flag(
        "strict",
        "dotenv, shell, github-env: refuse an item whose name would set a reserved variable (PATH, LD_*, BASH_ENV, …) instead of leaving it out."
    )

    static let ownsFormat = true

    let context: CommandContext

    func validate() throws(UsageError) {
        let naming = try VariableNaming(context.arguments, Self.naming)
        if context[Self.output] != nil, context[Self.appendTo] != nil { throw UsageError("give --output or --append-to, not both.") }
        if context[Self.force], context[Self.output] == nil { throw UsageError("--force replaces the --output file; give --output.") }
        if [.dotenv, .shell, .githubEnv].contains(format) {
            guard context[Self.withSecrets] else {
                throw UsageError("--format \(format.rawValue) writes values: add --with-secrets (or use json for attributes).")
            }
            try naming.requireBound(for: "--format \(format.rawValue)")
        }
    }

    var format: ExportFormat { context[Self.format] ?? .json }

    func run() throws {
        let (item, naming) = (ItemOptions(context.arguments), try VariableNaming(context.arguments, Self.naming))
        let (withSecrets, output, appendTo) = (context[Self.withSecrets], context[Self.output], context[Self.appendTo])
        if withSecrets, output == nil, appendTo == nil, StandardStreams.isTerminal(1) {
            throw UsageError("refusing to print secrets to a terminal; use --output FILE, or pipe the output.")
        }
        let caller = try context.caller()
        let keychain = try context.openKeychain()
        // Every class, or those whose schema has every attribute given (-s selects generic passwords).
        let classes: [String?] =
            item.itemClass == "all" || item.itemClass == nil
            ? ItemClass.stored.filter { itemClass in
                item.attributes.allSatisfy {
                    [Schema.accessGroup, Schema.synchronizable, Schema.protection].contains($0.code)
                        || Schema.of(itemClass)?.attribute($0.code) != nil
                }
            }.map(\.rawValue) : [item.itemClass]
        let writer = ExportWriter(
            format: format, withSecrets: withSecrets, naming: naming, skipBinary: context[Self.skipBinary],
            strict: context[Self.strict])
        var found = 0
        var lastMiss: Error?
        for itemClass in classes {
            var request = ItemRequest(itemClass: itemClass, words: item.attributes)
            request.limit = .value(.all)
            request.returns = .value(withSecrets ? [.attributes, .persistentRef, .data] : [.attributes, .persistentRef])
            request.allowPrivateKeyExport = context[Self.allowPrivateKeyExport]
            do {
                _ = try keychain.find(request, caller: caller) { _, entry in
                    found += 1
                    try writer.add(entry)
                }
            } catch let error as KeychainError where error.status == .itemNotFound && classes.count > 1 {
                lastMiss = error
            }
        }
        if found == 0, let lastMiss { throw lastMiss }
        for warning in writer.warnings { StandardStreams.warn(warning) }
        let text = writer.finish()
        if format == .githubEnv {
            ExecReport.addMaskLines(writer.values, dataStream: output == nil && appendTo == nil ? 1 : nil)
        }
        try ExportDestination.write(text, output: output, force: context[Self.force], appendTo: appendTo)
    }
}
