import KeychainCore

/// Renders items the way SecItemCopyMatching shapes them (docs/REFERENCE.md): one value for a limit of
/// one, else an array; a dictionary, except when exactly one of data or persistent reference is
/// asked for, when the value is that alone (base64).
enum ItemRenderer {
    /// One item with what was asked of it.
    struct Entry {
        let item: Item
        /// The data; `nil` when not asked for or when the item has none (then no `v_Data` is shown).
        let secret: SecretBytes?
        /// The object as PEM (`--return ref`).
        var reference: SecretBytes? = nil
        /// The data fields sealed with the data (`binn`…), shown with it.
        var dataFields: [String: SecretBytes] = [:]
    }

    /// The whole output for `entries` (with a trailing newline), or nothing when nothing is
    /// returned. Secrets stay in guarded memory (base64) until they are written.
    static func render(_ entries: [Entry], returns: ReturnOptions, single: Bool, format: OutputFormat) -> Output {
        var out = Output()
        var stream = Stream(returns: returns, single: single, format: format) { out.append($0) }
        for entry in entries { stream.write(entry) }
        stream.finish()
        return out
    }

    /// Output made one entry at a time and handed to `sink` as it is made, so that a find over
    /// many items holds one item's secret at a time, never all of them (100,000 secrets
    /// took 310 MB).
    struct Stream {
        let returns: ReturnOptions
        let single: Bool
        let format: OutputFormat
        let sink: (Output) -> Void
        private var written = 0

        init(returns: ReturnOptions, single: Bool, format: OutputFormat, sink: @escaping (Output) -> Void) {
            self.returns = returns
            self.single = single
            self.format = format
            self.sink = sink
        }

        mutating func write(_ entry: Entry) {
            guard !returns.isEmpty else { return }
            var out = Output()
            switch format {
            case .json:
                if !single { out.append(written == 0 ? "[" : ",") }
                out.append(JSON.output(json(entry, returns: returns)))
                if single { out.append("\n") }
            case .text:
                if returns == .reference {
                    out.append(secret: entry.reference ?? SecretBytes(count: 0))
                } else if returns.isBareValue {
                    out.append(bare(entry, returns: returns))
                    out.append("\n")
                } else {
                    if written > 0 { out.append("\n") }
                    out.append(text(entry, returns: returns))
                }
            }
            written += 1
            sink(out)
        }

        /// Closes the JSON array (an empty one when nothing was written).
        func finish() {
            guard !returns.isEmpty, format == .json, !single || written == 0 else { return }
            sink(Output(written == 0 ? "[]\n" : "]\n"))
        }
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
        if returns == .reference { return .secret(escapedLines(entry.reference)) }
        if returns.isBareValue {
            return returns == .persistentRef ? .string(entry.item.persistentRef.base64) : .secret(base64(entry.secret))
        }
        var members: [String: JSON.Value] = [:]
        if returns.contains(.attributes) {
            members[ItemJSON.classKey] = .string(entry.item.itemClass.rawValue)
            for (code, value) in entry.item.attributes where Schema.attribute(code)?.isReturnedAsAttribute ?? true {
                // Data in a string attribute says so (base64:…), as the command line reads it back.
                if case .data = value, let kind = Schema.attribute(code)?.kind, kind == .string || kind == .fourCharCode {
                    members[code] = .string(value.commandLineText(for: kind))
                } else {
                    members[code] = json(value)
                }
            }
        }
        if returns.contains(.data) {
            if entry.secret != nil { members[ItemJSON.dataKey] = .secret(base64(entry.secret)) }
            for (code, value) in entry.dataFields { members[code] = .secret(value.base64()) }
        }
        if returns.contains(.persistentRef) { members[ItemJSON.persistentRefKey] = .string(entry.item.persistentRef.base64) }
        if returns.contains(.reference) { members[ItemJSON.referenceKey] = .secret(escapedLines(entry.reference)) }
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
            for attribute in Schema.shown(item.itemClass) where attribute.isReturnedAsAttribute {
                guard let value = item.attributes[attribute.code] else { continue }
                var shown = value.commandLineText(for: attribute.kind)
                if attribute.code == Schema.protection, let accessibility = Accessibility(rawValue: shown) {
                    shown += " (\(accessibility.longName))"
                }
                lines.append("\(attribute.code) (\(attribute.name)): \(shown)")
            }
        }
        if returns.contains(.persistentRef) {
            lines.append("\(ItemJSON.persistentRefKey) (persistent reference): \(entry.item.persistentRef.base64)")
        }
        var out = Output(lines.map { $0 + "\n" }.joinedText())
        if returns.contains(.data) {
            var parts = entry.secret.map { [(ItemJSON.dataKey, "data", $0)] } ?? []
            for field in Schema.of(entry.item.itemClass)?.dataFields ?? [] {
                if let value = entry.dataFields[field.code] { parts.append((field.code, field.name, value)) }
            }
            for (code, name, value) in parts {
                out.append("\(code) (\(name)): ")
                out.append(secret: value.base64())
                out.append("\n")
            }
        }
        if returns.contains(.reference) {
            out.append("\(ItemJSON.referenceKey) (reference):\n")
            out.append(secret: entry.reference ?? SecretBytes(count: 0))
        }
        return out
    }

    /// PEM as the inside of a JSON string: its only characters that need escaping are newlines.
    private static func escapedLines(_ pem: SecretBytes?) -> SecretBytes {
        let escaped = SecretBytes(count: 0)
        let newline: [UInt8] = [UInt8(ascii: "\\"), UInt8(ascii: "n")]
        pem?.withUnsafeBytes { bytes in
            var start = 0
            for (index, byte) in bytes.enumerated() where byte == 0x0A {
                escaped.append(UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
                newline.withUnsafeBytes { escaped.append($0) }
                start = index + 1
            }
            escaped.append(UnsafeRawBufferPointer(rebasing: bytes[start...]))
        }
        return escaped
    }

    /// The secret as base64 in guarded memory (empty for an item without one).
    private static func base64(_ secret: SecretBytes?) -> SecretBytes {
        (secret ?? SecretBytes(count: 0)).base64()
    }
}
