import KeychainCore

/// The item attribute options shared by add, find, update, delete and migrate-group (CLI.md),
/// declared once as a table of option → attribute code.
struct ItemOptions {
    /// Each attribute option and the code it sets; `--class` and `--attr` are handled apart.
    static let attributeOptions: [(spec: OptionSpec, code: String)] = [
        (.value("service", "s", "service", "Service (svce)."), "svce"),
        (.value("account", "a", "account", "Account (acct)."), "acct"),
        (.value("group", "g", "group", "Access group (agrp), Team ID prefix included."), "agrp"),
        (.value("label", "l", "label", "Label (labl)."), "labl"),
        (.value("description", "D", "text", "Description, 'kind' in security (desc)."), "desc"),
        (.value("comment", "j", "text", "Comment (icmt)."), "icmt"),
        (.value("generic", "G", "text", "Generic attribute (gena)."), "gena"),
        (.value("creator", "c", "code", "Creator, a four-character code (crtr)."), "crtr"),
        (.value("type", "C", "code", "Type, a four-character code (type)."), "type"),
        (.value("server", nil, "host", "Server (srvr), inet."), "srvr"),
        (.value("security-domain", nil, "domain", "Security domain (sdmn), inet."), "sdmn"),
        (.value("protocol", nil, "protocol", "Protocol (ptcl), inet: https, ftp, … or a code such as htps."), "ptcl"),
        (.value("auth-type", nil, "type", "Authentication type (atyp), inet: default, html-form, … or a code."), "atyp"),
        (.value("port", nil, "port", "Port (port), inet."), "port"),
        (.value("path", nil, "path", "Path (path), inet."), "path"),
        (
            .value(
                "accessible", nil, "class",
                "Accessibility (pdmn): when-unlocked, after-first-unlock, always, … or ak ck dk akpu aku cku dku."), "pdmn"
        ),
        (.value("sync", nil, "yes|no|any", "Synchronizable (sync); queries default to no."), "sync"),
    ]

    /// The options, for command specs.
    static let specs: [OptionSpec] =
        [.value("class", nil, "class", "genp (default), inet, cert, keys, idnt, or their long names.")]
        + attributeOptions.map(\.spec)
        + [.value("attr", nil, "code=value", repeatable: true, "Any attribute by its four-character code; data may be given as base64:….")]

    let itemClass: String?
    let attributes: [(code: String, value: String)]
    /// `--access-control` (add only): with it, `--accessible` is the access control's protection
    /// rather than an attribute, and `--attr pdmn` beside it is refused (errSecParam).
    let accessControl: AccessControlRequest?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        itemClass = arguments.value("class")
        accessControl = arguments.value("access-control").map { AccessControlRequest(flags: $0, protection: arguments.value("accessible")) }
        let options = accessControl == nil ? Self.attributeOptions : Self.attributeOptions.filter { $0.code != Schema.protection }
        attributes =
            arguments.attributes(from: options)
            + (try Self.parseAssignments(arguments.all("attr"), option: "--attr"))
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
