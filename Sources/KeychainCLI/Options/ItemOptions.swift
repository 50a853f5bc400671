import CommandLineKit
import KeychainCore

/// The item attribute options shared by add, find, update, delete, migrate-group and export,
/// declared once as a table of option → attribute code.
struct ItemOptions {
    /// Each attribute option and the code it sets; `--class` and `--attr` are handled apart. A
    /// value is checked by the keychain (errSecParam), as SecItem checks its dictionary, so even
    /// `--sync`, completed from its choices, takes any text here.
    /// Each help text names its code, so the table still reads as the option reference it is.
    static let attributeOptions: [(spec: OptionSpec, code: String)] = [
        (.plain("service", "s", "service", "Service (svce)."), Schema.service),
        (.plain("account", "a", "account", "Account (acct)."), Schema.account),
        (.plain("group", "g", "group", "Access group (agrp), Team ID prefix included."), Schema.accessGroup),
        (.plain("label", "l", "label", "Label (labl)."), Schema.label),
        (.plain("description", "D", "text", "Description, 'kind' in security (desc)."), Schema.description),
        (.plain("comment", "j", "text", "Comment (icmt)."), Schema.comment),
        (.plain("generic", "G", "text", "Generic attribute (gena)."), Schema.generic),
        (.plain("creator", "c", "code", "Creator, a four-character code (crtr)."), Schema.creator),
        (.plain("type", "C", "code", "Type, a four-character code (type)."), Schema.type),
        (.plain("server", nil, "host", "Server (srvr), inet."), Schema.server),
        (.plain("security-domain", nil, "domain", "Security domain (sdmn), inet."), Schema.securityDomain),
        (
            .plain(
                "protocol", nil, "protocol", suggestions: .protocols, "Protocol (ptcl), inet: https, ftp, … or a code such as htps."),
            Schema.networkProtocol
        ),
        (
            .plain(
                "auth-type", nil, "type", suggestions: .authTypes, "Authentication type (atyp), inet: default, html-form, … or a code."),
            Schema.authenticationType
        ),
        (.plain("port", nil, "port", "Port (port), inet."), Schema.port),
        (.plain("path", nil, "path", "Path (path), inet."), Schema.path),
        (
            .plain(
                "accessible", nil, "class", suggestions: .accessibilities,
                "Accessibility (pdmn): when-unlocked, after-first-unlock, always, … or ak ck dk akpu aku cku dku."), Schema.protection
        ),
        (.plain("sync", nil, "yes|no|any", kind: .choices, "Synchronizable (sync); queries default to no."), Schema.synchronizable),
    ]
    static let itemClass = Option.text(
        "class", nil, "class", suggestions: .itemClasses, "genp (default), inet, cert, keys, idnt, or their long names.")
    static let attr = Option.assignment(
        "attr", "code=value",
        "Any attribute by its four-character code; base64:… gives data (for acct, svce and every other attribute), text:… literal text.")

    /// The options, for command specs.
    static let specs: [OptionSpec] = [Self.itemClass.spec] + attributeOptions.map(\.spec) + [Self.attr.spec]
    /// Their section in the spec of a command that takes an item's attributes.
    static var section: (title: String, options: [OptionSpec]) { ("item attributes", specs) }

    let itemClass: String?
    let attributes: [(code: String, value: String)]
    /// `--access-control` (add only): with it, `--accessible` is the access control's protection
    /// rather than an attribute, and `--attr pdmn` beside it is refused (errSecParam).
    let accessControl: AccessControlRequest?

    /// The item `arguments` describes; `accessControl` is add's `--access-control`, when given.
    init(_ arguments: ParsedArguments, accessControl flags: String? = nil) {
        itemClass = arguments[Self.itemClass]
        let given = arguments.attributes(from: Self.attributeOptions)
        let accessControl = flags.map { flags in
            AccessControlRequest(flags: flags, protection: given.last { $0.code == Schema.protection }?.value)
        }
        self.accessControl = accessControl
        attributes =
            given.filter { accessControl == nil || $0.code != Schema.protection }
            + arguments.all(Self.attr).map { ($0.code, $0.value) }
    }

    /// A request from these options.
    func request(limit: String? = nil, returns: [String] = [], persistentRef: String? = nil) -> ItemRequest {
        var request = ItemRequest(
            itemClass: itemClass, words: attributes, limit: limit.map { Given(parsing: $0) },
            returns: returns.isEmpty ? nil : Given(parsing: returns), persistentRef: persistentRef)
        request.accessControl = accessControl
        return request
    }
}

/// A `CODE=VALUE` word (`--attr`, `--set-attr`, `--data-field`): split at the first `=`, the code
/// not empty. A word that is none is refused as the command line is parsed.
struct Assignment: Sendable {
    let code: String
    let value: String

    init?(_ word: String) {
        guard let equals = word.firstIndex(of: "="), equals != word.startIndex else { return nil }
        code = String(word[..<equals])
        value = String(word[word.index(after: equals)...])
    }
}

extension Option where Value == Assignment {
    /// A repeatable `CODE=VALUE` option (`valueName` says what VALUE is: `code=value`, `code=path`).
    static func assignment(_ long: String, _ valueName: String, _ help: String) -> Option {
        Option(long, nil, valueName, repeatable: true, expected: "CODE=VALUE", help, parse: Assignment.init)
    }
}
