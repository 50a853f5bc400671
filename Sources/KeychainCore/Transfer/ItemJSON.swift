import KeychainFormats
import KeychainFoundation
import TextEscaping

/// One item as `export` writes it and `import` reads it: the keys of `find --format json` (Apple's
/// attribute codes, `class`, `v_PersistentRef`) and `v_Data`, the secret's exact bytes in base64
/// (Apple's kSecValueData key), `null` for an item without data.
package enum ItemJSON {
    /// The document `export --format json` writes and `import` reads (a bare array is read too).
    package static let documentFormat = "keychainctl-items"
    package static let documentVersion = 1

    // The keys beside the attribute codes, spelled once for both directions (Apple's
    // kSecClass, kSecValueData, kSecValuePersistentRef, kSecValueRef).
    package static let classKey = "class"
    package static let dataKey = "v_Data"
    package static let persistentRefKey = "v_PersistentRef"
    package static let referenceKey = "v_Ref"

    /// The import item a JSON object describes; errSecParam naming `origin` and the field, never
    /// a value, when it describes none. `data` is the input the object's strings point into.
    package static func importItem(_ object: JSONReader.Value, in data: UnsafeRawBufferPointer, origin: String) throws(KeychainError)
        -> Keychain.ImportItem
    {
        guard case .object(let members) = object else { throw bad(origin, "is not an object") }
        var request = ItemRequest()
        var secret: SecretBytes?
        var withoutData = false
        var uuid: [UInt8]?
        var created: Int64?
        var modified: Int64?
        var accessControl: String?
        if case .string(let range)? = members.first(where: { $0.key == classKey })?.value {
            request.itemClass = JSONReader.text(range, in: data)
        }
        let schema = ItemClass(parsing: request.itemClass ?? "genp").flatMap(Schema.of)
        var seen: [String] = []
        for (key, value) in members {
            guard !seen.contains(key) else { throw bad(origin, "gives \(key.terminalSafe) twice") }
            seen.append(key)
            switch (key, value) {
            case (classKey, _): continue
            case (dataKey, .string(let range)):
                let text = SecretBytes(count: 0)
                guard JSONReader.unescape(range, in: data, into: text), let decoded = text.base64Decoded() else {
                    throw bad(origin, "v_Data is not base64")
                }
                secret = decoded
            case (persistentRefKey, .string(let range)):
                guard let text = JSONReader.text(range, in: data), let bytes = Base64.decode(text),
                    let reference = PersistentRef(bytes: bytes)
                else { throw bad(origin, "v_PersistentRef is not a persistent reference") }
                uuid = reference.uuid
            case (Schema.creationDate, .string(let range)), (Schema.modificationDate, .string(let range)):
                guard let text = JSONReader.text(range, in: data), let date = ISO8601.parse(text) else {
                    throw bad(origin, "\(key) is not an ISO-8601 date")
                }
                if key == Schema.creationDate { created = date } else { modified = date }
            case (Schema.tombstone, .bool(let flag)):
                guard !flag else { throw bad(origin, "is a tombstone (a deletion), not an item") }
            case (Schema.accessControl, .string(let range)):
                accessControl = JSONReader.text(range, in: data)
            case (dataKey, .null): withoutData = true
            case (_, .null): continue
            case (Schema.synchronizable, .bool(let flag)):
                request.sync = flag ? .yes : .no
            case (_, .bool(let flag)): request.attributes.append((code: key, input: .word(flag ? "1" : "0")))
            case (_, .number(let number)): request.attributes.append((code: key, input: .word(number)))
            case (_, .string(let range)):
                guard let text = JSONReader.text(range, in: data) else { throw bad(origin, "\(key.terminalSafe) is not UTF-8 text") }
                // Data attributes are base64 in JSON, as find and export write them; an empty
                // four-character code is the unset default (add fills it in).
                let kind = schema?.attribute(key)?.kind
                if kind == .fourCharCode, text.isEmpty { continue }
                let isData = kind == .data
                request.attributes.append((code: key, input: .word(isData ? "base64:" + text : text)))
            default: throw bad(origin, "\(key.terminalSafe) has a value of the wrong type")
            }
        }
        guard secret != nil || withoutData else {
            throw bad(origin, "has no v_Data (the secret, base64; null for an item without data)")
        }
        // An access control that is its protection alone (what every item without one stores) is
        // the accessibility already given; a real one (biometry, passcode) is not imported.
        if let accessControl {
            let protection = request.attributes.last(Schema.protection)?.text
            guard accessControl == protection || protection == nil && Accessibility(rawValue: accessControl) != nil else {
                throw bad(origin, "is protected by an access control (\(accessControl.terminalSafe)), which import does not carry over")
            }
            if protection == nil { request.attributes.append((code: Schema.protection, input: .word(accessControl))) }
        }
        var item = Keychain.ImportItem(request: request, secret: secret, origin: origin)
        item.uuid = uuid
        item.created = created
        item.modified = modified
        return item
    }

    private static func bad(_ origin: String, _ what: String) -> KeychainError {
        KeychainError(.param, hint: "\(origin) \(what). Nothing was imported.")
    }
}
