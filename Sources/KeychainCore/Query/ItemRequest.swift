/// A request as the caller wrote it, before any validation: the command line's words.
///
/// Validation happens inside each operation, at the point Apple's `SecItemServer.c` checks it, so
/// that the status precedence (SEMANTICS §3) comes out right.
package struct ItemRequest: Sendable {
    /// `--class`, or `nil` for the default (`genp`).
    package var itemClass: String?
    /// Attributes by code, in the order given (`-s api` is `("svce", "api")`).
    package var attributes: [(code: String, value: String)] = []
    /// `--limit`: `one`, `all` or a count.
    package var limit: String?
    /// `--return` options: `attributes`, `data`, `persistent-ref`.
    package var returns: [String] = []
    /// `--persistent-ref`, base64.
    package var persistentRef: String?
    /// `--access-control` (add) or `--set-access-control` (update).
    package var accessControl: AccessControlRequest?

    package init(
        itemClass: String? = nil, attributes: [(code: String, value: String)] = [], limit: String? = nil,
        returns: [String] = [], persistentRef: String? = nil
    ) {
        self.itemClass = itemClass
        self.attributes = attributes
        self.limit = limit
        self.returns = returns
        self.persistentRef = persistentRef
    }

    /// The explicit access group (`agrp`), checked against entitlements before anything else is parsed.
    package var explicitGroup: String? { attributes.last { $0.code == "agrp" }?.value }
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

    /// The flags parsed (client-side, before anything else: errSecParam naming the word or rule),
    /// `nil` for `none`.
    func parsedFlags(allowNone: Bool) throws(KeychainError) -> AccessControl.Flags? {
        if allowNone, flags == "none" { return nil }
        let parsed = try AccessControl.Flags(parsing: flags)
        // Validate the combination now, whatever the protection.
        _ = try AccessControl(protection: .whenUnlocked, flags: parsed, biometrySet: nil)
        return parsed
    }

    /// The protection, parsed; errSecParam for an unknown class.
    func parsedProtection() throws(KeychainError) -> Accessibility? {
        guard let protection else { return nil }
        guard let parsed = Accessibility(parsing: protection) else {
            throw KeychainError(.param, hint: "'\(protection)' is not an accessibility class; use \(Accessibility.allNames).")
        }
        return parsed
    }

    /// errSecParam: an access control on a synchronizable item (`SecItem.m:1656-1661`).
    static let notSynchronizable = KeychainError(
        .param,
        hint: "an item with an access control is not synchronizable (Apple refuses the pair); drop --sync yes or the access control.")

    /// errSecParam: `pdmn` given beside an access control (`SecDbQuery.c:256-275`).
    static let conflictingAccessibility = KeychainError(
        .param,
        hint:
            "conflicting accessibility and access control: an access control carries its own protection; give it with --accessible (add) or --set-accessible (update), not --attr pdmn."
    )
}
