/// A request as the caller made it, before any validation: the limit and returns typed where they
/// were given, or the word that is not one (`Given`); the sync typed where the library or the
/// engine gives it; the attributes in one list of inputs (`AttributeInput`): the command line's
/// words, which only the class (known later) can parse, or values the library binds from Apple's
/// types.
///
/// Validation happens inside each operation, at the point Apple's `SecItemServer.c` checks it, so
/// that the status precedence (docs/FIDELITY.md) comes out right.
package struct ItemRequest: Sendable {
    /// `--class`, or `nil` for the default (`genp`).
    package var itemClass: String?
    /// Attributes by code, in the order given (`-s api` is `("svce", .word("api"))`).
    package var attributes: AttributeInputs = []
    /// `--limit` or kSecMatchLimit; `nil`: the operation's default.
    package var limit: Given<MatchLimit>?
    /// `--return` or the kSecReturn keys; `nil`: the operation's default.
    package var returns: Given<ReturnOptions>?
    /// `--allow-private-key-export`: a private key's bytes (its data, or its reference as a
    /// private key) may be returned when its `extr` is true. Never otherwise.
    package var allowPrivateKeyExport = false
    /// kSecAttrSynchronizable, typed (the library's, the engine's own): which items a query takes
    /// by their sync, or whether an add's item syncs (`any` adds a local item). A `sync` word among
    /// `attributes` (the command line's) is the same attribute: two different are errSecParam, and
    /// `any` is refused in an update's changes.
    package var sync: SyncFilter?
    /// `--persistent-ref`, base64.
    package var persistentRef: String?
    /// kSecMatchHostOrSubdomainOfHost: internet passwords whose server is this host or a subdomain
    /// of it (the library's; the command matches `srvr` exactly).
    package var hostOrSubdomainOf: String?
    /// `--access-control` (add) or `--set-access-control` (update).
    package var accessControl: AccessControlRequest?
    /// Attributes an add derives from the item's reference (`--ref-file`: a certificate's or key's
    /// own), given way to by the caller's attributes as `SecItemAdd` gives way (docs/FIDELITY.md).
    package var derived: [String: AttributeValue] = [:]

    /// A request of words, as the command line gives them.
    package init(
        itemClass: String? = nil, words: [(code: String, value: String)] = [], limit: Given<MatchLimit>? = nil,
        returns: Given<ReturnOptions>? = nil, persistentRef: String? = nil
    ) {
        self.itemClass = itemClass
        self.attributes = AttributeInputs(words: words)
        self.limit = limit
        self.returns = returns
        self.persistentRef = persistentRef
    }

    /// A request of the engine's own, or of a command's for its own ends, in typed values.
    package init(
        itemClass: ItemClass, words: [(code: String, value: String)] = [], limit: MatchLimit, returns: ReturnOptions,
        sync: SyncFilter? = nil
    ) {
        self.itemClass = itemClass.rawValue
        self.attributes = AttributeInputs(words: words)
        self.limit = .value(limit)
        self.returns = .value(returns)
        self.sync = sync
    }

    /// The explicit access group (`agrp`), checked against entitlements before anything else is parsed.
    package var explicitGroup: String? { attributes.last(Schema.accessGroup)?.text }

    /// Whether this request, as an add, makes its item synchronizable (the client-side checks read
    /// it before the query is parsed).
    package var makesSynchronizable: Bool { Self.makesSynchronizable(attributes, sync: sync) }

    /// Whether `inputs` or `sync` make an item synchronizable: a `sync` word `yes`, or yes typed.
    package static func makesSynchronizable(_ inputs: AttributeInputs, sync: SyncFilter?) -> Bool {
        sync == .yes || inputs.contains { $0.code == Schema.synchronizable && $0.input.text.flatMap(SyncFilter.init(parsing:)) == .yes }
    }
}

/// An access control as the caller wrote it: the flags (`none`, on update, for the protection
/// alone) and the protection `--accessible` gave it (`nil`: the default, or on update the item's).
package struct AccessControlRequest: Sendable {
    package var flags: String
    package var protection: String?

    package init(flags: String, protection: String? = nil) {
        self.flags = flags
        self.protection = protection
    }

    /// The client-side checks, before anything else (docs/FIDELITY.md): the flags parsed and their
    /// combination checked (errSecParam naming the word or rule), then an access control written
    /// `makingSynchronizable` (by the dictionary being written: on update, the changes). Returns
    /// the flags, `nil` for `none`.
    package func clientChecks(makingSynchronizable: Bool, allowNone: Bool) throws(KeychainError) -> AccessControl.Flags? {
        var parsed: AccessControl.Flags?
        if !allowNone || flags != "none" {
            let words = try AccessControl.Flags(parsing: flags)
            // Validate the combination now, whatever the protection.
            _ = try AccessControl(protection: .whenUnlocked, flags: words, biometrySet: nil)
            parsed = words
        }
        if makingSynchronizable {
            throw KeychainError(
                .param,
                hint:
                    "an item with an access control is not synchronizable (Apple refuses the pair); drop --sync yes or the access control.")
        }
        return parsed
    }

    /// The checks made with the parsed query: `pdmn` given beside an access control
    /// (`SecDbQuery.c:256-275`), and private-key-usage outside the key class.
    package static func check(_ flags: AccessControl.Flags?, givenAccessibility: Bool, itemClass: ItemClass) throws(KeychainError) {
        if givenAccessibility {
            throw KeychainError(
                .param,
                hint:
                    "conflicting accessibility and access control: an access control carries its own protection; give it with --accessible (add) or --set-accessible (update), not --attr pdmn."
            )
        }
        if let flags, flags.contains(.privateKeyUsage), itemClass != .key {
            throw KeychainError(
                .param, hint: "private-key-usage protects a private key's operations; it applies to keys (--class keys) only.")
        }
    }

    /// The protection, parsed; errSecParam for an unknown class.
    package func parsedProtection() throws(KeychainError) -> Accessibility? {
        guard let protection else { return nil }
        guard let parsed = Accessibility(parsing: protection) else {
            throw KeychainError(.param, hint: "'\(protection)' is not an accessibility class; use \(Accessibility.allNames).")
        }
        return parsed
    }
}
