import CommandLineKit
import KeychainCore
import TextEscaping

/// How `exec --env-from` and `export`'s dotenv, shell and github-env formats name a variable after
/// an item: an attribute (`--name-from acct|labl|svce`), an optional `--prefix`, `--upper`, and the
/// names the user allows.
///
/// An item's attribute is written by whoever can add one item to a group the query matches
/// (another device holding the account key, an import file's author, another app of the group),
/// so the user, not the item, decides which names may come out: every name starts with `--prefix`,
/// or matches one of `--allow-names`' patterns, or it is refused naming the item. A name the user
/// did not list exactly (one a pattern or the prefix admits) must also be credential-shaped
/// (`NPM_TOKEN`, `AWS_ACCESS_KEY_ID`): `AWS_*` must not admit `AWS_PAGER`, a command the AWS CLI
/// runs. A deny-list of names that change how programs run (`ReservedVariables`) stays behind both
/// as the last line.
struct VariableNaming {
    /// The attribute code the name comes from.
    let code: String
    let prefix: String
    let upper: Bool
    /// `--allow-names` patterns (`*` matches any run of characters); empty: only `prefix` bounds.
    let allowed: [String]

    /// The words `--name-from` takes (a code or its long name), and the attribute each names.
    private static let words = [
        "acct": Schema.account, "account": Schema.account, "labl": Schema.label, "label": Schema.label, "svce": Schema.service,
        "service": Schema.service,
    ]

    /// The options, each declared once and shared by exec and export; `scope` starts each help line.
    struct Options {
        let nameFrom: Option<String>
        let prefix: Option<String>
        let allowNames: Option<String>
        let upper: Flag

        init(scope: String) {
            nameFrom = .choice("name-from", nil, "acct|labl|svce", "\(scope): the attribute that names each variable (default acct).") {
                VariableNaming.words[$0]
            }
            prefix = .text("prefix", nil, "P", "\(scope): put P before each variable's name; only such names are made.")
            allowNames = .text(
                "allow-names", nil, "PATTERN,…", repeatable: true,
                "\(scope): make only these names ('NPM_TOKEN,AWS_ACCESS_KEY_ID'); a pattern ('AWS_*') admits only credential-shaped names (…_TOKEN, …_SECRET, …_API_KEY, …_ACCESS_KEY_ID, …); any other is refused."
            )
            upper = Flag("upper", "\(scope): upper-case each variable's name, with '-' and '.' as '_' (api-token: API_TOKEN).")
        }

        var specs: [OptionSpec] { [nameFrom.spec, prefix.spec, allowNames.spec, upper.spec] }
    }

    /// The naming `arguments` gives through `options`.
    init(_ arguments: ParsedArguments, _ options: Options) throws(UsageError) {
        code = arguments[options.nameFrom] ?? Schema.account
        prefix = arguments[options.prefix] ?? ""
        upper = arguments[options.upper]
        allowed = arguments.all(options.allowNames).flatMap {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        if !prefix.isEmpty, !prefix.utf8.allSatisfy(Self.isNameByte) {
            throw UsageError("--prefix must be letters, digits and underscores.")
        }
        for pattern in allowed where pattern.isEmpty || !pattern.utf8.allSatisfy({ Self.isNameByte($0) || $0 == UInt8(ascii: "*") }) {
            let shown = String(pattern.prefix(40)).terminalSafe
            // A name as it is stored (api-token) rather than as the variable it becomes.
            let variable = Self.asVariable(pattern)
            if !pattern.isEmpty, variable.utf8.allSatisfy({ Self.isNameByte($0) || $0 == UInt8(ascii: "*") }) {
                throw UsageError(
                    "--allow-names takes variable names, not item names: '\(shown)' becomes \(variable) with --upper; "
                        + "give --upper --allow-names \(variable).")
            }
            throw UsageError("--allow-names: '\(shown)' is not a pattern (letters, digits, '_' and '*').")
        }
    }

    /// Whether the user said which names items may give; `what` (such as "--env-from") needs it.
    func requireBound(for what: String) throws(UsageError) {
        guard prefix.isEmpty, allowed.isEmpty else { return }
        throw UsageError(
            "\(what) names variables after items, which anyone who can add an item to the group chooses: "
                + "give --allow-names with the names you expect ('NPM_TOKEN,AWS_ACCESS_KEY_ID'), or --prefix P "
                + "(every name starts with P and is credential-shaped).")
    }

    /// The name `item` gives (which `check` may still refuse).
    func name(for item: Item) -> String { name(from: item.attributes[code]?.stringValue ?? "", upper: upper) }

    private func name(from value: String, upper: Bool) -> String {
        let name = prefix + value
        return upper ? Self.asVariable(name) : name
    }

    /// Why `name`, given by `item`, may not be made (the start of an error); `nil` when it may: a
    /// variable name, starting with the prefix (as every name does), listed exactly in
    /// --allow-names, or matching a pattern (or only the prefix) and credential-shaped.
    func refusal(_ name: String, of item: Item) -> String? {
        let reference = item.persistentRef.base64
        guard Self.isValid(name) else {
            return "item ref=\(reference) gives '\(String(name.prefix(40)).terminalSafe)', not a variable name; " + fix(for: item)
        }
        if allowed.contains(name) { return nil }
        guard allowed.isEmpty || allowed.contains(where: { Self.matches(name, pattern: $0) }) else {
            return "item ref=\(reference) gives \(name), which --allow-names does not allow; narrow the query to the items you mean"
        }
        guard Self.isCredentialShaped(name) else {
            return "item ref=\(reference) gives \(name), which is not credential-shaped (…_TOKEN, …_SECRET, …_PASSWORD, …_API_KEY, "
                + "…_ACCESS_KEY_ID, …): a pattern or --prefix admits only such names; list \(name) in --allow-names if you mean it"
        }
        return nil
    }

    /// The options that give `item` a variable name: --upper, or another --name-from with it,
    /// naming the name they make (a name the user then allows); else where the name comes from.
    private func fix(for item: Item) -> String {
        let codes = [code] + [Schema.account, Schema.service, Schema.label].filter { $0 != code }
        for candidate in codes {
            guard let value = item.attributes[candidate]?.stringValue else { continue }
            let made = name(from: value, upper: true)
            guard Self.isValid(made) else { continue }
            let word = Self.words.first { $0.value == candidate && $0.key.count == 4 }!.key
            let options = (candidate == code ? "" : "--name-from \(word) ") + "--upper"
            return "\(options) makes it \(made) (allow that name with --allow-names \(made))"
        }
        return "use --name-from acct|labl|svce or --prefix"
    }

    /// The endings of a name that holds a credential, and nothing else: a name a pattern admits must
    /// have one after a word of its own (`NPM_TOKEN`; a bare `TOKEN`, `KEY` or `PWD` is not one).
    /// A key or an identifier only in the forms credentials take (`…_API_KEY`, `…_ACCESS_KEY_ID`,
    /// `…_CLIENT_ID`): a bare `…_ID` or `…_KEY` picks a destination or plants a key as often
    /// (`NETLIFY_SITE_ID`, an SSH key a deployment installs).
    static let credentialSuffixes = [
        "_TOKEN", "_SECRET", "_PASSWORD", "_PASSWD", "_PASS", "_PWD", "_PAT", "_CREDENTIALS", "_CREDENTIAL", "_AUTH",
        "_API_KEY", "_APIKEY", "_ACCESS_KEY", "_SECRET_KEY", "_PRIVATE_KEY", "_SIGNING_KEY", "_DEPLOY_KEY", "_ACCESS_KEY_ID", "_KEY_ID",
        "_CLIENT_ID",
    ]

    /// Whether `name`, upper-cased, ends with a credential suffix after a word of its own (for the
    /// two-word endings, the first word may be the name's first: `DEPLOY_KEY`, `API_KEY`).
    static func isCredentialShaped(_ name: String) -> Bool {
        let upper = asciiUppercased(name)
        return credentialSuffixes.contains { suffix in
            (upper.hasSuffix(suffix) && upper.count > suffix.count) || (suffix.dropFirst().contains("_") && upper == suffix.dropFirst())
        }
    }

    /// Whether `name` matches `pattern`, where `*` stands for any run of characters (even none).
    static func matches(_ name: String, pattern: String) -> Bool {
        let text = Array(name.utf8)
        let glob = Array(pattern.utf8)
        var t = 0
        var g = 0
        // The last `*` seen and the text position it was tried at: on a mismatch, it takes one more byte.
        var star: (glob: Int, text: Int)?
        while t < text.count {
            if g < glob.count, glob[g] == UInt8(ascii: "*") {
                star = (g, t)
                g += 1
            } else if g < glob.count, glob[g] == text[t] {
                g += 1
                t += 1
            } else if let last = star {
                g = last.glob + 1
                t = last.text + 1
                star = (last.glob, last.text + 1)
            } else {
                return false
            }
        }
        while g < glob.count, glob[g] == UInt8(ascii: "*") { g += 1 }
        return g == glob.count
    }

    /// `name` with its ASCII letters upper-cased (variable names are ASCII; nothing else changes).
    static func asciiUppercased(_ name: String) -> String {
        String(decoding: name.utf8.map { $0 >= 0x61 && $0 <= 0x7A ? $0 - 0x20 : $0 }, as: UTF8.self)
    }

    /// `name` as `--upper` makes a variable of it: upper-cased, `-` and `.` as `_` (the separators
    /// of service and host names: `api-token` is `API_TOKEN`).
    static func asVariable(_ name: String) -> String {
        String(
            decoding: name.utf8.map { byte in
                switch byte {
                case 0x61...0x7A: byte - 0x20
                case UInt8(ascii: "-"), UInt8(ascii: "."): UInt8(ascii: "_")
                default: byte
                }
            }, as: UTF8.self)
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
