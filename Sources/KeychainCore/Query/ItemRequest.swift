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
