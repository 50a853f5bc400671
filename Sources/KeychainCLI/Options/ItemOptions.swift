import KeychainCore

/// The item attribute options shared by add, find, update, delete, migrate-group and export,
/// declared once as a table of option → attribute code.
struct ItemOptions {
    /// Each attribute option and the code it sets; `--class` and `--attr` are handled apart. A
    /// value is checked by the keychain (errSecParam), as SecItem checks its dictionary, so even
    /// `--sync`, completed from its choices, takes any text here.
    /// The codes are literal so the table reads as the option reference it is.
    static let attributeOptions: [(spec: OptionSpec, code: String)] = [
        (.plain("service", "s", "service", "Service (svce)."), "svce"),
        (.plain("account", "a", "account", "Account (acct)."), "acct"),
        (.plain("group", "g", "group", "Access group (agrp), Team ID prefix included."), "agrp"),
        (.plain("label", "l", "label", "Label (labl)."), "labl"),
        (.plain("description", "D", "text", "Description, 'kind' in security (desc)."), "desc"),
        (.plain("comment", "j", "text", "Comment (icmt)."), "icmt"),
        (.plain("generic", "G", "text", "Generic attribute (gena)."), "gena"),
        (.plain("creator", "c", "code", "Creator, a four-character code (crtr)."), "crtr"),
        (.plain("type", "C", "code", "Type, a four-character code (type)."), "type"),
        (.plain("server", nil, "host", "Server (srvr), inet."), "srvr"),
        (.plain("security-domain", nil, "domain", "Security domain (sdmn), inet."), "sdmn"),
        (
            .plain(
                "protocol", nil, "protocol", suggestions: .protocols, "Protocol (ptcl), inet: https, ftp, … or a code such as htps."),
            "ptcl"
        ),
        (
            .plain(
                "auth-type", nil, "type", suggestions: .authTypes, "Authentication type (atyp), inet: default, html-form, … or a code."),
            "atyp"
        ),
        (.plain("port", nil, "port", "Port (port), inet."), "port"),
        (.plain("path", nil, "path", "Path (path), inet."), "path"),
        (
            .plain(
                "accessible", nil, "class", suggestions: .accessibilities,
                "Accessibility (pdmn): when-unlocked, after-first-unlock, always, … or ak ck dk akpu aku cku dku."), "pdmn"
        ),
        (.plain("sync", nil, "yes|no|any", kind: .choices, "Synchronizable (sync); queries default to no."), "sync"),
    ]
    static let itemClass = Option.text(
        "class", nil, "class", suggestions: .itemClasses, "genp (default), inet, cert, keys, idnt, or their long names.")
    static let attr = Option.text(
        "attr", nil, "code=value", repeatable: true, "Any attribute by its four-character code; data may be given as base64:….")

    /// The options, for command specs.
    static let specs: [OptionSpec] = [Self.itemClass.spec] + attributeOptions.map(\.spec) + [Self.attr.spec]

    let itemClass: String?
    let attributes: [(code: String, value: String)]
    /// `--access-control` (add only): with it, `--accessible` is the access control's protection
    /// rather than an attribute, and `--attr pdmn` beside it is refused (errSecParam).
    let accessControl: AccessControlRequest?

    /// The item `arguments` describes; `accessControl` is add's `--access-control`, when given.
    init(_ arguments: ParsedArguments, accessControl flags: String? = nil) throws(UsageError) {
        itemClass = try arguments.value(Self.itemClass)
        let given = arguments.attributes(from: Self.attributeOptions)
        let accessControl = flags.map { flags in
            AccessControlRequest(flags: flags, protection: given.last { $0.code == Schema.protection }?.value)
        }
        self.accessControl = accessControl
        attributes =
            given.filter { accessControl == nil || $0.code != Schema.protection }
            + (try Self.parseAssignments(try arguments.values(Self.attr), option: "--attr"))
    }

    /// `CODE=VALUE` words split at the first `=`; anything else is a usage error (exit 64).
    static func parseAssignments(_ words: [String], option: String) throws(UsageError) -> [(code: String, value: String)] {
        var pairs: [(code: String, value: String)] = []
        for word in words {
            guard let equals = word.firstIndex(of: "="), equals != word.startIndex else {
                throw UsageError("\(option) takes CODE=VALUE, not '\(word)'.")
            }
            pairs.append((String(word[..<equals]), String(word[word.index(after: equals)...])))
        }
        return pairs
    }

    /// A request from these options.
    func request(limit: String? = nil, returns: [String] = [], persistentRef: String? = nil) -> ItemRequest {
        var request = ItemRequest(
            itemClass: itemClass, attributes: attributes, limit: limit, returns: returns, persistentRef: persistentRef)
        request.accessControl = accessControl
        return request
    }
}
