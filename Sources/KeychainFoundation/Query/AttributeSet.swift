import TextEscaping

/// Attributes given for one class, parsed and checked: each code exists for the class
/// (else errSecNoSuchAttr), each value is well-formed (else errSecParam), none given twice.
package struct AttributeSet: Sendable {
    /// Parsed values, by code; `sync` is held apart as a filter.
    package private(set) var values: [String: AttributeValue] = [:]
    /// `sync` as given (`yes`, `no`, `any`), or `nil` when not mentioned.
    package private(set) var sync: SyncFilter?

    /// Parses the words among `inputs` and takes their values (the `Security` library's, bound
    /// from Apple's types, never parsed) and `typedSync` (its kSecAttrSynchronizable) for `schema`.
    /// `allowSyncAny` is false for changes (an item is synchronizable or not). `tomb` belongs to
    /// the keychain and is refused.
    package init(_ inputs: AttributeInputs, sync typedSync: SyncFilter? = nil, for schema: ClassSchema, allowSyncAny: Bool)
        throws(KeychainError)
    {
        // The words in the order given, the library's typed sync (which it used to give among
        // them), then its values in the order given: the first refusal wins, as Apple's order has it.
        for (code, input) in inputs {
            guard case .word(let text) = input else { continue }
            let attribute = try Self.check(code, for: schema)
            if code == Schema.synchronizable {
                try take(sync: SyncFilter(parsing: text), written: text, allowSyncAny: allowSyncAny)
            } else {
                try set(code, try AttributeValue.parse(text, for: attribute))
            }
        }
        if let typedSync {
            _ = try Self.check(Schema.synchronizable, for: schema)
            try take(sync: typedSync, written: typedSync.word, allowSyncAny: allowSyncAny)
        }
        for (code, input) in inputs {
            guard case .value(let value) = input else { continue }
            _ = try Self.check(code, for: schema)
            // Apple's constants (kSecAttrAccessibleWhenUnlocked is "ak"), nothing else.
            if code == Schema.protection {
                guard case .string(let text) = value, Accessibility(rawValue: text) != nil else {
                    throw Accessibility.notAClass(value.displayText)
                }
            }
            guard code != Schema.synchronizable else { throw KeychainError(.param, hint: "sync is given as a sync filter.") }
            try set(code, value)
        }
    }

    private mutating func take(sync filter: SyncFilter?, written: String, allowSyncAny: Bool) throws(KeychainError) {
        guard let filter, allowSyncAny || filter != .any else {
            throw KeychainError(.param, hint: "sync takes \(allowSyncAny ? "yes, no or any" : "yes or no"), not '\(written)'.")
        }
        if let sync, sync != filter { throw Self.givenTwice(Schema.synchronizable) }
        sync = filter
    }

    private mutating func set(_ code: String, _ value: AttributeValue) throws(KeychainError) {
        if let existing = values[code], existing != value { throw Self.givenTwice(code) }
        values[code] = value
    }

    /// The attribute `code` names, when a caller may give it for `schema`: an unknown code is
    /// errSecNoSuchAttr, one the keychain keeps (`clip`, `tomb`, `accc`) errSecParam.
    private static func check(_ code: String, for schema: ClassSchema) throws(KeychainError) -> AttributeDescriptor {
        // Apple's keychain marks an App Clip's items itself (`kSecAttrAppClipItem`); a caller
        // that sets it is a bad request, not an unknown attribute (`SecItemServer.c`).
        if code == Schema.appClipItem {
            throw KeychainError(.param, hint: "clip (App Clip item) is set by the keychain, never by the caller.")
        }
        guard let attribute = schema.attribute(code) else {
            let known = Schema.attribute(code) != nil ? "is not an attribute of" : "is no attribute code; see"
            throw KeychainError(
                .noSuchAttr,
                hint:
                    "'\(code.terminalSafe)' \(known) class \(schema.itemClass.rawValue) (\(schema.itemClass.longName)); it has: \(schema.attributes.map(\.code).joined(separator: " "))."
            )
        }
        switch code {
        case Schema.tombstone:
            throw KeychainError(.param, hint: "tomb (tombstone) is kept by the keychain and cannot be given.")
        case Schema.accessControl:
            throw KeychainError(
                .param,
                hint: "accc (access control) is set with --access-control on add and --set-access-control on update; "
                    + "as in Apple's keychain it cannot be matched.")
        default: return attribute
        }
    }

    private static func givenTwice(_ code: String) -> KeychainError {
        KeychainError(.param, hint: "\(code) was given twice with different values.")
    }

    /// Whether nothing was given.
    package var isEmpty: Bool { values.isEmpty && sync == nil }
}
