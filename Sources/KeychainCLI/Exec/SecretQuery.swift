import KeychainCore
import TextEscaping

/// The QUERY of `exec --env NAME=QUERY`, `--env-from`, `--file` and `keychain:QUERY` values: one
/// item's attributes as comma-separated `name=value` pairs, each name an attribute option's long
/// name (`service`, `account`, `group`, …) or a four-character code, or `class=`, or
/// `ref=<persistent reference>`; `\,` `\=` `\\` escape. The class defaults to genp. A bare NAME
/// (no `=`, no `,`) is `service=NAME`, the item `set NAME` stored.
/// Example: `service=registry,account=ci`, or `registry`.
enum SecretQuery {
    /// The reference `text` spells for `name` (a variable or file name, shown in errors); a bare
    /// NAME that names one item carries it as the stored name, whose miss reads as `get NAME`'s.
    static func reference(_ text: String, name: String, every: Bool = false) throws(KeychainError) -> Keychain.SecretReference {
        let parsed = try read(text, name: name)
        return Keychain.SecretReference(name: name, request: parsed.request, every: every, storedName: every ? nil : parsed.bareName)
    }

    /// The request `text` spells; errSecParam naming `name` (never the text, which may be a
    /// mistyped secret) when it spells none.
    static func parse(_ text: String, name: String) throws(KeychainError) -> ItemRequest { try read(text, name: name).request }

    /// The request `text` spells, and the NAME when it is a bare one (`registry` in `keychain:registry`).
    private static func read(_ text: String, name: String) throws(KeychainError) -> (request: ItemRequest, bareName: String?) {
        var request = ItemRequest()
        var bareName: String?
        var pairs: [(key: String, value: String)] = []
        var key = ""
        var value = ""
        var inValue = false
        var escaped = false
        func bad(_ why: String) -> KeychainError {
            KeychainError(
                .param,
                hint:
                    "\(name): the query is not valid (\(why)); write name=value pairs separated by commas, such as service=api,account=ci.")
        }
        for character in text {
            if escaped {
                guard character == "," || character == "=" || character == "\\" else { throw bad("\\ escapes only , = and \\") }
                if inValue { value.append(character) } else { key.append(character) }
                escaped = false
                continue
            }
            switch character {
            case "\\": escaped = true
            case "=" where !inValue: inValue = true
            case ",":
                guard inValue, !key.isEmpty else { throw bad("a pair without '='") }
                pairs.append((key, value))
                key = ""
                value = ""
                inValue = false
            default:
                if inValue { value.append(character) } else { key.append(character) }
            }
        }
        guard !escaped else { throw bad("a trailing \\") }
        if !inValue, pairs.isEmpty, !key.isEmpty {
            // A bare NAME: the item `set NAME` stores, service=NAME, found as `get NAME` finds it
            // (synchronizable or not).
            pairs.append(("service", AttributeValue.literal(key)))
            request.sync = .any
            bareName = key
        } else {
            guard inValue, !key.isEmpty else { throw bad(text.isEmpty ? "it is empty" : "a pair without '='") }
            pairs.append((key, value))
        }
        for (key, value) in pairs {
            switch key {
            case "class":
                guard request.itemClass == nil else { throw bad("class given twice") }
                request.itemClass = value
            case "ref", "persistent-ref":
                guard request.persistentRef == nil else { throw bad("ref given twice") }
                request.persistentRef = value
            default:
                let code =
                    ItemOptions.attributeOptions.first { $0.spec.long == key }?.code
                    ?? (key.utf8.count == 4 && key.utf8.allSatisfy { $0 >= 0x21 && $0 < 0x7F } ? key : nil)
                guard let code else { throw bad("unknown attribute '\(String(key.prefix(30)).terminalSafe)'") }
                guard !request.attributes.contains(where: { $0.code == code }) else { throw bad("\(code) given twice") }
                request.attributes.append((code: code, input: .word(value)))
            }
        }
        return (request, bareName)
    }
}
