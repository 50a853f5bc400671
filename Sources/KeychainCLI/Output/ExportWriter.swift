import Glibc
import KeychainCore
import KeychainPlatform
import TextEscaping

/// `export`'s output, item by item, with secrets kept in guarded memory until written.
final class ExportWriter {
    let format: ExportFormat
    let withSecrets: Bool
    let naming: VariableNaming
    let skipBinary: Bool
    /// `--strict`: a reserved variable name refuses the export instead of leaving its item out.
    let strict: Bool
    private var out = Output()
    private var count = 0
    private var names: [String: String] = [:]
    private(set) var warnings: [String] = []
    /// Every value written (for github-env's `::add-mask::` lines).
    private(set) var values: [(name: String, value: SecretBytes)] = []

    init(format: ExportFormat, withSecrets: Bool, naming: VariableNaming, skipBinary: Bool, strict: Bool) {
        self.strict = strict
        self.format = format
        self.withSecrets = withSecrets
        self.naming = naming
        self.skipBinary = skipBinary
        if format == .json { out.append("{\"format\":\"\(ItemJSON.documentFormat)\",\"version\":\(ItemJSON.documentVersion),\"items\":[") }
    }

    func add(_ found: Keychain.FoundItem) throws {
        let entry = ItemRenderer.Entry(item: found.item, secret: found.secret, dataFields: found.dataFields)
        let returns: ReturnOptions = withSecrets ? [.attributes, .persistentRef, .data] : [.attributes, .persistentRef]
        var object = ItemRenderer.json(entry, returns: returns)
        // An item without data says so (`null`), so that import restores it as it was: a missing
        // v_Data is an export without secrets, which import refuses.
        if withSecrets, found.secret == nil, case .object(var members) = object {
            members[ItemJSON.dataKey] = .null
            object = .object(members)
        }
        switch format {
        case .json:
            if count > 0 { out.append(",") }
            out.append(JSON.output(object))
        case .jsonl:
            out.append(JSON.output(object))
            out.append("\n")
        case .dotenv, .shell, .githubEnv:
            guard let (name, secret) = try named(found) else { return }
            values.append((name, secret))
            out.append(secret: try Self.assignment(name, secret, format: format))
        }
        count += 1
    }

    /// The whole output.
    func finish() -> Output {
        if format == .json { out.append("]}\n") }
        return out
    }

    /// The variable name and secret of `found`; `nil` for a binary secret or a reserved name left out.
    private func named(_ found: Keychain.FoundItem) throws -> (String, SecretBytes)? {
        let reference = found.item.persistentRef.base64
        let name = naming.name(for: found.item)
        if let refused = naming.refusal(name, of: found.item) {
            throw KeychainError(.param, hint: refused + "; nothing was written.")
        }
        if let reserved = ReservedVariables.refusal(name, reference: reference) {
            if strict { throw KeychainError(.param, hint: reserved + "; nothing was written.") }
            warnings.append(reserved + "; it was left out.")
            return nil
        }
        if let earlier = names[name] {
            throw KeychainError(
                .param, hint: "items ref=\(earlier) and ref=\(reference) both give \(name); narrow the selection or use --name-from.")
        }
        names[name] = reference
        let secret = found.secret ?? SecretBytes(count: 0)
        let binary = secret.withUnsafeBytes { $0.contains(0) || String(validating: $0.bindMemory(to: UInt8.self), as: UTF8.self) == nil }
        if binary {
            guard skipBinary else {
                throw KeychainError(
                    .param, hint: "item ref=\(reference) (\(name)) holds a secret that is not text; use --skip-binary or json.")
            }
            warnings.append("\(name) (ref=\(reference)) was left out: its secret is not text.")
            return nil
        }
        if format == .dotenv, secret.withUnsafeBytes({ DotenvQuoting(value: $0) }) == nil {
            throw KeychainError(
                .param,
                hint: "item ref=\(reference) (\(name)) holds a secret no dotenv quoting keeps for both docker compose and "
                    + "python-dotenv (\(DotenvQuoting.unkept)); nothing was written. Use --format shell for a file to source, "
                    + "or json.")
        }
        return (name, secret)
    }

    /// One assignment in guarded memory: `NAME="…"` (dotenv), `export NAME='…'` (shell), or a
    /// `NAME<<DELIMITER` block (github-env, with a random delimiter the value does not contain).
    static func assignment(_ name: String, _ value: SecretBytes, format: ExportFormat) throws -> SecretBytes {
        let out = SecretBytes(count: 0)
        func text(_ string: String) { Array(string.utf8).withUnsafeBytes { out.append($0) } }
        func byte(_ byte: UInt8) { withUnsafeBytes(of: byte) { out.append($0) } }
        switch format {
        case .dotenv:
            value.withUnsafeBytes { bytes in
                switch DotenvQuoting(value: bytes) {
                case .single?:
                    text("\(name)='")
                    out.append(bytes)
                    text("'\n")
                case .double?:
                    text("\(name)=\"")
                    for character in bytes {
                        switch character {
                        case 0x5C: text("\\\\")
                        case 0x22: text("\\\"")
                        // A line break as it is (all three readers take one inside double
                        // quotes; systemd would keep the backslash of `\n`), a carriage return
                        // escaped (python-dotenv reads the file with universal newlines).
                        case 0x0D: text("\\r")
                        default: byte(character)
                        }
                    }
                    text("\"\n")
                case nil: break  // refused before (`named`)
                }
            }
        case .shell:
            text("export \(name)='")
            value.withUnsafeBytes { bytes in
                for character in bytes { if character == 0x27 { text("'\\''") } else { byte(character) } }
            }
            text("'\n")
        case .githubEnv:
            var delimiter: String
            repeat {
                delimiter =
                    "ghadelim_" + SecretBytes.random(count: 12).withUnsafeBytes { $0.map { String.hex(UInt32($0), digits: 2) }.joined() }
            } while value.withUnsafeBytes({ bytes in
                let marker = Array(delimiter.utf8)
                return bytes.count >= marker.count && (0...(bytes.count - marker.count)).contains { bytes[$0...].starts(with: marker) }
            })
            text("\(name)<<\(delimiter)\n")
            value.withUnsafeBytes { out.append($0) }
            text("\n\(delimiter)\n")
        case .json, .jsonl: break
        }
        return out
    }
}

/// Where `export` writes: stdout, a new file (0600, exclusive; `--force` replaces one whole), or
/// the end of a file (`--append-to`). A new or replacing file is written whole before it is named
/// (`NewFile`): a failure or a kill leaves the old file or none, never part of the secrets. An
/// append that fails is cut back to the file's length before it.
enum ExportDestination {
    static func write(_ output: Output, output path: String?, force: Bool, appendTo: String?) throws {
        if let appendTo { return try append(output, to: appendTo) }
        guard let target = path else { return StandardStreams.out(output) }
        let existing = InputError("cannot create \(target): it exists (use --force to replace it).")
        let file = try NewFile(target, what: "export") { fd in
            guard writeAll(output, to: fd) else {
                throw InputError("cannot write \(target): \(SystemError.text(errno)); nothing was written.")
            }
        }
        try force ? file.replace() : file.create(existing: existing)
    }

    private static func append(_ output: Output, to target: String) throws {
        let fd = open(target, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw InputError("cannot open \(target): \(SystemError.text(errno)).") }
        defer { close(fd) }
        var before = stat()
        guard fstat(fd, &before) == 0 else { throw InputError("cannot read \(target): \(SystemError.text(errno)).") }
        guard writeAll(output, to: fd), fsync(fd) == 0 else {
            let failure = errno
            let restored = ftruncate(fd, before.st_size) == 0
            throw InputError(
                "cannot write \(target): \(SystemError.text(failure)); "
                    + (restored ? "it was cut back to what it held before." : "what was appended could not be removed."))
        }
    }

    /// Writes every piece of `output`; false (errno set) at the first that fails.
    private static func writeAll(_ output: Output, to fd: Int32) -> Bool {
        output.pieces.allSatisfy { piece in
            switch piece {
            case .text(let text): Array(text.utf8).withUnsafeBytes { FileBytes.writeAll(fd, $0) }
            case .secret(let secret): secret.withUnsafeBytes { FileBytes.writeAll(fd, $0) }
            }
        }
    }
}

/// How a dotenv line quotes a value so that docker compose (compose-go's parser) and python-dotenv
/// both read back its bytes, and a shell that sources the file runs nothing of it.
///
/// Single quotes are literal to compose and systemd, and to python-dotenv but for `\\` and `\'`,
/// and a shell expands nothing inside them: they hold any value without `'`, `\\`, a final `\`
/// or a carriage return (python reads the file with universal newlines). Double quotes, with `\\`,
/// `\"` and `\r` escaped as both read them, hold the rest, unless it has a `$` (compose expands
/// it and python keeps `\$` as written) or a backquote (a shell that sources the file would run
/// what stands between two). `${` is expanded by python-dotenv in either quoting. Such a value has
/// no dotenv spelling both read back: `nil`.
enum DotenvQuoting {
    case single, double

    /// What makes a value unkept, as the refusal names it.
    static let unkept = "a ' or \\ with a $ or `, or ${"

    init?(value bytes: UnsafeRawBufferPointer) {
        let dollar = UInt8(ascii: "$"), backslash = UInt8(ascii: "\\")
        var hasDollar = false, hasBackquote = false, needsDouble = false
        for index in bytes.indices {
            let byte = bytes[index]
            let next = index + 1 < bytes.count ? bytes[index + 1] : nil
            switch byte {
            case dollar:
                if next == UInt8(ascii: "{") { return nil }
                hasDollar = true
            case UInt8(ascii: "`"): hasBackquote = true
            case UInt8(ascii: "'"), 0x0D: needsDouble = true
            case backslash: if next == nil || next == backslash { needsDouble = true }
            default: break
            }
        }
        guard needsDouble else {
            self = .single
            return
        }
        guard !hasDollar, !hasBackquote else { return nil }
        self = .double
    }
}
