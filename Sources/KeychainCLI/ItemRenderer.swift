import KeychainCore

/// Renders items the way SecItemCopyMatching shapes them (CLI.md, Output): one value for a limit of
/// one, else an array; a dictionary, except when exactly one of data or persistent reference is
/// asked for, when the value is that alone (base64).
enum ItemRenderer {
    /// One item with what was asked of it.
    struct Entry {
        let item: Item
        let secret: SecretBytes?
    }

    /// The whole output for `entries` (with a trailing newline), or nothing when nothing is
    /// returned. Secrets stay in guarded memory (base64) until they are written.
    static func render(_ entries: [Entry], returns: ReturnOptions, single: Bool, format: OutputFormat) -> Output {
        var out = Output()
        guard !returns.isEmpty else { return out }
        switch format {
        case .json:
            let values = entries.map { json($0, returns: returns) }
            out.append(JSON.output(single && values.count == 1 ? values[0] : .array(values)))
            out.append("\n")
        case .text:
            for (index, entry) in entries.enumerated() {
                if returns.isBareValue {
                    out.append(bare(entry, returns: returns))
                    out.append("\n")
                } else {
                    if index > 0 { out.append("\n") }
                    out.append(text(entry, returns: returns))
                }
            }
        }
        return out
    }

    /// A `--dry-run` listing: every item's attributes and persistent reference, as an array.
    static func listing(_ items: [Item], format: OutputFormat) -> Output {
        render(items.map { Entry(item: $0, secret: nil) }, returns: [.attributes, .persistentRef], single: false, format: format)
    }

    private static func bare(_ entry: Entry, returns: ReturnOptions) -> Output {
        var out = Output()
        if returns == .persistentRef { out.append(entry.item.persistentRef.base64) } else { out.append(secret: base64(entry.secret)) }
        return out
    }

    /// The JSON value of one entry.
    static func json(_ entry: Entry, returns: ReturnOptions) -> JSON.Value {
        if returns.isBareValue {
            return returns == .persistentRef ? .string(entry.item.persistentRef.base64) : .secret(base64(entry.secret))
        }
        var members: [String: JSON.Value] = [:]
        if returns.contains(.attributes) {
            members["class"] = .string(entry.item.itemClass.rawValue)
            for (code, value) in entry.item.attributes { members[code] = json(value) }
        }
        if returns.contains(.data) { members["v_Data"] = .secret(base64(entry.secret)) }
        if returns.contains(.persistentRef) { members["v_PersistentRef"] = .string(entry.item.persistentRef.base64) }
        return .object(members)
    }

    /// A value in JSON: strings, numbers, booleans, ISO-8601 dates, base64 bytes.
    static func json(_ value: AttributeValue) -> JSON.Value {
        switch value {
        case .string(let text), .fourCharCode(let text): .string(text)
        case .data(let bytes): .string(Base64.encode(bytes))
        case .number(let number): .number(number)
        case .bool(let flag): .bool(flag)
        case .date(let milliseconds): .string(ISO8601.format(milliseconds))
        }
    }

    /// One text block: `code (long name): value` lines in schema order.
    static func text(_ entry: Entry, returns: ReturnOptions) -> Output {
        var lines: [String] = []
        if returns.contains(.attributes) {
            let item = entry.item
            lines.append("class: \(item.itemClass.rawValue) (\(item.itemClass.longName))")
            for attribute in Schema.of(item.itemClass)?.attributes ?? [] {
                guard let value = item.attributes[attribute.code] else { continue }
                var shown = value.displayText
                if attribute.code == "pdmn", let accessibility = Accessibility(rawValue: shown) {
                    shown += " (\(accessibility.longName))"
                }
                lines.append("\(attribute.code) (\(attribute.name)): \(shown)")
            }
        }
        if returns.contains(.persistentRef) {
            lines.append("v_PersistentRef (persistent reference): \(entry.item.persistentRef.base64)")
        }
        var out = Output(lines.map { $0 + "\n" }.joined())
        if returns.contains(.data) {
            out.append("v_Data (data): ")
            out.append(secret: base64(entry.secret))
            out.append("\n")
        }
        return out
    }

    /// The secret as base64 in guarded memory (empty for an item without one).
    private static func base64(_ secret: SecretBytes?) -> SecretBytes {
        (secret ?? SecretBytes(count: 0)).base64()
    }
}
