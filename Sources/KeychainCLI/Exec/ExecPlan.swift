import CommandLineKit
import Glibc
import KeychainCore
import TextEscaping

/// What `exec` was asked to give its command, and how it resolves: which variables and files
/// come from which items, over which inherited environment.
struct ExecPlan {
    /// Where a variable's value comes from, in increasing precedence.
    enum Origin: Int {
        case inherited, envFile, envFrom, env, file
    }

    static let env = Option.text("env", nil, "NAME=QUERY", repeatable: true, "Set NAME to the secret of the one item QUERY matches.")
    static let envFrom = Option.text(
        "env-from", nil, "QUERY", repeatable: true, "Set a variable for every generic password QUERY matches.")
    static let naming = VariableNaming.Options(scope: "--env-from")
    static let envFile = Option.path(
        "env-file", valueName: "FILE", repeatable: true, "Read NAME=VALUE lines (dotenv); keychain:QUERY values are resolved.")
    static let file = Option.text(
        "file", nil, "NAME=QUERY", repeatable: true,
        "Give the secret as a sealed, read-only file in memory and set NAME to its path (/dev/fd/N).")
    static let base64 = Option.text("base64", nil, "NAME", repeatable: true, "Give NAME's secret base64-encoded (for binary secrets).")
    static let group = Option.text(
        "group", nil, "G", repeatable: true, "Resolve only in these access groups (each must be one the profile may read).")
    static let pristine = Flag("pristine", "Start from an empty environment (plus --keep) instead of keychainctl's.")
    static let keep = Option.text(
        "keep", nil, "VAR,…", repeatable: true, "Keep these variables (with --pristine; KEYCHAINCTL_KEY_FILE otherwise removed).")
    static let noOverride = Flag("no-override", "Keep an inherited variable's value over an injected one.")
    static let strict = Flag(
        "strict",
        "Refuse any variable left holding a keychain: value that is not a query, and --env-from items named after a reserved variable.")

    /// The options the plan reads: exec's "secrets" section, then its "the command's environment".
    static let secretSpecs =
        [Self.env.spec, Self.envFrom.spec] + Self.naming.specs + [Self.envFile.spec, Self.file.spec, Self.base64.spec, Self.group.spec]
    static let environmentSpecs = [Self.pristine.spec, Self.keep.spec, Self.noOverride.spec, Self.strict.spec]

    let envs: [(name: String, query: String)]
    let files: [(name: String, query: String)]
    let envFrom: [String]
    let naming: VariableNaming
    let envFiles: [String]
    let base64: Set<String>
    let groups: [String]?
    let pristine: Bool
    let keep: [String]
    let noOverride: Bool
    let strict: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        envs = try Self.assignments(arguments.all(Self.env), option: "--env")
        files = try Self.assignments(arguments.all(Self.file), option: "--file")
        var named: [String] = []
        for name in envs.map(\.name) + files.map(\.name) {
            guard !named.contains(name) else { throw UsageError("\(name) is given twice among --env and --file.") }
            named.append(name)
        }
        envFrom = arguments.all(Self.envFrom)
        naming = try VariableNaming(arguments, Self.naming)
        if !envFrom.isEmpty { try naming.requireBound(for: "--env-from") }
        envFiles = arguments.all(Self.envFile)
        base64 = Set(arguments.all(Self.base64))
        let groupList = arguments.all(Self.group).flatMap { $0.split(separator: ",").map(String.init) }
        groups = groupList.isEmpty ? nil : groupList
        pristine = arguments[Self.pristine]
        keep = arguments.all(Self.keep).flatMap { $0.split(separator: ",").map(String.init) }
        noOverride = arguments[Self.noOverride]
        strict = arguments[Self.strict]
    }

    /// `NAME=QUERY` words; NAME must be a variable name.
    private static func assignments(_ words: [String], option: String) throws(UsageError) -> [(name: String, query: String)] {
        try words.map { word throws(UsageError) in
            guard let equals = word.firstIndex(of: "=") else { throw UsageError("\(option) takes NAME=QUERY.") }
            let name = String(word[..<equals])
            guard VariableNaming.isValid(name) else {
                throw UsageError("\(option): '\(String(name.prefix(40)).terminalSafe)' is not a variable name ([A-Za-z_][A-Za-z0-9_]*).")
            }
            return (name, String(word[word.index(after: equals)...]))
        }
    }

    /// One variable or file as it will be given.
    struct Variable {
        let name: String
        let value: SecretBytes
        let origin: Origin
        /// The item it came from (`nil`: a plain value).
        let item: Item?
        /// With `--base64`, the secret before encoding: masked too, since the command decodes it.
        var decoded: SecretBytes? = nil
    }

    /// Everything resolved, before CMD starts.
    struct Resolved {
        /// The command's variables (files' paths are added when the files exist).
        var variables: [Variable] = []
        /// The `--file` secrets, by variable name.
        var files: [Variable] = []
        var warnings: [String] = []
        /// Every secret given to the command, by name: what masking hides.
        var secrets: [(name: String, value: SecretBytes)] {
            (variables + files).filter { $0.item != nil }.flatMap { variable in
                [(variable.name, variable.value)] + (variable.decoded.map { [(variable.name, $0)] } ?? [])
            }
        }
        /// PATH as the command will have it.
        var path: String? {
            variables.last { $0.name == "PATH" }.map { $0.value.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } }
        }

        /// The environment block's entries, with each file's variable set to its path.
        func environment(filePaths: [String: String]) -> [(name: String, value: SecretBytes)] {
            variables.map { ($0.name, $0.value) }
                + files.compactMap { file in filePaths[file.name].map { (file.name, SecretBytes(copying: Array($0.utf8))) } }
        }
    }

    /// Resolves every reference in one read of `keychain` and builds the command's environment.
    func resolve(keychain: Keychain, caller: Caller) throws -> Resolved {
        var result = Resolved()
        var base = inherited()
        var fileEntries: [DotEnv.Entry] = []
        for path in envFiles {
            let bytes: SecretBytes
            do { bytes = try SecretFiles.readFile(path, limit: InputLimits.dotenvBytes) } catch is InputTooLarge {
                throw InputError("\(path) is longer than \(InputLimits.describe(InputLimits.dotenvBytes)), the most keychainctl reads.")
            }
            let parsed = try bytes.withUnsafeBytes { try DotEnv.parse($0, source: path) }
            result.warnings += parsed.warnings
            fileEntries += parsed.entries
        }
        // Every reference, in one list: --env, --file, --env-from, then keychain: values.
        var references: [Keychain.SecretReference] = []
        for (name, query) in envs + files {
            references.append(try SecretQuery.reference(query, name: name))
        }
        for query in envFrom {
            references.append(try SecretQuery.reference(query, name: "--env-from", every: true))
        }
        var referenced: [(index: Int, name: String, origin: Origin)] = []
        let candidates: [(index: Int, name: String, value: SecretBytes)] =
            base.enumerated().map { ($0.offset, $0.element.name, $0.element.value) }
            + fileEntries.enumerated().map { ($0.offset + base.count, $0.element.name, $0.element.value) }
        for candidate in candidates {
            guard let query = Self.keychainQuery(candidate.value) else { continue }
            do {
                references.append(try SecretQuery.reference(query, name: candidate.name))
                referenced.append((candidate.index, candidate.name, candidate.index < base.count ? .inherited : .envFile))
            } catch {
                if strict { throw error }
                result.warnings.append("\(candidate.name) holds a keychain: value that is not a query; it is passed on as written.")
            }
        }
        let found = try keychain.resolve(references, caller: caller, groups: groups)
        var injected: [Variable] = []
        for (offset, (name, _)) in envs.enumerated() {
            injected.append(try variable(found[offset][0], name: name, origin: .env))
        }
        for (offset, (name, _)) in files.enumerated() {
            let item = found[envs.count + offset][0]
            result.files.append(Variable(name: name, value: item.secret ?? SecretBytes(count: 0), origin: .file, item: item.item))
        }
        var fromEnvFrom: [Variable] = []
        for offset in envFrom.indices {
            for item in found[envs.count + files.count + offset] {
                let name = naming.name(for: item.item)
                if let refused = naming.refusal(name, of: item.item) {
                    throw KeychainError(.param, hint: "--env-from: \(refused); nothing was run.")
                }
                if let reserved = ReservedVariables.refusal(name, reference: item.item.persistentRef.base64) {
                    if strict { throw KeychainError(.param, hint: "--env-from: " + reserved + "; nothing was run.") }
                    result.warnings.append("--env-from: " + reserved + "; it was left out (set it with --env \(name)=… if you mean it).")
                    continue
                }
                guard !fromEnvFrom.contains(where: { $0.name == name }) else {
                    throw KeychainError(
                        .param, hint: "--env-from: two items give the variable \(name); narrow the query or use --name-from.")
                }
                fromEnvFrom.append(try variable(item, name: name, origin: .envFrom))
            }
        }
        // keychain: values, replaced in place.
        var fileVariables = fileEntries.map { Variable(name: $0.name, value: $0.value, origin: .envFile, item: nil) }
        for (position, reference) in referenced.enumerated() {
            let item = found[envs.count + files.count + envFrom.count + position][0]
            let variable = try variable(item, name: reference.name, origin: reference.origin)
            if reference.index < base.count {
                base[reference.index] = variable
            } else {
                fileVariables[reference.index - base.count] = variable
            }
        }
        result.variables = base
        for variable in fileVariables + fromEnvFrom + injected { try merge(variable, into: &result) }
        for file in result.files where result.variables.contains(where: { $0.name == file.name }) {
            result.warnings.append("\(file.name) is set to the --file path, over the value it had.")
            result.variables.removeAll { $0.name == file.name }
        }
        if strict, let left = result.variables.first(where: { $0.item == nil && Self.keychainQuery($0.value) != nil }) {
            throw KeychainError(.param, hint: "--strict: \(left.name) still holds a keychain: value; nothing was run.")
        }
        result.variables.append(Variable(name: Self.marker, value: SecretBytes(copying: Array("1".utf8)), origin: .env, item: nil))
        return result
    }

    /// Adds `variable`, over an earlier one of its name unless --no-override keeps an inherited one.
    /// A name an item chose (--env-from) never replaces an inherited variable: the item would
    /// decide what an existing setting of the command becomes.
    private func merge(_ variable: Variable, into result: inout Resolved) throws(KeychainError) {
        guard let existing = result.variables.firstIndex(where: { $0.name == variable.name }) else {
            result.variables.append(variable)
            return
        }
        let earlier = result.variables[existing]
        if earlier.origin == .inherited, noOverride {
            result.warnings.append("\(variable.name) keeps its inherited value (--no-override).")
            return
        }
        if earlier.origin == .inherited, variable.origin == .envFrom, let item = variable.item {
            throw KeychainError(
                .param,
                hint: "--env-from: item ref=\(item.persistentRef.base64) would replace the inherited \(variable.name); "
                    + "keep the inherited value with --no-override, or start from --pristine. Nothing was run.")
        }
        if earlier.origin == .inherited || earlier.origin.rawValue < variable.origin.rawValue {
            result.warnings.append("\(variable.name) is overridden by \(Self.describe(variable.origin)).")
        }
        result.variables[existing] = variable
    }

    private static func describe(_ origin: Origin) -> String {
        switch origin {
        case .inherited: "the inherited environment"
        case .envFile: "--env-file"
        case .envFrom: "--env-from"
        case .env: "--env"
        case .file: "--file"
        }
    }

    /// The variable NAME holding `item`'s secret: base64 with --base64 NAME (the secret itself kept
    /// for masking); a NUL byte, which an environment cannot hold, is errSecParam.
    private func variable(_ item: Keychain.FoundItem, name: String, origin: Origin) throws(KeychainError) -> Variable {
        let secret = item.secret ?? SecretBytes(count: 0)
        if base64.contains(name) { return Variable(name: name, value: secret.base64(), origin: origin, item: item.item, decoded: secret) }
        if secret.withUnsafeBytes({ $0.contains(0) }) {
            throw KeychainError(
                .param, hint: "\(name): the secret holds a NUL byte, which an environment variable cannot; use --file or --base64 \(name).")
        }
        return Variable(name: name, value: secret, origin: origin, item: item.item)
    }

    /// The query of a `keychain:QUERY` value.
    static func keychainQuery(_ value: SecretBytes) -> String? {
        value.withUnsafeBytes { bytes in
            let marker = Array("keychain:".utf8)
            guard bytes.count > marker.count, bytes.prefix(marker.count).elementsEqual(marker) else { return nil }
            return String(validating: bytes.dropFirst(marker.count), as: UTF8.self)
        }
    }

    /// keychainctl's own variables that are never passed on (`false`) or passed on only when named
    /// by `--keep` (`true`: paths, which are useless without the file but may be wanted). The last
    /// is the variable of sync's `--account-key-file`, spelled here because a command (a storey
    /// above exec) declares the option.
    static let credentialVariables: [String: Bool] = [
        SettingVariable.key.rawValue: false, SettingVariable.passphrase.rawValue: false, marker: false,
        SettingVariable.keyFile.rawValue: true, "KEYCHAINCTL_ACCOUNT_KEY_FILE": true,
    ]

    /// The variable set to 1 in the command's environment, so a script can tell it runs under exec.
    static let marker = "KEYCHAINCTL_EXEC"

    /// keychainctl's environment as the command inherits it: all of it (or with --pristine only
    /// --keep's), less keychainctl's own credentials.
    private func inherited() -> [Variable] {
        var variables: [Variable] = []
        var index = 0
        while let entry = environ[index] {
            index += 1
            let length = strlen(entry)
            let bytes = UnsafeRawBufferPointer(start: entry, count: length)
            guard let equals = bytes.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let name = String(decoding: bytes[..<equals], as: UTF8.self)
            if let credential = Self.credentialVariables[name], !credential || !keep.contains(name) { continue }
            if pristine, !keep.contains(name) { continue }
            variables.append(
                Variable(
                    name: name, value: SecretBytes(copying: UnsafeRawBufferPointer(rebasing: bytes[(equals + 1)...])), origin: .inherited,
                    item: nil))
        }
        return variables
    }
}
