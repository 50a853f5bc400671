import KeychainFormats
import KeychainFoundation

/// SecItemAdd (`SecItemServer.c`, `_SecItemAdd`).
extension Keychain {
    /// What an add produced.
    package struct AddResult: Sendable {
        /// The stored item (or, with `updateExisting`, the item it updated).
        package let item: Item
        /// Whether an existing item was updated in place (`add -U`).
        package let updatedExisting: Bool
        /// Things worth saying on stderr (a synchronizable ThisDeviceOnly item).
        package let warnings: [String]
        /// What the request asked to have returned.
        package let returns: ReturnOptions
    }

    /// Adds an item with `secret` (`nil`: an item without data, as Apple stores one added with no
    /// kSecValueData) and the request's data fields. Check order: no writable group (-34018) → bad request (-50,
    /// -25303, -25306) → explicit group (-34018) → duplicate (-25299). With `updateExisting`, an
    /// item with the same primary key takes the new secret and the given attributes instead, in the
    /// same transaction.
    package func add(_ request: ItemRequest, secret: SecretBytes?, caller: Caller, updateExisting: Bool = false)
        throws -> AddResult
    {
        let prepared = try prepareAdd(request, secret: secret, caller: caller)
        return try store.write { try insert(prepared, updateExisting: updateExisting) }
    }

    /// Adds many items in one transaction (filling a keychain for tests and benchmarks): the same
    /// checks as `add`, and all of them or none.
    package func addAll(_ requests: [(ItemRequest, SecretBytes)], caller: Caller) throws {
        try store.write {
            for (request, secret) in requests {
                _ = try insert(try prepareAdd(request, secret: secret, caller: caller), updateExisting: false)
            }
        }
    }

    /// An add checked and sealed, ready to be written.
    struct PreparedAdd {
        let query: ItemQuery
        /// The group the item lands in, as the add's checks allowed it.
        let group: String
        let item: Item
        let sealed: SealedItem
        /// What was sealed: the data and the request's data fields.
        let secret: ItemSecret
        let warnings: [String]
    }

    /// Every check before the write, in Apple's order, and the sealing. The client-side checks
    /// come first (docs/FIDELITY.md): the access control's flags, an access control with sync, UI skip.
    /// `import` gives the item's own UUID (when free) and dates (`preserving`).
    func prepareAdd(_ request: ItemRequest, secret data: SecretBytes?, caller: Caller, preserving kept: KeptIdentity? = nil) throws
        -> PreparedAdd
    {
        let flags = try request.accessControl?.clientChecks(makingSynchronizable: request.makesSynchronizable, allowNone: false)
        try beginCall("add")
        let checked = try preflight(.add, request, caller: caller, makingSynchronizable: request.makesSynchronizable, accessControl: flags)
        // preflight(.add, …) names the group it allowed, or throws: never nil here.
        let (query, group) = (checked.query, checked.landingGroup!)

        let now = Self.now()
        var attributes = query.attributes
        for (code, value) in request.derived where attributes[code] == nil { attributes[code] = value }
        for code in query.schema.primaryKey where attributes[code] == nil {
            attributes[code] = .defaultValue(for: query.schema.attribute(code)!.kind)
        }
        attributes[Schema.accessGroup] = .string(group)
        let protection = try request.accessControl?.parsedProtection()
        attributes[Schema.protection] =
            attributes[Schema.protection] ?? .string((protection ?? Accessibility.defaultFor(query.itemClass)).rawValue)
        attributes[Schema.synchronizable] = .bool(query.sync == .yes)
        attributes[Schema.tombstone] = .bool(false)
        attributes[Schema.creationDate] = .date(kept?.created ?? now)
        attributes[Schema.modificationDate] = .date(kept?.modified ?? kept?.created ?? now)
        // What an App Clip adds goes when the clip goes (`SecDbQuery.c`, `query_create`).
        if caller.groups.isAppClip { attributes[Schema.appClipItem] = .bool(true) }
        var item = Item(itemClass: query.itemClass, uuid: kept?.uuid ?? Sodium.randomBytes(16), attributes: attributes)
        if let flags { item.attributes[Schema.accessControl] = .string(try bind(flags, to: item).text) }
        var warnings: [String] = []
        if item.isSynchronizable, item.accessibility.isThisDeviceOnly {
            warnings.append(
                "a synchronizable item with accessibility \(item.accessibility.longName) is stored, as Apple stores it, but it never syncs; Apple's headers say the combination is not allowed."
            )
        }
        let secret = ItemSecret(data: data, fields: query.dataFields.mapValues { SecretBytes(copying: $0) })
        return PreparedAdd(
            query: query, group: group, item: item, sealed: try keys.seal(item, secret: secret), secret: secret, warnings: warnings)
    }

    /// What an imported item keeps of its origin: its UUID (its persistent reference) and dates.
    struct KeptIdentity {
        var uuid: [UInt8]?
        var created: Int64?
        var modified: Int64?
    }

    /// Writes a prepared add inside the caller's transaction. A verified tombstone holding the same
    /// primary key is replaced; a damaged row holding it is errSecDecode, never overwritten.
    func insert(_ prepared: PreparedAdd, updateExisting: Bool) throws -> AddResult {
        let itemClass = prepared.query.itemClass
        let group = prepared.group
        // A live holder of a class the device has locked: Apple's INSERT meets the UNIQUE
        // constraint without decrypting it (-25299); only add -U has to open it (-25308).
        if !updateExisting, !keys.device.allowsEveryClass,
            let holder = try store.row(itemClass, holdingKeyOf: prepared.sealed, inGroup: group), !holder.row.isTombstone,
            isLocked(holder.row)
        {
            throw duplicate(prepared.item)
        }
        try noteAccessControl(of: prepared.sealed)
        let live = try clearTombstone(for: prepared.sealed, itemClass, inGroup: group)
        switch try store.insert(itemClass, prepared.sealed) {
        case .written:
            return AddResult(
                item: prepared.item, updatedExisting: false, warnings: prepared.warnings, returns: prepared.query.returns)
        case .duplicate:
            guard let existing = live, updateExisting else { throw duplicate(prepared.item) }
            guard try authorize(existing.opened, rowid: existing.rowid, access: .change) else { throw duplicate(prepared.item) }
            var given = prepared.query.attributes
            if prepared.item.attributes[Schema.accessControl] != nil {
                given[Schema.protection] = prepared.item.attributes[Schema.protection]
                given[Schema.accessControl] = prepared.item.attributes[Schema.accessControl]
            }
            let updated = try replaceExisting(existing, with: given, secret: prepared.secret, now: Self.now())
            return AddResult(item: updated, updatedExisting: true, warnings: prepared.warnings, returns: prepared.query.returns)
        }
    }

    /// The access control `flags` makes for `item` (whose `pdmn` is its protection), bound to this
    /// device as an add or update binds it, without asking anyone: the class must be available
    /// (-25308), its constraints satisfiable here (-25293), and an application password at hand.
    func bind(_ flags: AccessControl.Flags, to item: Item) throws -> AccessControl {
        let protection = item.accessibility
        guard keys.device.allows(protection) else { throw keys.device.refusal(protection) }
        let control = try AccessControl(protection: protection, flags: flags, biometrySet: keys.device.biometrySet)
        try checkSatisfiable(control, item: item)
        if flags.contains(.applicationPassword) { try useApplicationPassword(for: item) }
        return control
    }

    /// `add -U`: the live item holding the new item's primary key takes `given` attributes and
    /// `secret` (its data, or none, and its data fields); its UUID (persistent reference) and
    /// creation date stay.
    func replaceExisting(_ existing: MatchedRow, with given: [String: AttributeValue], secret: ItemSecret, now: Int64)
        throws -> Item
    {
        var old = existing.opened.item
        for (code, value) in given where code != Schema.accessGroup && !Schema.setByKeychain.contains(code) {
            old.attributes[code] = value
        }
        old.attributes[Schema.modificationDate] = .date(Self.modificationDate(now: now, after: existing.opened.item))
        let changed = try changedSecret(of: existing.opened, data: secret.data, fields: secret.fields)
        let resealed = try keys.seal(old, secret: changed, keepingSecretOf: existing.opened)
        guard try store.update(old.itemClass, rowid: existing.rowid, resealed) == .written else { throw duplicate(old) }
        return old
    }

    /// errSecDuplicateItem naming the item's primary key (never its secret).
    func duplicate(_ item: Item) -> KeychainError {
        let schema = Schema.of(stored: item.itemClass)
        let key = schema.primaryKey.compactMap { code -> String? in
            guard code != Schema.synchronizable, let value = item.attributes[code] else { return nil }
            return "\(code)=\(value.displayText)"
        }
        return KeychainError(
            .duplicateItem,
            hint:
                "a \(item.itemClass.longName) with \(key.joined(separator: ", ")) and sync=\(item.isSynchronizable ? "yes" : "no") already exists; use add -U or update to change it."
        )
    }

    /// `mdat` for a change now: now, and always strictly later than before (docs/FIDELITY.md).
    static func modificationDate(now: Int64, after item: Item) -> Int64 {
        guard case .date(let previous) = item.attributes[Schema.modificationDate] else { return now }
        return max(now, previous + 1)
    }
}
