import ArgumentParser
import KeychainCore

/// The item attribute options shared by add, find, update, delete and migrate-group (CLI.md).
struct ItemOptions: ParsableArguments {
    @Option(name: .customLong("class"), help: "genp (default), inet, cert, keys, idnt, or their long names.")
    var itemClass: String?

    @Option(name: .shortAndLong, help: "Service (svce).")
    var service: String?

    @Option(name: .shortAndLong, help: "Account (acct).")
    var account: String?

    @Option(name: [.customShort("g"), .customLong("group")], help: "Access group (agrp), Team ID prefix included.")
    var group: String?

    @Option(name: .shortAndLong, help: "Label (labl).")
    var label: String?

    @Option(name: [.customShort("D"), .customLong("description")], help: "Description, 'kind' in security (desc).")
    var itemDescription: String?

    @Option(name: [.customShort("j"), .customLong("comment")], help: "Comment (icmt).")
    var comment: String?

    @Option(name: [.customShort("G"), .customLong("generic")], help: "Generic attribute (gena).")
    var generic: String?

    @Option(name: [.customShort("c"), .customLong("creator")], help: "Creator, a four-character code (crtr).")
    var creator: String?

    @Option(name: [.customShort("C"), .customLong("type")], help: "Type, a four-character code (type).")
    var type: String?

    @Option(help: "Server (srvr), inet.")
    var server: String?

    @Option(name: .customLong("security-domain"), help: "Security domain (sdmn), inet.")
    var securityDomain: String?

    @Option(name: .customLong("protocol"), help: "Protocol (ptcl), inet: https or a code such as htps.")
    var networkProtocol: String?

    @Option(name: .customLong("auth-type"), help: "Authentication type (atyp), inet: default, html-form, … or a code.")
    var authType: String?

    @Option(help: "Port (port), inet.")
    var port: String?

    @Option(help: "Path (path), inet.")
    var path: String?

    @Option(help: "Accessibility (pdmn): when-unlocked, after-first-unlock, always, … or ak, ck, dk, akpu, aku, cku, dku.")
    var accessible: String?

    @Option(help: "Synchronizable (sync): yes, no or any; queries default to no.")
    var sync: String?

    @Option(name: .customLong("attr"), help: ArgumentHelp("Any attribute by its code; repeatable. Data values may be given as base64:….", valueName: "CODE=VALUE"))
    var attrs: [String] = []

    /// The attributes as (code, text) pairs in a fixed order; `--attr` ones last.
    func attributePairs() throws -> [(code: String, value: String)] {
        let named: [(String, String?)] = [
            ("svce", service), ("acct", account), ("agrp", group), ("labl", label), ("desc", itemDescription),
            ("icmt", comment), ("gena", generic), ("crtr", creator), ("type", type), ("srvr", server),
            ("sdmn", securityDomain), ("ptcl", networkProtocol), ("atyp", authType), ("port", port),
            ("path", path), ("pdmn", accessible), ("sync", sync),
        ]
        return named.compactMap { code, value in value.map { (code, $0) } } + (try Self.parseAssignments(attrs, option: "--attr"))
    }

    /// `CODE=VALUE` words split at the first `=`; anything else is a usage error (exit 64).
    static func parseAssignments(_ words: [String], option: String) throws -> [(code: String, value: String)] {
        try words.map { word in
            guard let equals = word.firstIndex(of: "="), equals != word.startIndex else {
                throw ValidationError("\(option) takes CODE=VALUE, not '\(word)'.")
            }
            return (String(word[..<equals]), String(word[word.index(after: equals)...]))
        }
    }

    /// A request from these options.
    func request(limit: String? = nil, returns: [String] = [], persistentRef: String? = nil) throws -> ItemRequest {
        ItemRequest(
            itemClass: itemClass, attributes: try attributePairs(), limit: limit, returns: returns,
            persistentRef: persistentRef)
    }
}
