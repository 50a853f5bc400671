import TextEscaping

/// One keychain item as stored: its identity and its attributes (the secret is kept apart).
package struct Item: Sendable {
    /// The item's class.
    package let itemClass: ItemClass
    /// The item's UUID (the persistent reference's tail).
    package let uuid: [UInt8]
    /// Every attribute the item holds, including `agrp`, `pdmn`, `sync`, `tomb`, `cdat`, `mdat`.
    package var attributes: [String: AttributeValue]

    /// An item from its parts.
    package init(itemClass: ItemClass, uuid: [UInt8], attributes: [String: AttributeValue]) {
        self.itemClass = itemClass
        self.uuid = uuid
        self.attributes = attributes
    }

    /// The persistent reference.
    package var persistentRef: PersistentRef { PersistentRef(itemClass: itemClass, uuid: uuid) }

    /// The access group.
    package var accessGroup: String { PolicyAttributes.accessGroup(attributes) }

    /// The accessibility class.
    package var accessibility: Accessibility {
        attributes[Schema.protection]?.stringValue.flatMap(Accessibility.init(rawValue:)) ?? .whenUnlocked
    }

    /// The access control (`accc`): the stored one when it is for the item's protection, else the
    /// protection alone (a new accessibility replaces an access control, as Apple's update does).
    package var accessControl: AccessControl {
        let protection = accessibility
        guard let text = attributes[Schema.accessControl]?.stringValue, !text.sameBytes(as: protection.rawValue),
            let stored = AccessControl(stored: text), stored.protection == protection
        else { return AccessControl(protection: protection) }
        return stored
    }

    /// Whether the item is synchronizable.
    package var isSynchronizable: Bool { PolicyAttributes.isSynchronizable(attributes) }

    /// Whether the item is a tombstone.
    package var isTombstone: Bool { PolicyAttributes.isTombstone(attributes) }

    /// The item as the everyday commands tell items of one name apart: its account quoted (or
    /// "(no account)"), its group, and whether it syncs. Escaped for a terminal; never secret bytes.
    package var accountAndGroup: String {
        let account = attributes[Schema.account]?.stringValue ?? ""
        return (account.isEmpty ? "(no account)" : "'\(account.terminalSafe)'") + " in \(accessGroup.terminalSafe)"
            + (isSynchronizable ? " (synchronizable)" : "")
    }

    /// A one-line description for reports and hints: class, account, service or server, and the
    /// persistent reference. Never secret bytes.
    package var summary: String { summary(showing: Schema.naming) }

    /// The class, then `code=value` for each of `codes` the item has (escaped for a terminal),
    /// then the persistent reference.
    package func summary(showing codes: [String]) -> String {
        var parts = [itemClass.rawValue]
        for code in codes {
            if let value = attributes[code]?.stringValue, !value.isEmpty { parts.append("\(code)=\(value.terminalSafe)") }
        }
        parts.append("ref=\(persistentRef.base64)")
        return parts.joined(separator: " ")
    }
}

/// How the policy reads an item's group, sync and tombstone from its attributes: one way for every
/// form the item takes (a live `Item`, a row's plaintext columns, a synced record).
package enum PolicyAttributes {
    /// The access group (`agrp`), empty when absent.
    package static func accessGroup(_ values: [String: AttributeValue]) -> String { values[Schema.accessGroup]?.stringValue ?? "" }
    /// Whether `sync` is true.
    package static func isSynchronizable(_ values: [String: AttributeValue]) -> Bool { values[Schema.synchronizable] == .bool(true) }
    /// Whether `tomb` is true.
    package static func isTombstone(_ values: [String: AttributeValue]) -> Bool { values[Schema.tombstone] == .bool(true) }
}
