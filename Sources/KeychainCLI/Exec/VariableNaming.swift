import KeychainCore

/// How `exec --env-from` and `export`'s dotenv, shell and github-env formats name a variable after
/// an item: an attribute (`--name-from acct|labl|svce`), an optional `--prefix`, `--upper`.
struct VariableNaming {
    /// The attribute code the name comes from.
    let code: String
    let prefix: String
    let upper: Bool

    /// The words `--name-from` takes (a code or its long name), and the attribute each names.
    private static let words = [
        "acct": Schema.account, "account": Schema.account, "labl": Schema.label, "label": Schema.label, "svce": Schema.service,
        "service": Schema.service,
    ]

    /// A `--name-from` option with `help`: its value is the attribute code.
    static func nameFrom(_ help: String) -> Option<String> {
        .choice("name-from", nil, "acct|labl|svce", help) { words[$0] }
    }

    /// The naming `arguments` gives through the command's own options (`prefix`: exec only).
    init(_ arguments: ParsedArguments, nameFrom: Option<String>, prefix: Option<String>? = nil, upper: Flag) throws(UsageError) {
        code = try arguments.value(nameFrom) ?? Schema.account
        self.prefix = try prefix.flatMap { option throws(UsageError) in try arguments.value(option) } ?? ""
        self.upper = arguments.flag(upper)
        if !self.prefix.isEmpty, !self.prefix.utf8.allSatisfy(Self.isNameByte) {
            throw UsageError("--prefix must be letters, digits and underscores.")
        }
    }

    /// The name `item` gives (which `isValid` may still refuse).
    func name(for item: Item) -> String {
        let name = prefix + (item.attributes[code]?.stringValue ?? "")
        return upper ? Self.asciiUppercased(name) : name
    }

    /// `name` with its ASCII letters upper-cased (variable names are ASCII; nothing else changes).
    static func asciiUppercased(_ name: String) -> String {
        String(decoding: name.utf8.map { $0 >= 0x61 && $0 <= 0x7A ? $0 - 0x20 : $0 }, as: UTF8.self)
    }

    /// Whether `name` is an environment variable name: `[A-Za-z_][A-Za-z0-9_]*`.
    static func isValid(_ name: String) -> Bool {
        guard let first = name.utf8.first, first == 0x5F || (first | 0x20 >= 0x61 && first | 0x20 <= 0x7A) else { return false }
        return name.utf8.allSatisfy(isNameByte)
    }

    static func isNameByte(_ byte: UInt8) -> Bool {
        byte == 0x5F || (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A)
    }
}
