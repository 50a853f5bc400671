import ArgumentParser
import KeychainCore

/// `keychainctl update`: SecItemUpdate.
struct UpdateCommand: KeychainSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Update every matching item (SecItemUpdate), all or nothing.",
        discussion: "A change that makes two items collide changes nothing (exit 45). --dry-run checks everything and lists the matches.")

    @OptionGroup var globals: GlobalOptions
    @OptionGroup var item: ItemOptions

    @Option(name: .customLong("set-account")) var setAccount: String?
    @Option(name: .customLong("set-service")) var setService: String?
    @Option(name: .customLong("set-group"), help: "Move to this access group (must be writable).") var setGroup: String?
    @Option(name: .customLong("set-label")) var setLabel: String?
    @Option(name: .customLong("set-accessible")) var setAccessible: String?
    @Option(name: .customLong("set-sync"), help: "yes or no.") var setSync: String?
    @Option(name: .customLong("set-attr"), help: ArgumentHelp("Set any attribute; repeatable.", valueName: "CODE=VALUE"))
    var setAttrs: [String] = []

    @Option(name: .customLong("set-data-file"), help: "New secret from this file.") var setDataFile: String?
    @Flag(name: .customLong("set-data-stdin"), help: "New secret from standard input.") var setDataStdin = false
    @Option(name: .customLong("set-password"), help: "New secret itself (visible in the process list).") var setPassword: String?
    @Flag(name: .customLong("strip-newline"), help: "Drop one trailing newline from the new secret.") var stripNewline = false

    @Option(help: "How many to update: all (default), one, or a number.") var limit: String?
    @Flag(name: .customLong("dry-run"), help: "Check everything, list the matches, change nothing.") var dryRun = false

    mutating func execute() throws {
        let caller = try globals.caller()
        let keychain = try globals.openKeychain()
        let named: [(String, String?)] = [
            ("acct", setAccount), ("svce", setService), ("agrp", setGroup), ("labl", setLabel),
            ("pdmn", setAccessible), ("sync", setSync),
        ]
        let changes =
            named.compactMap { code, value in value.map { (code, $0) } }
            + (try ItemOptions.parseAssignments(setAttrs, option: "--set-attr"))
        var secret: SecretBytes?
        if setDataFile != nil || setDataStdin || setPassword != nil {
            if setDataStdin, setDataFile != nil || setPassword != nil {
                throw ValidationError("give the new secret once: --set-data-file, --set-data-stdin or --set-password.")
            }
            secret = try SecretInput(
                file: setDataFile, argument: setPassword, stripNewline: stripNewline, passphraseFD: globals.passphraseFD
            ).read(prompt: "New secret: ")
        }
        let matched = try keychain.update(
            try item.request(limit: limit), changes: changes, secret: secret, caller: caller, dryRun: dryRun)
        if dryRun {
            StandardStreams.out(
                ItemRenderer.render(
                    matched.map { .init(item: $0, secret: nil) }, returns: [.attributes, .persistentRef], single: false,
                    format: globals.resolvedFormat))
        }
    }
}
