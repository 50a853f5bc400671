/// The one declarative schema: every attribute of every class, declared once.
///
/// SQL tables, the UNIQUE constraints, the sealed metadata, the authenticated data and the JSON
/// rendering are all derived from this table. Attribute lists follow Apple's
/// `keychain/securityd/SecItemSchema.c` (Security-61901).
package enum Schema {
    // The attributes every layer asks about, each code spelled once. Codes stay Strings: a new
    // type's conformance records would cost every process a scan at start-up.
    package static let accessGroup = "agrp"
    package static let protection = "pdmn"
    package static let synchronizable = "sync"
    package static let tombstone = "tomb"
    package static let accessControl = "accc"
    /// kSecAttrAppClipItem: set by the keychain on what an App Clip adds, never by a caller.
    package static let appClipItem = "clip"
    package static let creationDate = "cdat"
    package static let modificationDate = "mdat"
    package static let label = "labl"
    package static let account = "acct"
    package static let service = "svce"
    package static let server = "srvr"
    package static let port = "port"
    package static let description = "desc"
    package static let comment = "icmt"
    package static let generic = "gena"
    package static let creator = "crtr"
    package static let type = "type"
    package static let securityDomain = "sdmn"
    package static let networkProtocol = "ptcl"
    package static let authenticationType = "atyp"
    package static let path = "path"
    // What the identity join and key export read.
    package static let issuer = "issr"
    package static let serialNumber = "slnr"
    package static let subjectKeyID = "skid"
    package static let publicKeyHash = "pkhh"
    package static let keyClass = "kcls"
    package static let isPrivate = "priv"
    package static let applicationLabel = "klbl"
    package static let isExtractable = "extr"
    package static let keyType = type
    package static let keySizeInBits = "bsiz"
    package static let isPermanent = "perm"

    /// The attributes a person names an item by, in the order every report and hint shows them;
    /// reports that say more append the label, the group or the protection after these.
    package static let naming = [account, service, server]
    /// The attributes the keychain sets itself on every write: a caller's value is ignored.
    package static let setByKeychain = [creationDate, modificationDate]

    /// Every attribute, in one list: a class's declaration picks its own from it by code, and only
    /// a lookup of any code (`attribute(_:)`) builds the dictionary (`byCode`), which a find or an
    /// add does not need (hashing every code was 70,000 of a find's instructions).
    private static let everyAttribute: [AttributeDescriptor] = [
        // Common to every class.
        AttributeDescriptor(creationDate, "creation date", .date),
        AttributeDescriptor(modificationDate, "modification date", .date),
        AttributeDescriptor(label, "label", .string),
        AttributeDescriptor(accessGroup, "access group", .string, plaintext: true),
        AttributeDescriptor(protection, "accessible", .string, plaintext: true),
        AttributeDescriptor(synchronizable, "synchronizable", .bool, plaintext: true),
        AttributeDescriptor(tombstone, "tombstone", .bool, plaintext: true),
        // Kept by the keychain from --access-control (or the protection alone); bound into the
        // authenticated data whenever it says more than `pdmn`.
        AttributeDescriptor(accessControl, "access control", .string, plaintext: true),
        // Marks what an App Clip added, so that its items go with it (`SecItemDb.c`,
        // `SecServerDeleteForAppClipApplicationIdentifier`); Apple never returns it.
        AttributeDescriptor(appClipItem, "App Clip item", .bool, storage: .keychainMark),
        // Passwords.
        AttributeDescriptor(description, "description", .string),
        AttributeDescriptor(comment, "comment", .string),
        AttributeDescriptor(creator, "creator", .fourCharCode),
        AttributeDescriptor(type, "type", .fourCharCode),
        AttributeDescriptor("scrp", "script code", .number),
        AttributeDescriptor("alis", "alias", .data),
        AttributeDescriptor("invi", "invisible", .bool),
        AttributeDescriptor("nega", "negative", .bool),
        AttributeDescriptor("cusi", "custom icon", .bool),
        AttributeDescriptor("prot", "protected", .data),
        AttributeDescriptor(account, "account", .string),
        AttributeDescriptor(service, "service", .string),
        AttributeDescriptor(generic, "generic", .data),
        AttributeDescriptor(securityDomain, "security domain", .string),
        AttributeDescriptor(server, "server", .string),
        AttributeDescriptor(networkProtocol, "protocol", .fourCharCode),
        AttributeDescriptor(authenticationType, "authentication type", .fourCharCode),
        AttributeDescriptor(port, "port", .number),
        AttributeDescriptor(path, "path", .string),
        // Internet passwords' data fields (kSecDataInetExtra…): sealed with the data.
        AttributeDescriptor("binn", "notes", .data, storage: .withData),
        AttributeDescriptor("bini", "history", .data, storage: .withData),
        AttributeDescriptor("bin0", "client data 0", .data, storage: .withData),
        AttributeDescriptor("bin1", "client data 1", .data, storage: .withData),
        AttributeDescriptor("bin2", "client data 2", .data, storage: .withData),
        AttributeDescriptor("bin3", "client data 3", .data, storage: .withData),
        // Certificates.
        AttributeDescriptor("ctyp", "certificate type", .number),
        AttributeDescriptor("cenc", "certificate encoding", .number),
        AttributeDescriptor("subj", "subject", .data),
        AttributeDescriptor(issuer, "issuer", .data),
        AttributeDescriptor(serialNumber, "serial number", .data),
        AttributeDescriptor(subjectKeyID, "subject key ID", .data),
        AttributeDescriptor(publicKeyHash, "public key hash", .data),
        // Keys.
        AttributeDescriptor(keyClass, "key class", .number),
        AttributeDescriptor(isPermanent, "permanent", .bool),
        AttributeDescriptor(isPrivate, "private", .bool),
        AttributeDescriptor("modi", "modifiable", .bool),
        AttributeDescriptor(applicationLabel, "application label", .data),
        AttributeDescriptor("atag", "application tag", .data),
        AttributeDescriptor("bsiz", "key size in bits", .number),
        AttributeDescriptor("esiz", "effective key size", .number),
        AttributeDescriptor("sdat", "start date", .date),
        AttributeDescriptor("edat", "end date", .date),
        AttributeDescriptor("sens", "sensitive", .bool),
        AttributeDescriptor("asen", "always sensitive", .bool),
        AttributeDescriptor(isExtractable, "extractable", .bool),
        AttributeDescriptor("next", "never extractable", .bool),
        AttributeDescriptor("encr", "can encrypt", .bool),
        AttributeDescriptor("decr", "can decrypt", .bool),
        AttributeDescriptor("drve", "can derive", .bool),
        AttributeDescriptor("sign", "can sign", .bool),
        AttributeDescriptor("vrfy", "can verify", .bool),
        AttributeDescriptor("snrc", "can sign recover", .bool),
        AttributeDescriptor("vyrc", "can verify recover", .bool),
        AttributeDescriptor("wrap", "can wrap", .bool),
        AttributeDescriptor("unwp", "can unwrap", .bool),
    ]

    private static let byCode = Dictionary(uniqueKeysWithValues: everyAttribute.map { ($0.code, $0) })

    /// A key's usage flags, the attributes named "can …" (kSecAttrCanEncrypt …
    /// kSecAttrCanVerifyRecover): a query naming a key by reference leaves them out, with
    /// kSecAttrIsPermanent, as their values vary between Apple's releases (`SecItem.m`,
    /// `AttributeCreateFilteredOutSecAttrs`).
    package static let keyUsage = Set(everyAttribute.filter { $0.name.hasPrefix("can ") }.map(\.code))

    private static let common = [
        creationDate, modificationDate, label, accessGroup, protection, synchronizable, tombstone, accessControl, appClipItem,
    ]
    private static let passwordCommon = [
        "desc", "icmt", "crtr", "type", "scrp", "alis", "invi", "nega", "cusi", "prot", "acct",
    ]

    private static func declare(
        _ itemClass: ItemClass, _ codes: [String], key: [String], indexed: [String],
        overriding overrides: [AttributeDescriptor] = []
    ) -> ClassSchema {
        let replaced = Dictionary(uniqueKeysWithValues: overrides.map { ($0.code, $0) })
        return ClassSchema(
            itemClass, attributes: (common + codes).map { code in replaced[code] ?? everyAttribute.first { $0.code == code }! },
            primaryKey: key,
            indexed: indexed)
    }

    // Each class is declared on first use: a find touches one class, and declaring all four
    // cost a tenth of its instructions.

    private static let genericPassword = declare(
        .genericPassword, passwordCommon + ["svce", "gena"],
        key: ["acct", "svce", "agrp", "sync"], indexed: ["svce", "labl"])

    private static let internetPassword = declare(
        .internetPassword,
        passwordCommon + ["sdmn", "srvr", "ptcl", "atyp", "port", "path", "binn", "bini", "bin0", "bin1", "bin2", "bin3"],
        key: ["acct", "sdmn", "srvr", "ptcl", "atyp", "port", "path", "agrp", "sync"],
        indexed: ["srvr", "labl"])

    private static let certificate = declare(
        .certificate, ["ctyp", "cenc", "alis", "subj", "issr", "slnr", "skid", "pkhh"],
        key: ["ctyp", "issr", "slnr", "agrp", "sync"], indexed: ["pkhh", "labl"])

    /// A key's `type` is kSecAttrKeyType (a string such as "73"), not a four-character code as for
    /// passwords, so the key class declares its own.
    private static let key = declare(
        .key,
        [
            "kcls", "alis", "perm", "priv", "modi", "klbl", "atag", "crtr", "type", "bsiz", "esiz",
            "sdat", "edat", "sens", "asen", "extr", "next", "encr", "decr", "drve", "sign", "vrfy",
            "snrc", "vyrc", "wrap", "unwp",
        ],
        key: ["kcls", "klbl", "atag", "crtr", "type", "bsiz", "esiz", "sdat", "edat", "agrp", "sync"],
        indexed: ["klbl", "labl"], overriding: [AttributeDescriptor("type", "key type", .string)])

    /// The schema of a class that has a table. An identity has none: its queries are routed to
    /// certificates and keys before anything asks, so reaching here with one is a bug.
    package static func of(stored itemClass: ItemClass) -> ClassSchema {
        guard let schema = of(itemClass) else { preconditionFailure("an identity has no table; route it to its two halves first") }
        return schema
    }

    /// The schema of a stored class (identity has none of its own).
    package static func of(_ itemClass: ItemClass) -> ClassSchema? {
        switch itemClass {
        case .genericPassword: genericPassword
        case .internetPassword: internetPassword
        case .certificate: certificate
        case .key: key
        case .identity: nil
        }
    }

    /// The attributes an item of the class shows, in order: an identity shows its key's and then
    /// the certificate's own (the join overlays the certificate's on the key's).
    package static func shown(_ itemClass: ItemClass) -> [AttributeDescriptor] {
        guard itemClass == .identity else { return of(itemClass)?.attributes ?? [] }
        let keyAttributes = key.attributes
        let keyCodes = Set(keyAttributes.map(\.code))
        return keyAttributes + certificate.attributes.filter { !keyCodes.contains($0.code) }
    }

    /// Every stored class (declaring them all).
    package static var classes: [ItemClass: ClassSchema] {
        Dictionary(uniqueKeysWithValues: ItemClass.stored.map { ($0, of($0)!) })
    }

    /// Any attribute by code, whatever its class.
    package static func attribute(_ code: String) -> AttributeDescriptor? { byCode[code] }
}
